// tools_bridge.cpp: Kokkos Tools for the core (implements tools_bridge.h).
//
// Kokkos keeps one process-wide table of C callbacks (EventSet) and calls
// them from whichever thread raises the event. For each event this file
// has one trampoline with Kokkos' exact signature; it copies Kokkos' structs
// into the bridge's C structs and forwards to the core's handler for that
// event's shape. Setting a callback installs the trampoline; removing it
// stores nullptr. The profiling calls (regions, sections, events,
// metadata) are thin noexcept wrappers over Kokkos::Tools.
//
// Version differences are compat.hpp's: 3.4 has no
// set_request_tool_settings_callback /
// set_provide_tool_programming_interface_callback
// (KP_COMPAT_TOOL_SETTINGS_SETTERS), but its EventSet has both fields, so
// they are set through get_callbacks / set_callbacks.
//
// The tuning events' trampolines live in tuning_bridge.cpp; their rows sit
// at the end of this file's table.

#include "compat.hpp"
#include "guard.hpp"
#include "tools_bridge.h"
#include "tuning_trampolines.hpp"

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#if defined(__has_include)
#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#define KOKKOS_PYTHON_HAVE_DLADDR 1
#endif
#endif

namespace kokkos_python::tools {
namespace {

namespace KTE = Kokkos::Tools::Experimental;

// ---- layouts ------------------------------------------------------------------

static_assert(sizeof(kp_tools_space_handle) == sizeof(Kokkos_Profiling_SpaceHandle),
              "kp_tools_space_handle must have the layout of Kokkos' SpaceHandle");
static_assert(sizeof(((Kokkos_Profiling_SpaceHandle *)nullptr)->name) == KP_TOOLS_SPACE_NAME_SIZE,
              "Kokkos' SpaceHandle name size changed");
static_assert(sizeof(kp_tools_device_info) == sizeof(Kokkos_Profiling_KokkosPDeviceInfo),
              "kp_tools_device_info must have the layout of Kokkos' KokkosPDeviceInfo");

// ---- errors -------------------------------------------------------------------

using kokkos_python::impl::fail;

template <class F>
kp_status guarded(kp_error *arg_err, F &&arg_f) noexcept {
  return kokkos_python::impl::guarded_call(arg_err, "Kokkos Tools raised an unknown C++ exception", arg_f);
}

// Profiling calls may fence (a tool can require global fencing), which is
// not allowed once Kokkos is finalized.
kp_status require_not_finalized(kp_error *arg_err) noexcept {
  if (kp_bridge_is_finalized()) return fail(arg_err, KP_E_STATE, "Kokkos has been finalized");
  return KP_OK;
}

// A profiling call: refused after Kokkos finalized, guarded like every
// bridge call; arg_f does the call and cannot fail otherwise.
template <class F>
kp_status profiling_call(kp_error *arg_err, F &&arg_f) noexcept {
  return guarded(arg_err, [&]() -> kp_status {
    if (auto s = require_not_finalized(arg_err)) return s;
    arg_f();
    return KP_OK;
  });
}

// ---- state --------------------------------------------------------------------

kp_tools_handlers g_handlers{};
std::atomic<bool> g_paused{false};
std::atomic<KTE::toolInvokedFenceFunction> g_tool_fence{nullptr};

kp_tools_space_handle copy_handle(const Kokkos_Profiling_SpaceHandle &arg_h) noexcept {
  kp_tools_space_handle h;
  std::memcpy(h.name, arg_h.name, sizeof(h.name));
  h.name[sizeof(h.name) - 1] = '\0';
  return h;
}

// ---- trampolines (Kokkos' signatures) ---------------------------------------

void tr_init(const int arg_seq, const uint64_t arg_version, const uint32_t arg_count,
             Kokkos_Profiling_KokkosPDeviceInfo *arg_info) noexcept {
  if (!g_handlers.init) return;
  kp_tools_device_info first{0};
  if (arg_info && arg_count > 0) first.device_id = arg_info->deviceID;
  g_handlers.init(arg_seq, arg_version, arg_count, (arg_info && arg_count > 0) ? &first : nullptr);
}

template <int E>
void tr_plain() noexcept {
  if (g_handlers.plain) g_handlers.plain(E);
}

void tr_parse_args(int arg_argc, char **arg_argv) noexcept {
  if (g_handlers.parse_args) g_handlers.parse_args(arg_argc, arg_argv);
}

void tr_print_help(char *arg_program) noexcept {
  if (g_handlers.print_help) g_handlers.print_help(arg_program);
}

template <int E>
void tr_begin(const char *arg_name, const uint32_t arg_dev, uint64_t *arg_id) noexcept {
  if (g_handlers.begin) g_handlers.begin(E, arg_name, arg_dev, arg_id);
}

template <int E>
void tr_end(uint64_t arg_id) noexcept {
  if (g_handlers.end) g_handlers.end(E, arg_id);
}

template <int E>
void tr_named(const char *arg_name) noexcept {
  if (g_handlers.named) g_handlers.named(E, arg_name);
}

template <int E>
void tr_data(const Kokkos_Profiling_SpaceHandle arg_space, const char *arg_label, const void *arg_ptr,
             const uint64_t arg_size) noexcept {
  if (!g_handlers.data) return;
  kp_tools_space_handle h = copy_handle(arg_space);
  g_handlers.data(E, &h, arg_label, arg_ptr, arg_size);
}

void tr_create_section(const char *arg_name, uint32_t *arg_id) noexcept {
  if (g_handlers.create_section) g_handlers.create_section(arg_name, arg_id);
}

template <int E>
void tr_section(const uint32_t arg_id) noexcept {
  if (g_handlers.section) g_handlers.section(E, arg_id);
}

void tr_deep_copy(Kokkos_Profiling_SpaceHandle arg_dst_space, const char *arg_dst_label, const void *arg_dst,
                  Kokkos_Profiling_SpaceHandle arg_src_space, const char *arg_src_label, const void *arg_src,
                  uint64_t arg_size) noexcept {
  if (!g_handlers.deep_copy) return;
  kp_tools_space_handle d = copy_handle(arg_dst_space);
  kp_tools_space_handle s = copy_handle(arg_src_space);
  g_handlers.deep_copy(&d, arg_dst_label, arg_dst, &s, arg_src_label, arg_src, arg_size);
}

template <int E>
void tr_dual_view(const char *arg_label, const void *const arg_ptr, bool arg_flag) noexcept {
  if (g_handlers.dual_view) g_handlers.dual_view(E, arg_label, arg_ptr, arg_flag ? 1 : 0);
}

void tr_metadata(const char *arg_key, const char *arg_value) noexcept {
  if (g_handlers.metadata) g_handlers.metadata(arg_key, arg_value);
}

void tr_tool_settings(const uint32_t arg_count, Kokkos_Tools_ToolSettings *arg_settings) noexcept {
  if (!g_handlers.tool_settings || !arg_settings) return;
  kp_tools_settings s{arg_settings->requires_global_fencing ? 1 : 0};
  g_handlers.tool_settings(arg_count, &s);
  arg_settings->requires_global_fencing = s.requires_global_fencing != 0;
}

void tr_programming_interface(const uint32_t arg_count, Kokkos_Tools_ToolProgrammingInterface arg_actions) noexcept {
  g_tool_fence.store(arg_actions.fence);
  if (g_handlers.programming_interface) g_handlers.programming_interface(arg_count);
}

// ---- the event table ------------------------------------------------------------

// For EventSet fields Kokkos has no setter for (3.4: the tool settings and
// the programming interface), write the field through get/set_callbacks.
template <class Member, class Fn>
void set_field(Member arg_member, Fn arg_fn) {
  KTE::EventSet events = KTE::get_callbacks();
  events.*arg_member = arg_fn;
  KTE::set_callbacks(events);
}

template <class Fn>
void *as_address(Fn arg_fn) noexcept {
  return reinterpret_cast<void *>(arg_fn);
}

struct event_row {
  // Installs the trampoline (true) or clears the slot (false).
  void (*set)(bool);
  // Kokkos' slot and the trampoline, for comparison.
  void *(*current)(const KTE::EventSet &);
  void *trampoline;
};

#define KOKKOS_PYTHON_EVENT(SETTER, FIELD, TRAMPOLINE)                                              \
  event_row {                                                                                       \
    [](bool arg_on) { KTE::SETTER(arg_on ? TRAMPOLINE : nullptr); },                                \
        [](const KTE::EventSet &arg_e) { return as_address(arg_e.FIELD); }, as_address(&TRAMPOLINE) \
  }

#define KOKKOS_PYTHON_EVENT_FIELD(FIELD, TYPE, TRAMPOLINE)                                            \
  event_row {                                                                                         \
    [](bool arg_on) { set_field(&KTE::EventSet::FIELD, arg_on ? TYPE(TRAMPOLINE) : TYPE(nullptr)); }, \
        [](const KTE::EventSet &arg_e) { return as_address(arg_e.FIELD); }, as_address(&TRAMPOLINE)   \
  }

const event_row g_events[KP_TOOLS_EVENT_COUNT] = {
    KOKKOS_PYTHON_EVENT(set_init_callback, init, tr_init),
    KOKKOS_PYTHON_EVENT(set_finalize_callback, finalize, tr_plain<KP_TOOLS_FINALIZE>),
    KOKKOS_PYTHON_EVENT(set_parse_args_callback, parse_args, tr_parse_args),
    KOKKOS_PYTHON_EVENT(set_print_help_callback, print_help, tr_print_help),
    KOKKOS_PYTHON_EVENT(set_begin_parallel_for_callback, begin_parallel_for, tr_begin<KP_TOOLS_BEGIN_PARALLEL_FOR>),
    KOKKOS_PYTHON_EVENT(set_end_parallel_for_callback, end_parallel_for, tr_end<KP_TOOLS_END_PARALLEL_FOR>),
    KOKKOS_PYTHON_EVENT(set_begin_parallel_reduce_callback, begin_parallel_reduce,
                        tr_begin<KP_TOOLS_BEGIN_PARALLEL_REDUCE>),
    KOKKOS_PYTHON_EVENT(set_end_parallel_reduce_callback, end_parallel_reduce, tr_end<KP_TOOLS_END_PARALLEL_REDUCE>),
    KOKKOS_PYTHON_EVENT(set_begin_parallel_scan_callback, begin_parallel_scan, tr_begin<KP_TOOLS_BEGIN_PARALLEL_SCAN>),
    KOKKOS_PYTHON_EVENT(set_end_parallel_scan_callback, end_parallel_scan, tr_end<KP_TOOLS_END_PARALLEL_SCAN>),
    KOKKOS_PYTHON_EVENT(set_push_region_callback, push_region, tr_named<KP_TOOLS_PUSH_REGION>),
    KOKKOS_PYTHON_EVENT(set_pop_region_callback, pop_region, tr_plain<KP_TOOLS_POP_REGION>),
    KOKKOS_PYTHON_EVENT(set_allocate_data_callback, allocate_data, tr_data<KP_TOOLS_ALLOCATE_DATA>),
    KOKKOS_PYTHON_EVENT(set_deallocate_data_callback, deallocate_data, tr_data<KP_TOOLS_DEALLOCATE_DATA>),
    KOKKOS_PYTHON_EVENT(set_create_profile_section_callback, create_profile_section, tr_create_section),
    KOKKOS_PYTHON_EVENT(set_start_profile_section_callback, start_profile_section,
                        tr_section<KP_TOOLS_START_PROFILE_SECTION>),
    KOKKOS_PYTHON_EVENT(set_stop_profile_section_callback, stop_profile_section,
                        tr_section<KP_TOOLS_STOP_PROFILE_SECTION>),
    KOKKOS_PYTHON_EVENT(set_destroy_profile_section_callback, destroy_profile_section,
                        tr_section<KP_TOOLS_DESTROY_PROFILE_SECTION>),
    KOKKOS_PYTHON_EVENT(set_profile_event_callback, profile_event, tr_named<KP_TOOLS_PROFILE_EVENT>),
    KOKKOS_PYTHON_EVENT(set_begin_deep_copy_callback, begin_deep_copy, tr_deep_copy),
    KOKKOS_PYTHON_EVENT(set_end_deep_copy_callback, end_deep_copy, tr_plain<KP_TOOLS_END_DEEP_COPY>),
    KOKKOS_PYTHON_EVENT(set_begin_fence_callback, begin_fence, tr_begin<KP_TOOLS_BEGIN_FENCE>),
    KOKKOS_PYTHON_EVENT(set_end_fence_callback, end_fence, tr_end<KP_TOOLS_END_FENCE>),
    KOKKOS_PYTHON_EVENT(set_dual_view_sync_callback, sync_dual_view, tr_dual_view<KP_TOOLS_DUAL_VIEW_SYNC>),
    KOKKOS_PYTHON_EVENT(set_dual_view_modify_callback, modify_dual_view, tr_dual_view<KP_TOOLS_DUAL_VIEW_MODIFY>),
    KOKKOS_PYTHON_EVENT(set_declare_metadata_callback, declare_metadata, tr_metadata),
#if defined(KP_COMPAT_TOOL_SETTINGS_SETTERS)
    KOKKOS_PYTHON_EVENT(set_request_tool_settings_callback, request_tool_settings, tr_tool_settings),
    KOKKOS_PYTHON_EVENT(set_provide_tool_programming_interface_callback, provide_tool_programming_interface,
                        tr_programming_interface),
#else
    KOKKOS_PYTHON_EVENT_FIELD(request_tool_settings, KTE::requestToolSettingsFunction, tr_tool_settings),
    KOKKOS_PYTHON_EVENT_FIELD(provide_tool_programming_interface, KTE::provideToolProgrammingInterfaceFunction,
                              tr_programming_interface),
#endif
    // tuning: the trampolines are in tuning_bridge.cpp
    KOKKOS_PYTHON_EVENT(set_declare_output_type_callback, declare_output_type,
                        kokkos_python::tuning::tr_declare_output_type),
    KOKKOS_PYTHON_EVENT(set_declare_input_type_callback, declare_input_type,
                        kokkos_python::tuning::tr_declare_input_type),
    KOKKOS_PYTHON_EVENT(set_request_output_values_callback, request_output_values,
                        kokkos_python::tuning::tr_request_output_values),
    KOKKOS_PYTHON_EVENT(set_begin_context_callback, begin_tuning_context, kokkos_python::tuning::tr_begin_context),
    KOKKOS_PYTHON_EVENT(set_end_context_callback, end_tuning_context, kokkos_python::tuning::tr_end_context),
    KOKKOS_PYTHON_EVENT(set_declare_optimization_goal_callback, declare_optimization_goal,
                        kokkos_python::tuning::tr_declare_optimization_goal),
};

#undef KOKKOS_PYTHON_EVENT
#undef KOKKOS_PYTHON_EVENT_FIELD

bool valid_event(int arg_event) noexcept { return arg_event >= 0 && arg_event < KP_TOOLS_EVENT_COUNT; }

}  // namespace
}  // namespace kokkos_python::tools

