// tuning_bridge.cpp: the Kokkos Tools tuning interface for the core
// (implements tuning_bridge.h and the trampolines of tuning_trampolines.hpp).
//
// Trampolines: Kokkos calls them with its structs; they copy each into the
// bridge's C structs, forward to the core's handler and, for
// request_output_values, copy the chosen values back into Kokkos' array.
//
// Calls from Python: Kokkos' declare_*_type, request_output_values,
// end_context and declare_optimization_goal call no callback unless Kokkos
// was built with KOKKOS_ENABLE_TUNING (3.4 to 4.6 default to off). Built
// with it, these wrappers call Kokkos; built without it, they call the
// callback in Kokkos' table themselves with the arguments Kokkos would pass
// (variable ids still come from Kokkos' counter), so whichever tuner is set
// sees the same thing on either build.
//
// The registry keeps a copy of every declared variable's description,
// candidates included, for the life of the process: Kokkos keeps the
// candidate pointers it is given, and a Kokkos without tuning gives no
// metadata, so the bridge supplies it.

#include "guard.hpp"
#include "tuning_bridge.h"
#include "tuning_trampolines.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace kokkos_python::tuning {
namespace {

namespace KTE = Kokkos::Tools::Experimental;

// ---- layouts ------------------------------------------------------------------

static_assert(KOKKOS_TOOLS_TUNING_STRING_LENGTH == KP_TUNING_STRING_SIZE, "Kokkos' tuning string length changed");
static_assert(sizeof(KTE::TuningString) == KP_TUNING_STRING_SIZE, "Kokkos' TuningString changed");
// The enums' numbers are Kokkos' (compared as ints: they are distinct types).
constexpr bool same(int arg_kokkos, int arg_ours) { return arg_kokkos == arg_ours; }
static_assert(same(kokkos_value_double, KP_TUNING_DOUBLE) && same(kokkos_value_int64, KP_TUNING_INT64) &&
                  same(kokkos_value_string, KP_TUNING_STRING),
              "Kokkos' ValueType numbers changed");
static_assert(same(kokkos_value_categorical, KP_TUNING_CATEGORICAL) && same(kokkos_value_ordinal, KP_TUNING_ORDINAL) &&
                  same(kokkos_value_interval, KP_TUNING_INTERVAL) && same(kokkos_value_ratio, KP_TUNING_RATIO),
              "Kokkos' StatisticalCategory numbers changed");
static_assert(same(kokkos_value_set, KP_TUNING_SET) && same(kokkos_value_range, KP_TUNING_RANGE) &&
                  same(kokkos_value_unbounded, KP_TUNING_UNBOUNDED),
              "Kokkos' CandidateValueType numbers changed");
static_assert(same(Kokkos_Tools_Minimize, KP_TUNING_MINIMIZE) && same(Kokkos_Tools_Maximize, KP_TUNING_MAXIMIZE),
              "Kokkos' OptimizationType numbers changed");

#if defined(KOKKOS_ENABLE_TUNING)
constexpr bool kokkos_tunes = true;
#else
constexpr bool kokkos_tunes = false;
#endif

// ---- errors -------------------------------------------------------------------

using kokkos_python::impl::fail;

template <class F>
kp_status guarded(kp_error *arg_err, F &&arg_f) noexcept {
  return kokkos_python::impl::guarded_call(arg_err, "Kokkos Tools raised an unknown C++ exception", arg_f);
}

// ---- values -------------------------------------------------------------------

void copy_string(char *arg_dst, const char *arg_src) noexcept {
  std::memcpy(arg_dst, arg_src, KP_TUNING_STRING_SIZE);
  arg_dst[KP_TUNING_STRING_SIZE - 1] = '\0';
}

// Copies the member of type arg_type (all bytes when the type is unknown).
void copy_value(kp_tuning_value &arg_dst, const Kokkos_Tools_VariableValue_ValueUnion &arg_src, int arg_type) noexcept {
  static_assert(sizeof(kp_tuning_value) == sizeof(Kokkos_Tools_VariableValue_ValueUnion),
                "the value unions must have one size");
  if (arg_type == KP_TUNING_STRING)
    copy_string(arg_dst.string_value, arg_src.string_value);
  else
    std::memcpy(&arg_dst, &arg_src, sizeof(arg_dst));
}

void copy_value(Kokkos_Tools_VariableValue_ValueUnion &arg_dst, const kp_tuning_value &arg_src, int arg_type) noexcept {
  if (arg_type == KP_TUNING_STRING)
    copy_string(arg_dst.string_value, arg_src.string_value);
  else
    std::memcpy(&arg_dst, &arg_src, sizeof(arg_dst));
}

// ---- the registry of declared variables ----------------------------------------------

// One declared variable: Kokkos' description and the bridge's, over arrays
// this object owns.
struct declared {
  KTE::VariableInfo m_kokkos{};
  kp_tuning_info m_info{};
  std::vector<int64_t> m_ints;
  std::vector<double> m_doubles;
  std::vector<std::array<char, KP_TUNING_STRING_SIZE>> m_strings;

