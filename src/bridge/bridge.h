/* bridge.h: the C interface between the C core and Kokkos.
 *
 * The core (plain C11) calls only what is declared here and in the other
 * bridge headers (exchange_bridge.h, tools_bridge.h, tuning_bridge.h,
 * host_parallel.h); the bridge's C++ files, compiled against the installed
 * Kokkos, implement it. No Kokkos type crosses this line: memory spaces are
 * small integers (enum kp_space), sizes are fixed-width integers, and every
 * function is declared KP_NOEXCEPT and defined noexcept on the C++ side: it
 * catches everything and reports a status plus a message.
 */
#ifndef KOKKOS_PYTHON_BRIDGE_H
#define KOKKOS_PYTHON_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "kokkos_python/tables.h"

/* noexcept for the C++ side of every bridge declaration (nothing in C). */
#ifdef __cplusplus
#define KP_NOEXCEPT noexcept
#else
#define KP_NOEXCEPT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Kokkos' largest View rank. */
#define KP_MAX_RANK 8

/* Memory spaces: the rows of the public header's KOKKOS_PYTHON_SPACE_ROWS
 * (include/kokkos_python/tables.h: its number, name, aliases, DLPack device
 * type, backend and memory kind), the one place a space's name is spelled.
 * A new space is a row there plus its Kokkos type in compat.hpp's
 * KOKKOS_PYTHON_COMPAT_SPACE_TYPES; the core's table (space.c), the Python
 * enumeration, the bridge's dispatch and the exchange code's device checks
 * are built from the rows. KP_SPACE_<id> is a row's place (capi.c checks it
 * against its number). */
#define KP_SPACE_ENUM_ROW(id, ...) KP_SPACE_##id,
typedef enum kp_space { KOKKOS_PYTHON_SPACE_ROWS(KP_SPACE_ENUM_ROW) KP_SPACE_COUNT } kp_space;
#undef KP_SPACE_ENUM_ROW

/* The backend column of the space rows (names: kp_backend_names, space.c). */
typedef enum kp_backend {
  KP_BACKEND_HOST,
  KP_BACKEND_CUDA,
  KP_BACKEND_HIP,
  KP_BACKEND_SYCL,
  KP_BACKEND_OPENMP_TARGET,
  KP_BACKEND_COUNT
} kp_backend;
/* The memory-kind column of the space rows (names: kp_memory_kind_names). */
typedef enum kp_memory_kind {
  KP_MEMORY_HOST,
  KP_MEMORY_DEVICE,
  KP_MEMORY_MANAGED,
  KP_MEMORY_PINNED,
  KP_MEMORY_KIND_COUNT
} kp_memory_kind;
/* One column of the space rows as an initializer list, indexed by space:
 * {KOKKOS_PYTHON_SPACE_ROWS(KP_SPACE_BACKEND_OF)}, and KP_SPACE_KIND_OF. */
#define KP_SPACE_BACKEND_OF(id, number, name, aliases, dlpack, backend, kind) KP_BACKEND_##backend,
#define KP_SPACE_KIND_OF(id, number, name, aliases, dlpack, backend, kind) KP_MEMORY_##kind,

/* Execution spaces (backends), in the original's order. */
typedef enum kp_exec_space {
  KP_EXEC_SERIAL = 0,
  KP_EXEC_THREADS,
  KP_EXEC_OPENMP,
  KP_EXEC_CUDA,
  KP_EXEC_HPX,
  KP_EXEC_HIP,
  KP_EXEC_SYCL,
  KP_EXEC_OPENMP_TARGET,
  KP_EXEC_COUNT
} kp_exec_space;

typedef enum kp_status {
  KP_OK = 0,
  KP_E_NOMEM,       /* allocation failed: MemoryError */
  KP_E_UNAVAILABLE, /* space or feature not in this Kokkos: RuntimeError */
  KP_E_STATE,       /* Kokkos not initialized / already finalized */
  KP_E_KOKKOS,      /* Kokkos threw: RuntimeError with its message */
  KP_E_ARG          /* bad argument: ValueError */
} kp_status;

/* Filled by a failing bridge call; always NUL-terminated. Callers set
 * message[0] = 0 only (clearing all 512 bytes costs more than a small
 * allocation on the hot paths) and read it only after a failure. */
typedef struct kp_error {
  char message[512];
} kp_error;

/* Settings for kp_bridge_initialize; -1 (or NULL) means "not given". */
typedef struct kp_init_settings {
  int num_threads;
  int device_id;
  int disable_warnings;    /* 0, 1 or -1 */
  int print_configuration; /* 0, 1 or -1 */
  const char *tools_libs;
  const char *tools_args;
} kp_init_settings;

/* ---- runtime ---------------------------------------------------------- */

/* KOKKOS_VERSION of the Kokkos the bridge was compiled against
 * (major * 10000 + minor * 100 + patch). */