using namespace kokkos_python::tools;

// ---- callbacks ------------------------------------------------------------------

extern "C" void kp_tools_bridge_set_handlers(const kp_tools_handlers *handlers) noexcept {
  if (handlers) g_handlers = *handlers;
}

extern "C" int kp_tools_bridge_event_available(int event) noexcept { return valid_event(event) ? 1 : 0; }

extern "C" kp_status kp_tools_bridge_set_callback(int event, int enable, kp_error *err) noexcept {
  if (!valid_event(event)) return fail(err, KP_E_ARG, "unknown Kokkos Tools event");
  return guarded(err, [&]() -> kp_status {
    g_events[event].set(enable != 0);
    return KP_OK;
  });
}

extern "C" void kp_tools_bridge_slot(int event, kp_tools_slot_info *out) noexcept {
  if (!out) return;
  std::memset(out, 0, sizeof(*out));
  if (!valid_event(event)) return;
  const KTE::EventSet events = KTE::get_callbacks();
  void *fn = g_events[event].current(events);
  if (!fn) {
    out->slot = KP_TOOLS_SLOT_EMPTY;
    return;
  }
  if (fn == g_events[event].trampoline) {
    out->slot = KP_TOOLS_SLOT_OURS;
    return;
  }
  out->slot = KP_TOOLS_SLOT_NATIVE;
  out->address = reinterpret_cast<uintptr_t>(fn);
#if defined(KOKKOS_PYTHON_HAVE_DLADDR)
  Dl_info info;
  if (dladdr(fn, &info) != 0) {
    if (info.dli_fname) std::snprintf(out->library, sizeof(out->library), "%s", info.dli_fname);
    if (info.dli_sname && info.dli_saddr == fn) std::snprintf(out->symbol, sizeof(out->symbol), "%s", info.dli_sname);
  }
#endif
}

