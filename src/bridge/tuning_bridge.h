/* tuning_bridge.h: the C interface between the core and the Kokkos Tools
 * tuning interface (Kokkos::Tools::Experimental: declare_output_type,
 * request_output_values, begin_context, ...).
 *
 * tuning_bridge.cpp implements it; src/core/tools/tuning.c calls it. The six
 * tuning events are ordinary rows of kp_tools_event (tools_bridge.h), so
 * setting, removing and listing their callbacks goes through the tools
 * bridge; this header adds the structs the events carry, the core's
 * handlers for them, and the calls that let Python drive tuning itself.
 *
 * No Kokkos type crosses this line: the structs below hold the facts of
 * Kokkos' C structs (Kokkos_Tools_VariableInfo, Kokkos_Tools_VariableValue,
 * Kokkos_Tools_OptimizationGoal) in fixed-width fields, and the bridge
 * converts in both directions. Every function is noexcept on the C++ side.
 *
 * Kokkos built without KOKKOS_ENABLE_TUNING (Debian's 3.4, and the
 * default of every release so far) compiles declare_output_type,
 * declare_input_type, request_output_values, end_context and
 * declare_optimization_goal to no-ops that call no callback. The calls
 * below then invoke the callback Kokkos' table holds themselves, with the
 * arguments Kokkos would pass, so a tuner (Python or a tool library) sees
 * Python's tuning requests with either build.
 */
#ifndef KOKKOS_PYTHON_TUNING_BRIDGE_H
#define KOKKOS_PYTHON_TUNING_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "bridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kokkos' KOKKOS_TOOLS_TUNING_STRING_LENGTH (checked by the bridge). */
#define KP_TUNING_STRING_SIZE 64

/* Kokkos_Tools_VariableInfo_ValueType, same numbers. */
typedef enum kp_tuning_type {
  KP_TUNING_DOUBLE = 0,
  KP_TUNING_INT64 = 1,
  KP_TUNING_STRING = 2,
  KP_TUNING_TYPE_COUNT
} kp_tuning_type;

/* Kokkos_Tools_VariableInfo_StatisticalCategory, same numbers. */
typedef enum kp_tuning_category {
  KP_TUNING_CATEGORICAL = 0,
  KP_TUNING_ORDINAL,
  KP_TUNING_INTERVAL,
  KP_TUNING_RATIO,
  KP_TUNING_CATEGORY_COUNT
} kp_tuning_category;

/* Kokkos_Tools_VariableInfo_CandidateValueType, same numbers. */
typedef enum kp_tuning_quantity {
  KP_TUNING_SET = 0,
  KP_TUNING_RANGE,
  KP_TUNING_UNBOUNDED,
  KP_TUNING_QUANTITY_COUNT
} kp_tuning_quantity;

/* Kokkos_Tools_OptimizationType, same numbers. */
typedef enum kp_tuning_goal { KP_TUNING_MINIMIZE = 0, KP_TUNING_MAXIMIZE = 1 } kp_tuning_goal;

/* One value of a tuning variable; which member holds it is the variable's
 * type. string_value is always NUL-terminated. */
typedef union kp_tuning_value {
  int64_t int_value;
  double double_value;
  char string_value[KP_TUNING_STRING_SIZE];
} kp_tuning_value;

/* A variable's description (Kokkos_Tools_VariableInfo). */
typedef struct kp_tuning_info {
  int type;     /* kp_tuning_type */
  int category; /* kp_tuning_category */
  int quantity; /* kp_tuning_quantity */
  /* KP_TUNING_SET: set_size values of type's member, in an array the
   * caller owns (int64_t[], double[] or char[][KP_TUNING_STRING_SIZE]). */
  size_t set_size;
  const void *set_values;
  /* KP_TUNING_RANGE */
  kp_tuning_value lower, upper, step;
  int open_lower, open_upper;
} kp_tuning_info;

