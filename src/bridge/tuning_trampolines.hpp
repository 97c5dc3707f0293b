// tuning_trampolines.hpp: the tuning events' trampolines (tuning_bridge.cpp),
// for the event table in tools_bridge.cpp. C++ only, bridge-internal: each
// has Kokkos' exact callback signature and forwards to the core's
// kp_tuning_handlers.
#ifndef KOKKOS_PYTHON_TUNING_TRAMPOLINES_HPP
#define KOKKOS_PYTHON_TUNING_TRAMPOLINES_HPP

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace kokkos_python::tuning {

void tr_declare_output_type(const char *arg_name, const size_t arg_id,
                            Kokkos::Tools::Experimental::VariableInfo *arg_info) noexcept;
void tr_declare_input_type(const char *arg_name, const size_t arg_id,
                           Kokkos::Tools::Experimental::VariableInfo *arg_info) noexcept;
void tr_request_output_values(const size_t arg_context, const size_t arg_n_inputs,
                              const Kokkos::Tools::Experimental::VariableValue *arg_inputs, const size_t arg_n_outputs,
                              Kokkos::Tools::Experimental::VariableValue *arg_outputs) noexcept;
void tr_begin_context(const size_t arg_context) noexcept;
void tr_end_context(const size_t arg_context, Kokkos::Tools::Experimental::VariableValue arg_value) noexcept;
void tr_declare_optimization_goal(const size_t arg_context,
                                  const Kokkos::Tools::Experimental::OptimizationGoal arg_goal) noexcept;

}  // namespace kokkos_python::tuning

#endif  // KOKKOS_PYTHON_TUNING_TRAMPOLINES_HPP