extern "C" int kp_tools_bridge_profile_library_loaded(void) noexcept {
  return Kokkos::Tools::profileLibraryLoaded() ? 1 : 0;
}

// ---- profiling calls -------------------------------------------------------------

extern "C" kp_status kp_tools_bridge_push_region(const char *name, kp_error *err) noexcept {
  return profiling_call(err, [&] { Kokkos::Tools::pushRegion(std::string(name ? name : "")); });
}

extern "C" kp_status kp_tools_bridge_pop_region(kp_error *err) noexcept {
  return profiling_call(err, [&] { Kokkos::Tools::popRegion(); });
}

extern "C" kp_status kp_tools_bridge_create_profile_section(const char *name, uint32_t *out_id,
                                                            kp_error *err) noexcept {
  return profiling_call(err, [&] {
    uint32_t id = 0;
    Kokkos::Tools::createProfileSection(std::string(name ? name : ""), &id);
    if (out_id) *out_id = id;
  });
}

extern "C" kp_status kp_tools_bridge_destroy_profile_section(uint32_t id, kp_error *err) noexcept {
  return profiling_call(err, [&] { Kokkos::Tools::destroyProfileSection(id); });
}

extern "C" kp_status kp_tools_bridge_start_section(uint32_t id, kp_error *err) noexcept {
  return profiling_call(err, [&] { Kokkos::Tools::startSection(id); });
}