  explicit declared(const kp_tuning_info &arg_info) {
    m_info = arg_info;
    m_info.set_values = nullptr;
    m_kokkos.type = static_cast<KTE::ValueType>(arg_info.type);
    m_kokkos.category = static_cast<KTE::StatisticalCategory>(arg_info.category);
    m_kokkos.valueQuantity = static_cast<KTE::CandidateValueType>(arg_info.quantity);
    m_kokkos.toolProvidedInfo = nullptr;
    if (arg_info.quantity == KP_TUNING_SET) {
      const size_t n = arg_info.set_values ? arg_info.set_size : 0;
      m_info.set_size = n;
      m_kokkos.candidates.set.size = n;
      if (arg_info.type == KP_TUNING_INT64) {
        const auto *v = static_cast<const int64_t *>(arg_info.set_values);
        m_ints.assign(v, v + n);
        m_info.set_values = m_ints.data();
        m_kokkos.candidates.set.values.int_value = m_ints.data();
      } else if (arg_info.type == KP_TUNING_DOUBLE) {
        const auto *v = static_cast<const double *>(arg_info.set_values);
        m_doubles.assign(v, v + n);
        m_info.set_values = m_doubles.data();
        m_kokkos.candidates.set.values.double_value = m_doubles.data();
      } else {
        const auto *v = static_cast<const char(*)[KP_TUNING_STRING_SIZE]>(arg_info.set_values);
        m_strings.resize(n);
        for (size_t i = 0; i < n; ++i) copy_string(m_strings[i].data(), v[i]);
        m_info.set_values = m_strings.data();
        m_kokkos.candidates.set.values.string_value = reinterpret_cast<KTE::TuningString *>(m_strings.data());
      }
    } else if (arg_info.quantity == KP_TUNING_RANGE) {
      auto &r = m_kokkos.candidates.range;
      copy_value(r.lower, arg_info.lower, arg_info.type);
      copy_value(r.upper, arg_info.upper, arg_info.type);
      copy_value(r.step, arg_info.step, arg_info.type);
      r.openLower = arg_info.open_lower != 0;
      r.openUpper = arg_info.open_upper != 0;
    }
  }
};

// The bridge's view of Kokkos' description (no copy: the candidates stay
// Kokkos', valid while arg_k is).
kp_tuning_info view_of(const KTE::VariableInfo &arg_k) noexcept {
  kp_tuning_info info{};
  info.type = static_cast<int>(arg_k.type);
  info.category = static_cast<int>(arg_k.category);
  info.quantity = static_cast<int>(arg_k.valueQuantity);
  if (info.quantity == KP_TUNING_SET) {
    info.set_size = arg_k.candidates.set.size;
    if (info.type == KP_TUNING_INT64)
      info.set_values = arg_k.candidates.set.values.int_value;
    else if (info.type == KP_TUNING_DOUBLE)
      info.set_values = arg_k.candidates.set.values.double_value;
    else
      info.set_values = arg_k.candidates.set.values.string_value;
    if (!info.set_values) info.set_size = 0;
  } else if (info.quantity == KP_TUNING_RANGE) {
    copy_value(info.lower, arg_k.candidates.range.lower, info.type);
    copy_value(info.upper, arg_k.candidates.range.upper, info.type);
    copy_value(info.step, arg_k.candidates.range.step, info.type);
    info.open_lower = arg_k.candidates.range.openLower ? 1 : 0;
    info.open_upper = arg_k.candidates.range.openUpper ? 1 : 0;
  }
  return info;
}

bool valid_info(const kp_tuning_info &arg_info) noexcept {
  return arg_info.type >= 0 && arg_info.type < KP_TUNING_TYPE_COUNT && arg_info.category >= 0 &&
         arg_info.category < KP_TUNING_CATEGORY_COUNT && arg_info.quantity >= 0 &&
         arg_info.quantity < KP_TUNING_QUANTITY_COUNT;
}

struct registry {
  std::mutex m_mutex;
  std::unordered_map<size_t, std::unique_ptr<declared>> m_declared;
  // Without Kokkos' tuning: each context's goal variable and the last
  // input value of each variable (what Kokkos hands end_context).
  std::unordered_map<size_t, size_t> m_goals;
  std::unordered_map<size_t, KTE::VariableValue> m_last_inputs;
};

registry &the_registry() {
  static registry *r = new registry;  // never destroyed: trampolines may run at exit
  return *r;
}

// The registry's entry for id, or null. Entries are never removed, so the
// pointer stays valid.
declared *lookup(size_t arg_id) {
  registry &r = the_registry();
  std::lock_guard<std::mutex> lock(r.m_mutex);
  auto it = r.m_declared.find(arg_id);
  return it == r.m_declared.end() ? nullptr : it->second.get();
}

// Records a description seen in a declare callback, unless one is there.
void remember(size_t arg_id, const kp_tuning_info &arg_info) {
  registry &r = the_registry();
  std::lock_guard<std::mutex> lock(r.m_mutex);
  if (r.m_declared.count(arg_id)) return;
  r.m_declared.emplace(arg_id, std::make_unique<declared>(arg_info));
}

// ---- state --------------------------------------------------------------------

kp_tuning_handlers g_handlers{};

// The bridge's view of a Kokkos value; type from its metadata or the
// registry. info_storage holds the converted metadata.
kp_tuning_variable variable_of(const KTE::VariableValue &arg_v, kp_tuning_info &arg_info_storage) {
  kp_tuning_variable out{};
  out.type_id = arg_v.type_id;
  out.type = -1;
  out.info = nullptr;
  if (arg_v.metadata) {
    arg_info_storage = view_of(*arg_v.metadata);
    if (valid_info(arg_info_storage)) {
      out.type = arg_info_storage.type;
      out.info = &arg_info_storage;
    }
  } else if (declared *d = lookup(arg_v.type_id)) {
    out.type = d->m_info.type;
    out.info = &d->m_info;
  }
  copy_value(out.value, arg_v.value, out.type);
  return out;
}

void declare_type(int arg_output, const char *arg_name, size_t arg_id, KTE::VariableInfo *arg_info) noexcept {
  if (!arg_info) return;
  try {
    const kp_tuning_info info = view_of(*arg_info);
    if (!valid_info(info)) return;
    remember(arg_id, info);
    if (g_handlers.declare_type) g_handlers.declare_type(arg_output, arg_name ? arg_name : "", arg_id, &info);
  } catch (...) {
    // out of memory: the event is dropped, Kokkos goes on
  }
}

}  // namespace

