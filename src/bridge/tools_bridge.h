/* tools_bridge.h: the C interface between the core and Kokkos Tools.
 *
 * tools_bridge.cpp (C++, the only tools code that includes Kokkos)
 * implements it; src/core/tools.c (plain C) calls it. Kokkos keeps one
 * process-wide table of callbacks (Kokkos::Tools::Experimental::EventSet)
 * with no user-data pointer, so the bridge installs its own trampolines in
 * that table and forwards every event to one process-wide set of C
 * handlers (kp_tools_handlers) that the core registers once.
 *
 * No Kokkos type crosses this line: the structs below have the layout of
 * Kokkos' C structs (Kokkos_Profiling_SpaceHandle, ..._KokkosPDeviceInfo),
 * which the bridge checks at compile time, and events are small integers.
 * Every function here is noexcept on the C++ side.
 */
#ifndef KOKKOS_PYTHON_TOOLS_BRIDGE_H
#define KOKKOS_PYTHON_TOOLS_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "bridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kokkos' SpaceHandle: the memory space's name ("Host", "Cuda", ...). */
#define KP_TOOLS_SPACE_NAME_SIZE 64
typedef struct kp_tools_space_handle {
  char name[KP_TOOLS_SPACE_NAME_SIZE];
} kp_tools_space_handle;

/* Kokkos' KokkosPDeviceInfo. */
typedef struct kp_tools_device_info {
  size_t device_id;
} kp_tools_device_info;

/* The part of Kokkos' ToolSettings a tool may change. */
typedef struct kp_tools_settings {
  int requires_global_fencing;
} kp_tools_settings;

/* Every Kokkos Tools event a callback can be set for, in the order of
 * Kokkos' EventSet. A new event is one row here, one row in the bridge's
 * table and one row in the core's (tools.c). */
typedef enum kp_tools_event {
  KP_TOOLS_INIT = 0,
  KP_TOOLS_FINALIZE,
  KP_TOOLS_PARSE_ARGS,
  KP_TOOLS_PRINT_HELP,
  KP_TOOLS_BEGIN_PARALLEL_FOR,
  KP_TOOLS_END_PARALLEL_FOR,
  KP_TOOLS_BEGIN_PARALLEL_REDUCE,
  KP_TOOLS_END_PARALLEL_REDUCE,
  KP_TOOLS_BEGIN_PARALLEL_SCAN,
  KP_TOOLS_END_PARALLEL_SCAN,
  KP_TOOLS_PUSH_REGION,
  KP_TOOLS_POP_REGION,
  KP_TOOLS_ALLOCATE_DATA,
  KP_TOOLS_DEALLOCATE_DATA,
  KP_TOOLS_CREATE_PROFILE_SECTION,
  KP_TOOLS_START_PROFILE_SECTION,
  KP_TOOLS_STOP_PROFILE_SECTION,
  KP_TOOLS_DESTROY_PROFILE_SECTION,
  KP_TOOLS_PROFILE_EVENT,
  KP_TOOLS_BEGIN_DEEP_COPY,
  KP_TOOLS_END_DEEP_COPY,
  KP_TOOLS_BEGIN_FENCE,
  KP_TOOLS_END_FENCE,
  KP_TOOLS_DUAL_VIEW_SYNC,
  KP_TOOLS_DUAL_VIEW_MODIFY,
  KP_TOOLS_DECLARE_METADATA,
  KP_TOOLS_REQUEST_TOOL_SETTINGS,
  KP_TOOLS_PROVIDE_TOOL_PROGRAMMING_INTERFACE,
  /* tuning (their handlers and structs: tuning_bridge.h) */
  KP_TOOLS_DECLARE_OUTPUT_TYPE,
  KP_TOOLS_DECLARE_INPUT_TYPE,
  KP_TOOLS_REQUEST_OUTPUT_VALUES,
  KP_TOOLS_BEGIN_CONTEXT,
  KP_TOOLS_END_CONTEXT,
  KP_TOOLS_DECLARE_OPTIMIZATION_GOAL,
  KP_TOOLS_EVENT_COUNT
} kp_tools_event;

/* The core's handlers, grouped by the shape of their arguments; `event`
 * says which event of the group fired. Kokkos may call them from any
 * thread, with or without the GIL held. A handler that returns an id writes
 * it through the out pointer (Kokkos initialized it). */
