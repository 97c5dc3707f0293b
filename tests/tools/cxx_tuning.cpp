// cxx_tuning.cpp: C++ Kokkos code that asks a tuner for values, for
// tests/test_tools_tuning.py (built at test time against the Kokkos the
// kokkos package runs, called through ctypes).
//
// Two ways in:
// - kp_tuning_via_kokkos: Kokkos' own calls (declare_output_type,
//   set_input_values, request_output_values, ...). Kokkos built without
//   KOKKOS_ENABLE_TUNING turns all but begin_context into no-ops, so there
//   the value stays the default.
// - kp_tuning_via_event_set: the callbacks in Kokkos' table, called with
//   Kokkos' structs exactly as Kokkos built with tuning calls them; works
//   with any build, optionally from a new C++ thread.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

namespace KTE = Kokkos::Tools::Experimental;

namespace {
// A variable's description; candidates stay empty for unbounded ones.
KTE::VariableInfo make_info(Kokkos_Tools_VariableInfo_ValueType arg_type,
                            Kokkos_Tools_VariableInfo_StatisticalCategory arg_category,
                            Kokkos_Tools_VariableInfo_CandidateValueType arg_quantity,
                            KTE::SetOrRange arg_candidates = {}) {
  KTE::VariableInfo info{};
  info.type = arg_type;
  info.category = arg_category;
  info.valueQuantity = arg_quantity;
  info.candidates = arg_candidates;
  return info;
}
}  // namespace

extern "C" {

int kp_tuning_kokkos_enable_tuning() {
#if defined(KOKKOS_ENABLE_TUNING)
  return 1;
#else
  return 0;
#endif
}

// ids[0] output id, ids[1] input id, ids[2] context id.
int64_t kp_tuning_via_kokkos(int64_t problem_size, int64_t default_block, size_t *ids) {
  static int64_t blocks[] = {16, 32, 64, 128};
  KTE::VariableInfo out_info =
      make_info(kokkos_value_int64, kokkos_value_ordinal, kokkos_value_set, KTE::make_candidate_set(4, blocks));
  KTE::VariableInfo in_info = make_info(kokkos_value_int64, kokkos_value_interval, kokkos_value_unbounded);
  const size_t out_id = KTE::declare_output_type("cxx_kokkos_block_size", out_info);
  const size_t in_id = KTE::declare_input_type("cxx_kokkos_problem_size", in_info);
  const size_t ctx = KTE::get_new_context_id();
  KTE::begin_context(ctx);
  KTE::VariableValue in = KTE::make_variable_value(in_id, problem_size);
  KTE::set_input_values(ctx, 1, &in);
  KTE::VariableValue out = KTE::make_variable_value(out_id, default_block);
  KTE::request_output_values(ctx, 1, &out);
  KTE::end_context(ctx);
  ids[0] = out_id;
  ids[1] = in_id;
  ids[2] = ctx;
  return out.value.int_value;
}

namespace {
void event_set_body(int64_t problem_size, int64_t *block, double *ratio, char *algorithm, size_t *ids) {
  const KTE::EventSet ev = KTE::get_callbacks();
  static int64_t blocks[] = {16, 32, 64, 128};
  std::string algorithms[] = {"serial", "blocked", "tiled"};

  KTE::VariableInfo block_info =
      make_info(kokkos_value_int64, kokkos_value_ordinal, kokkos_value_set, KTE::make_candidate_set(4, blocks));
  KTE::VariableInfo ratio_info = make_info(kokkos_value_double, kokkos_value_ratio, kokkos_value_range,
                                           KTE::make_candidate_range(0.0, 1.0, 0.25, false, true));
  KTE::VariableInfo alg_info = make_info(kokkos_value_string, kokkos_value_categorical, kokkos_value_set,
                                         KTE::make_candidate_set(3, algorithms));  // Kokkos allocates the strings
  KTE::VariableInfo size_info = make_info(kokkos_value_int64, kokkos_value_interval, kokkos_value_unbounded);

  const size_t block_id = KTE::get_new_variable_id();
  const size_t ratio_id = KTE::get_new_variable_id();
  const size_t alg_id = KTE::get_new_variable_id();
  const size_t size_id = KTE::get_new_variable_id();
  if (ev.declare_output_type) {
    ev.declare_output_type("cxx_block_size", block_id, &block_info);
    ev.declare_output_type("cxx_ratio", ratio_id, &ratio_info);
    ev.declare_output_type("cxx_algorithm", alg_id, &alg_info);
  }
  if (ev.declare_input_type) ev.declare_input_type("cxx_problem_size", size_id, &size_info);

  const size_t ctx = KTE::get_new_context_id();
  if (ev.begin_tuning_context) ev.begin_tuning_context(ctx);
  KTE::VariableValue in = KTE::make_variable_value(size_id, problem_size);
  in.metadata = &size_info;
  KTE::VariableValue out[3] = {KTE::make_variable_value(block_id, int64_t(32)), KTE::make_variable_value(ratio_id, 0.5),
                               KTE::make_variable_value(alg_id, std::string("serial"))};
  out[0].metadata = &block_info;
  out[1].metadata = &ratio_info;
  out[2].metadata = &alg_info;
  if (ev.request_output_values) ev.request_output_values(ctx, 1, &in, 3, out);
  if (ev.end_tuning_context) ev.end_tuning_context(ctx, in);
  delete[] alg_info.candidates.set.values.string_value;

  *block = out[0].value.int_value;
  *ratio = out[1].value.double_value;
  std::memcpy(algorithm, out[2].value.string_value, KOKKOS_TOOLS_TUNING_STRING_LENGTH);
  algorithm[KOKKOS_TOOLS_TUNING_STRING_LENGTH - 1] = '\0';
  ids[0] = block_id;
  ids[1] = ratio_id;
  ids[2] = alg_id;
  ids[3] = size_id;
  ids[4] = ctx;
}
}  // namespace

// ids: block, ratio, algorithm, problem size, context. algorithm: 64 bytes.
int kp_tuning_via_event_set(int64_t problem_size, int64_t *block, double *ratio, char *algorithm, size_t *ids,
                            int threaded) {
  if (threaded) {
    std::thread t(event_set_body, problem_size, block, ratio, algorithm, ids);
    t.join();
  } else {
    event_set_body(problem_size, block, ratio, algorithm, ids);
  }
  return 0;
}

}  // extern "C"