// ---- trampolines (Kokkos' signatures) ---------------------------------------

void tr_declare_output_type(const char *arg_name, const size_t arg_id, KTE::VariableInfo *arg_info) noexcept {
  declare_type(1, arg_name, arg_id, arg_info);
}

void tr_declare_input_type(const char *arg_name, const size_t arg_id, KTE::VariableInfo *arg_info) noexcept {
  declare_type(0, arg_name, arg_id, arg_info);
}

void tr_request_output_values(const size_t arg_context, const size_t arg_n_inputs, const KTE::VariableValue *arg_inputs,
                              const size_t arg_n_outputs, KTE::VariableValue *arg_outputs) noexcept {
  if (!g_handlers.request_values) return;
  try {
    const size_t n_in = arg_inputs ? arg_n_inputs : 0;
    const size_t n_out = arg_outputs ? arg_n_outputs : 0;
    std::vector<kp_tuning_info> infos(n_in + n_out);
    std::vector<kp_tuning_variable> in(n_in), out(n_out);
    for (size_t i = 0; i < n_in; ++i) in[i] = variable_of(arg_inputs[i], infos[i]);
    for (size_t i = 0; i < n_out; ++i) out[i] = variable_of(arg_outputs[i], infos[n_in + i]);
    g_handlers.request_values(arg_context, n_in, in.data(), n_out, out.data());
    for (size_t i = 0; i < n_out; ++i) copy_value(arg_outputs[i].value, out[i].value, out[i].type);
  } catch (...) {
    // out of memory: Kokkos keeps its values
  }
}