extern "C" kp_status kp_tools_bridge_stop_section(uint32_t id, kp_error *err) noexcept {
  return profiling_call(err, [&] { Kokkos::Tools::stopSection(id); });
}

extern "C" kp_status kp_tools_bridge_mark_event(const char *name, kp_error *err) noexcept {
  return profiling_call(err, [&] { Kokkos::Tools::markEvent(std::string(name ? name : "")); });
}

extern "C" kp_status kp_tools_bridge_declare_metadata(const char *key, const char *value, kp_error *err) noexcept {
  return profiling_call(
      err, [&] { Kokkos::Tools::declareMetadata(std::string(key ? key : ""), std::string(value ? value : "")); });
}

extern "C" kp_status kp_tools_bridge_pause(kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (g_paused.exchange(true)) return KP_OK;
    KTE::pause_tools();
    return KP_OK;
  });
}

extern "C" kp_status kp_tools_bridge_resume(kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (!g_paused.exchange(false)) return KP_OK;
    KTE::resume_tools();
    return KP_OK;
  });
}

extern "C" int kp_tools_bridge_paused(void) noexcept { return g_paused.load() ? 1 : 0; }

extern "C" void kp_tools_bridge_make_space_handle(const char *name, kp_tools_space_handle *out) noexcept {
  if (!out) return;
  std::memset(out->name, 0, sizeof(out->name));
  if (!name) return;
  const Kokkos_Profiling_SpaceHandle h = Kokkos::Tools::make_space_handle(name);
  *out = copy_handle(h);
}