int kp_bridge_kokkos_version(void) KP_NOEXCEPT;
/* Address of Kokkos::is_initialized in the Kokkos library the bridge uses:
 * identifies that Kokkos runtime in the process (capi_bridge.cpp). */
const void *kp_bridge_kokkos_runtime(void) KP_NOEXCEPT;
int kp_bridge_is_initialized(void) KP_NOEXCEPT;
/* True once Kokkos::finalize ran (tracked by a finalize hook where Kokkos
 * itself has no is_finalized, as in 3.x). */
int kp_bridge_is_finalized(void) KP_NOEXCEPT;
/* Initializes Kokkos with argv (may be NULL) plus the given settings. */
kp_status kp_bridge_initialize(int argc, char **argv, const kp_init_settings *settings, kp_error *err) KP_NOEXCEPT;
kp_status kp_bridge_finalize(kp_error *err) KP_NOEXCEPT;
kp_status kp_bridge_fence(const char *label, kp_error *err) KP_NOEXCEPT;
/* *out receives a malloc'd string; release it with free(). */
kp_status kp_bridge_print_configuration(int detail, char **out, kp_error *err) KP_NOEXCEPT;
/* Registers the function Kokkos calls at the start of every finalize
 * (whoever calls it: Python or the application's C++). Call once. */
kp_status kp_bridge_set_finalize_hook(void (*hook)(void), kp_error *err) KP_NOEXCEPT;

/* ---- spaces ------------------------------------------------------------ */

int kp_bridge_space_available(int space) KP_NOEXCEPT;
/* True if the host can read and write memory of this space. */
int kp_bridge_space_host_accessible(int space) KP_NOEXCEPT;
int kp_bridge_default_memory_space(void) KP_NOEXCEPT;
int kp_bridge_default_host_memory_space(void) KP_NOEXCEPT;
int kp_bridge_execution_space_available(int exec) KP_NOEXCEPT;
int kp_bridge_default_execution_space(void) KP_NOEXCEPT;
int kp_bridge_default_host_execution_space(void) KP_NOEXCEPT;

/* ---- memory ------------------------------------------------------------ */

/* Allocates bytes (> 0) in space through Kokkos with label (the space's
 * allocate(label, size): Kokkos Tools see the allocation and its label, and
 * no allocation record is made); zero-fills it when zero is set. Free it
 * with kp_bridge_deallocate, the same label and the same size. In a space the host cannot
 * access the fill is left queued on the default execution space instance
 * (no fence): the caller orders consumers on other streams after it. */
kp_status kp_bridge_allocate(int space, const char *label, size_t bytes, int zero, void **out,
                             kp_error *err) KP_NOEXCEPT;
kp_status kp_bridge_deallocate(int space, const char *label, void *ptr, size_t bytes, kp_error *err) KP_NOEXCEPT;
/* 1 when a Kokkos Tools library or callback is loaded (Kokkos::Tools::
 * profileLibraryLoaded()): allocations must then go through Kokkos, which
 * reports them. */
int kp_bridge_tools_watching(void) KP_NOEXCEPT;

/* Copies bytes between any two available spaces (fences before and after,
 * reports a labelled deep-copy event to Kokkos Tools). The ranges must not
 * overlap (KP_E_ARG if they do: the caller stages such copies). */
kp_status kp_bridge_copy_bytes(int dst_space, void *dst, const char *dst_label, int src_space, const void *src,
                               const char *src_label, size_t bytes, kp_error *err) KP_NOEXCEPT;

/* Strided element copy within one space, run by that space's execution
 * space. Strides are in elements and may be negative; the last dimension
 * varies fastest in the iteration order. elem_size is 1, 2, 4, 8 or 16.
 * The elements run in parallel: dst and src must not overlap. */
kp_status kp_bridge_copy_strided(int space, size_t elem_size, int rank, const int64_t *extents, void *dst,
                                 const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                                 kp_error *err) KP_NOEXCEPT;

/* Reports to Kokkos Tools a deep copy that the core carries out without
 * Kokkos::deep_copy (host strided copies, strided kernels, staged copies,
 * fills), the way Kokkos::deep_copy reports its own: begin_deep_copy with
 * both spaces, labels and addresses and the bytes copied, then
 * end_deep_copy. A fill reports the host as its source, labelled "Scalar".
 * begin returns 1 when a tool listens (the caller then calls end once the
 * copy is done), 0 when none does or a space is unknown. Never fails. */
int kp_bridge_tools_begin_deep_copy(int dst_space, const char *dst_label, const void *dst, int src_space,
                                    const char *src_label, const void *src, uint64_t bytes) KP_NOEXCEPT;
void kp_bridge_tools_end_deep_copy(void) KP_NOEXCEPT;

/* Fills every element of a strided region with *value (elem_size bytes,
 * read on the host). */
kp_status kp_bridge_fill(int space, size_t elem_size, int rank, const int64_t *extents, void *dst,
                         const int64_t *dst_strides, const void *value, kp_error *err) KP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KOKKOS_PYTHON_BRIDGE_H */