void tr_begin_context(const size_t arg_context) noexcept {
  if (g_handlers.begin_context) g_handlers.begin_context(arg_context);
}

void tr_end_context(const size_t arg_context, KTE::VariableValue arg_value) noexcept {
  if (!g_handlers.end_context) return;
  try {
    kp_tuning_info info{};
    const kp_tuning_variable v = variable_of(arg_value, info);
    g_handlers.end_context(arg_context, &v);
  } catch (...) {
  }
}

void tr_declare_optimization_goal(const size_t arg_context, const KTE::OptimizationGoal arg_goal) noexcept {
  if (g_handlers.optimization_goal)
    g_handlers.optimization_goal(arg_context, arg_goal.type_id, static_cast<int>(arg_goal.goal));
}

}  // namespace kokkos_python::tuning

using namespace kokkos_python::tuning;

extern "C" void kp_tuning_bridge_set_handlers(const kp_tuning_handlers *handlers) noexcept {
  if (handlers) g_handlers = *handlers;
}

extern "C" int kp_tuning_bridge_kokkos_enable_tuning(void) noexcept { return kokkos_tunes ? 1 : 0; }

extern "C" size_t kp_tuning_bridge_new_context_id(void) noexcept { return KTE::get_new_context_id(); }
extern "C" size_t kp_tuning_bridge_current_context_id(void) noexcept { return KTE::get_current_context_id(); }
extern "C" size_t kp_tuning_bridge_new_variable_id(void) noexcept { return KTE::get_new_variable_id(); }

extern "C" int kp_tuning_bridge_have_tuning_tool(void) noexcept {
  return KTE::get_callbacks().request_output_values != nullptr ? 1 : 0;
}

extern "C" int kp_tuning_bridge_type_of(size_t id) noexcept {
  try {
    declared *d = lookup(id);
    return d ? d->m_info.type : -1;
  } catch (...) {
    return -1;
  }
}

extern "C" kp_status kp_tuning_bridge_declare_type(int output, const char *name, const kp_tuning_info *info,
                                                   size_t *out_id, kp_error *err) noexcept {
  if (!info || !valid_info(*info)) return fail(err, KP_E_ARG, "invalid variable description");
  return guarded(err, [&]() -> kp_status {
    const std::string label(name ? name : "");
    auto d = std::make_unique<declared>(*info);
    declared *entry = d.get();
    // Kokkos counts the id (and, with tuning, calls the callback and keeps
    // a copy of the description pointing at entry's candidates).
    const size_t id =
        output ? KTE::declare_output_type(label, entry->m_kokkos) : KTE::declare_input_type(label, entry->m_kokkos);
    {
      registry &r = the_registry();
      std::lock_guard<std::mutex> lock(r.m_mutex);
      r.m_declared.insert_or_assign(id, std::move(d));
    }
    if (!kokkos_tunes) {
      const KTE::EventSet events = KTE::get_callbacks();
      auto fn = output ? events.declare_output_type : events.declare_input_type;
      if (fn) {
        KTE::VariableInfo copy = entry->m_kokkos;  // what Kokkos passes: its own copy
        fn(label.c_str(), id, &copy);
      }
    }
    if (out_id) *out_id = id;
    return KP_OK;
  });
}