extern "C" kp_status kp_tools_bridge_tool_fence(uint32_t device_id, kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (!Kokkos::is_initialized())
      return fail(err, KP_E_STATE,
                  kp_bridge_is_finalized() ? "Kokkos has been finalized" : "Kokkos is not initialized");
    auto fence = g_tool_fence.load();
    if (!fence) return fail(err, KP_E_UNAVAILABLE, "Kokkos has not provided its tool programming interface");
    fence(device_id);
    return KP_OK;
  });
}

extern "C" uint64_t kp_tools_bridge_interface_version(void) noexcept {
  return static_cast<uint64_t>(KOKKOSP_INTERFACE_VERSION);
}

// ---- the original package's internal self-test ------------------------------

namespace {
using internal_view = Kokkos::View<int32_t *, Kokkos::HostSpace>;
internal_view *g_internal_source = nullptr;
internal_view *g_internal_target = nullptr;

struct internal_fill {
  internal_view m_view;
  void operator()(const int i) const { m_view(i) = i; }
};
struct internal_sum {
  internal_view m_view;
  void operator()(const int i, int64_t &sum) const { sum += m_view(i); }
};
struct internal_scan {
  internal_view m_view;
  void operator()(const int i, int64_t &partial, const bool final) const {
    partial += m_view(i);
    if (final) m_view(i) = static_cast<int32_t>(partial);
  }
};
}  // namespace