/* A variable's value (Kokkos_Tools_VariableValue). */
typedef struct kp_tuning_variable {
  size_t type_id;
  int type; /* kp_tuning_type, or -1 when nobody said */
  kp_tuning_value value;
  const kp_tuning_info *info; /* Kokkos' metadata; NULL if it gave none */
} kp_tuning_variable;

/* The core's handlers for the tuning events. Kokkos may call them from any
 * thread, with or without the GIL. Pointers are valid for the call only. */
typedef struct kp_tuning_handlers {
  /* declare_output_type (output = 1) and declare_input_type (0) */
  void (*declare_type)(int output, const char *name, size_t id, const kp_tuning_info *info);
  /* request_output_values: the handler may change outputs[i].value (of
   * outputs[i].type); the bridge hands them back to Kokkos. */
  void (*request_values)(size_t context_id, size_t n_inputs, const kp_tuning_variable *inputs, size_t n_outputs,
                         kp_tuning_variable *outputs);
  void (*begin_context)(size_t context_id);
  /* end_context: value is the context's optimization goal's value. */
  void (*end_context)(size_t context_id, const kp_tuning_variable *value);
  void (*optimization_goal)(size_t context_id, size_t type_id, int goal);
} kp_tuning_handlers;

/* Registers the handlers (copied). Call once, before any callback is set. */
void kp_tuning_bridge_set_handlers(const kp_tuning_handlers *handlers) KP_NOEXCEPT;

/* 1 if the installed Kokkos was built with KOKKOS_ENABLE_TUNING (its own
 * tuning calls reach the callbacks), else 0. */
int kp_tuning_bridge_kokkos_enable_tuning(void) KP_NOEXCEPT;

/* Kokkos::Tools::Experimental::get_new_context_id, get_current_context_id,
 * get_new_variable_id. */
size_t kp_tuning_bridge_new_context_id(void) KP_NOEXCEPT;
size_t kp_tuning_bridge_current_context_id(void) KP_NOEXCEPT;
size_t kp_tuning_bridge_new_variable_id(void) KP_NOEXCEPT;

/* 1 if a request_output_values callback is set (what Kokkos'
 * have_tuning_tool answers when it is built with tuning). */
int kp_tuning_bridge_have_tuning_tool(void) KP_NOEXCEPT;

/* Kokkos::Tools::Experimental::declare_output_type (output = 1) or
 * declare_input_type: the variable's id in *out_id. The bridge keeps a copy
 * of info (its candidates included) for the life of the process, since
 * Kokkos keeps pointers to them. */
kp_status kp_tuning_bridge_declare_type(int output, const char *name, const kp_tuning_info *info, size_t *out_id,
                                        kp_error *err) KP_NOEXCEPT;

/* set_input_values(context_id, inputs) then request_output_values(
 * context_id, outputs): the tuner's choices land in outputs[i].value. Each
 * variable's type is what its declaration said (type -1 entries take it
 * from there; unknown ids keep their own). */
kp_status kp_tuning_bridge_request_output_values(size_t context_id, size_t n_inputs, kp_tuning_variable *inputs,
                                                 size_t n_outputs, kp_tuning_variable *outputs,
                                                 kp_error *err) KP_NOEXCEPT;

/* begin_context / end_context / declare_optimization_goal. */
kp_status kp_tuning_bridge_begin_context(size_t context_id, kp_error *err) KP_NOEXCEPT;
kp_status kp_tuning_bridge_end_context(size_t context_id, kp_error *err) KP_NOEXCEPT;
kp_status kp_tuning_bridge_declare_optimization_goal(size_t context_id, size_t type_id, int goal,
                                                     kp_error *err) KP_NOEXCEPT;

/* The declared type of variable id (kp_tuning_type), or -1 if this process
 * has not seen its declaration. */
int kp_tuning_bridge_type_of(size_t id) KP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KOKKOS_PYTHON_TUNING_BRIDGE_H */