namespace {
// Kokkos values for the bridge's; metadata from the registry.
std::vector<KTE::VariableValue> to_kokkos(size_t arg_n, const kp_tuning_variable *arg_v) {
  std::vector<KTE::VariableValue> out(arg_n);
  for (size_t i = 0; i < arg_n; ++i) {
    std::memset(&out[i], 0, sizeof(out[i]));
    out[i].type_id = arg_v[i].type_id;
    declared *d = lookup(arg_v[i].type_id);
    const int type = d ? d->m_info.type : arg_v[i].type;
    copy_value(out[i].value, arg_v[i].value, type);
    out[i].metadata = d ? &d->m_kokkos : nullptr;
  }
  return out;
}
}  // namespace

extern "C" kp_status kp_tuning_bridge_request_output_values(size_t context_id, size_t n_inputs,
                                                            kp_tuning_variable *inputs, size_t n_outputs,
                                                            kp_tuning_variable *outputs, kp_error *err) noexcept {
  if ((n_inputs && !inputs) || (n_outputs && !outputs)) return fail(err, KP_E_ARG, "no values");
  return guarded(err, [&]() -> kp_status {
    std::vector<KTE::VariableValue> in = to_kokkos(n_inputs, inputs);
    std::vector<KTE::VariableValue> out = to_kokkos(n_outputs, outputs);
    if (kokkos_tunes) {
      KTE::set_input_values(context_id, in.size(), in.data());
      KTE::request_output_values(context_id, out.size(), out.data());
    } else {
      {
        registry &r = the_registry();
        std::lock_guard<std::mutex> lock(r.m_mutex);
        for (const auto &v : in) r.m_last_inputs[v.type_id] = v;
      }
      auto fn = KTE::get_callbacks().request_output_values;
      if (fn) fn(context_id, in.size(), in.data(), out.size(), out.data());
    }
    for (size_t i = 0; i < n_outputs; ++i) {
      declared *d = lookup(outputs[i].type_id);
      const int type = d ? d->m_info.type : outputs[i].type;
      copy_value(outputs[i].value, out[i].value, type);
    }
    return KP_OK;
  });
}

extern "C" kp_status kp_tuning_bridge_begin_context(size_t context_id, kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    KTE::begin_context(context_id);
    return KP_OK;
  });
}

extern "C" kp_status kp_tuning_bridge_end_context(size_t context_id, kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (kokkos_tunes) {
      KTE::end_context(context_id);
      return KP_OK;
    }
    KTE::VariableValue value;
    std::memset(&value, 0, sizeof(value));
    {
      registry &r = the_registry();
      std::lock_guard<std::mutex> lock(r.m_mutex);
      auto goal = r.m_goals.find(context_id);
      if (goal != r.m_goals.end()) {
        auto last = r.m_last_inputs.find(goal->second);
        if (last != r.m_last_inputs.end()) value = last->second;
        value.type_id = goal->second;
        r.m_goals.erase(goal);
      }
    }
    auto fn = KTE::get_callbacks().end_tuning_context;
    if (fn) fn(context_id, value);
    return KP_OK;
  });
}

extern "C" kp_status kp_tuning_bridge_declare_optimization_goal(size_t context_id, size_t type_id, int goal,
                                                                kp_error *err) noexcept {
  if (goal != KP_TUNING_MINIMIZE && goal != KP_TUNING_MAXIMIZE)
    return fail(err, KP_E_ARG, "goal must be Minimize (0) or Maximize (1)");
  return guarded(err, [&]() -> kp_status {
    KTE::OptimizationGoal g;
    g.type_id = type_id;
    g.goal = static_cast<decltype(g.goal)>(goal);
    if (kokkos_tunes) {
      KTE::declare_optimization_goal(context_id, g);
      return KP_OK;
    }
    {
      registry &r = the_registry();
      std::lock_guard<std::mutex> lock(r.m_mutex);
      r.m_goals[context_id] = type_id;
    }
    auto fn = KTE::get_callbacks().declare_optimization_goal;
    if (fn) fn(context_id, g);
    return KP_OK;
  });
}