extern "C" kp_status kp_tools_bridge_internal_setup(kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (!Kokkos::is_initialized()) return fail(err, KP_E_STATE, "Kokkos is not initialized");
    delete g_internal_source;
    delete g_internal_target;
    g_internal_source = new internal_view("cxx_source", 10);
    g_internal_target = new internal_view("cxx_target", 10);
    return KP_OK;
  });
}

extern "C" kp_status kp_tools_bridge_internal_test(kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (!Kokkos::is_initialized()) return fail(err, KP_E_STATE, "Kokkos is not initialized");
    if (!g_internal_source || !g_internal_target)
      return fail(err, KP_E_STATE, "call kokkos.tools._internal.setup() first");
    using policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;
    Kokkos::parallel_for("cxx_parallel_for", policy(0, 10), internal_fill{*g_internal_source});
    int64_t sum = 0;
    Kokkos::parallel_reduce("cxx_parallel_reduce", policy(0, 10), internal_sum{*g_internal_source}, sum);
    Kokkos::parallel_scan("cxx_parallel_scan", policy(0, 10), internal_scan{*g_internal_source});
    uint32_t section = 0;
    Kokkos::Tools::createProfileSection("cxx_created_section", &section);
    Kokkos::Tools::startSection(section);
    Kokkos::Tools::stopSection(section);
    Kokkos::Tools::destroyProfileSection(section);
    Kokkos::deep_copy(*g_internal_target, *g_internal_source);
    Kokkos::Tools::pushRegion("cxx_push_region");
    Kokkos::Tools::popRegion();
    delete g_internal_source;
    delete g_internal_target;
    g_internal_source = g_internal_target = nullptr;
    return sum == 45 ? KP_OK : fail(err, KP_E_KOKKOS, "the internal parallel_reduce gave a wrong sum");
  });
}