typedef struct kp_tools_handlers {
  /* init: device_info may be NULL (Kokkos passes none today). */
  void (*init)(int load_sequence, uint64_t interface_version, uint32_t device_info_count,
               const kp_tools_device_info *device_info);
  /* finalize, pop_region, end_deep_copy */
  void (*plain)(int event);
  void (*parse_args)(int argc, char **argv);
  void (*print_help)(const char *program);
  /* begin_parallel_for/reduce/scan, begin_fence */
  void (*begin)(int event, const char *name, uint32_t device_id, uint64_t *out_id);
  /* end_parallel_for/reduce/scan, end_fence */
  void (*end)(int event, uint64_t id);
  /* push_region, profile_event */
  void (*named)(int event, const char *name);
  /* allocate_data, deallocate_data */
  void (*data)(int event, const kp_tools_space_handle *space, const char *label, const void *ptr, uint64_t size);
  void (*create_section)(const char *name, uint32_t *out_id);
  /* start/stop/destroy_profile_section */
  void (*section)(int event, uint32_t id);
  void (*deep_copy)(const kp_tools_space_handle *dst_space, const char *dst_label, const void *dst_ptr,
                    const kp_tools_space_handle *src_space, const char *src_label, const void *src_ptr, uint64_t size);
  /* dual_view_sync (flag: to device), dual_view_modify (flag: on device) */
  void (*dual_view)(int event, const char *label, const void *ptr, int flag);
  void (*metadata)(const char *key, const char *value);
  /* request_tool_settings: the handler may change *settings. */
  void (*tool_settings)(uint32_t count, kp_tools_settings *settings);
  /* provide_tool_programming_interface: the actions are reachable through
   * kp_tools_bridge_tool_fence afterwards. */
  void (*programming_interface)(uint32_t count);
} kp_tools_handlers;

/* Registers the handlers (copied). Call once, before any callback is set. */
void kp_tools_bridge_set_handlers(const kp_tools_handlers *handlers) KP_NOEXCEPT;

/* True if the installed Kokkos lets a callback be set for event. */
int kp_tools_bridge_event_available(int event) KP_NOEXCEPT;

/* Installs (enable) or removes (!enable) the bridge's trampoline for
 * event in Kokkos' callback table, replacing whatever was there (a tool
 * library's function included: Kokkos keeps one callback per event). */
kp_status kp_tools_bridge_set_callback(int event, int enable, kp_error *err) KP_NOEXCEPT;

/* What Kokkos' table holds for event right now. */
typedef enum kp_tools_slot {
  KP_TOOLS_SLOT_EMPTY = 0,
  KP_TOOLS_SLOT_OURS,  /* the bridge's trampoline: a Python callable */
  KP_TOOLS_SLOT_NATIVE /* another function: a tool library or C++ code */
} kp_tools_slot;

typedef struct kp_tools_slot_info {
  int slot;          /* kp_tools_slot */
  uintptr_t address; /* the function, for NATIVE */
  char library[512]; /* shared object holding it ("" if unknown) */
  char symbol[128];  /* its name ("" if unknown) */
} kp_tools_slot_info;

void kp_tools_bridge_slot(int event, kp_tools_slot_info *out) KP_NOEXCEPT;

/* Kokkos::Tools::profileLibraryLoaded(): any callback set. */
int kp_tools_bridge_profile_library_loaded(void) KP_NOEXCEPT;

/* The profiling calls of Kokkos::Tools; each reports to whatever is set. */
kp_status kp_tools_bridge_push_region(const char *name, kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_pop_region(kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_create_profile_section(const char *name, uint32_t *out_id, kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_destroy_profile_section(uint32_t id, kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_start_section(uint32_t id, kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_stop_section(uint32_t id, kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_mark_event(const char *name, kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_declare_metadata(const char *key, const char *value, kp_error *err) KP_NOEXCEPT;

/* Kokkos::Tools::Experimental::pause_tools / resume_tools. Resuming
 * without a pause does nothing (Kokkos would restore an empty table). */
kp_status kp_tools_bridge_pause(kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_resume(kp_error *err) KP_NOEXCEPT;
int kp_tools_bridge_paused(void) KP_NOEXCEPT;

/* Kokkos::Tools::make_space_handle(name). */
void kp_tools_bridge_make_space_handle(const char *name, kp_tools_space_handle *out) KP_NOEXCEPT;

/* Calls the fence action Kokkos provided through
 * provide_tool_programming_interface; KP_E_UNAVAILABLE if none was
 * provided, KP_E_STATE unless Kokkos is initialized. */
kp_status kp_tools_bridge_tool_fence(uint32_t device_id, kp_error *err) KP_NOEXCEPT;

/* KOKKOSP_INTERFACE_VERSION of the installed Kokkos. */
uint64_t kp_tools_bridge_interface_version(void) KP_NOEXCEPT;

/* The original package's kokkos.tools._internal: setup allocates two host
 * Views labelled "cxx_source" and "cxx_target" (10 int32 each); test runs
 * C++ Kokkos work that Tools report (parallel_for / reduce / scan named
 * "cxx_parallel_*", a profile section "cxx_created_section", a deep copy
 * target <- source, a region "cxx_push_region") and frees both Views. */
kp_status kp_tools_bridge_internal_setup(kp_error *err) KP_NOEXCEPT;
kp_status kp_tools_bridge_internal_test(kp_error *err) KP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KOKKOS_PYTHON_TOOLS_BRIDGE_H */
