// host_register.cpp: host pages registered with the device runtime on
// demand, counted per range (see host_register.h). The ranges this package
// registered never overlap: a new span takes a reference on the ranges of
// ours it overlaps and registers only the gaps between them. A gap the
// runtime refuses as already registered (its owner pinned or registered part
// of it) is registered page by page, skipping the pages the runtime knows.

#include "host_register.h"
#include "device_runtime.hpp"
#include "guard.hpp"

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

// What one caller holds: the start of each range it took a reference on.
struct kp_host_registration {
  std::vector<std::uintptr_t> m_starts;
};

namespace kokkos_python::impl {
namespace {

#if defined(KOKKOS_PYTHON_DEVICE_RUNTIME)
using runtime = build_runtime;

// The runtime's message for arg_e, its sticky error cleared (reported here).
const char *message(runtime::error_type arg_e) noexcept {
  (void)runtime::last_error();
  return runtime::error_string(arg_e);
}

struct registered_range {
  size_t m_bytes;
  size_t m_holders;
};

std::mutex g_lock;
std::map<std::uintptr_t, registered_range> g_ranges;  // by start; never overlapping
size_t g_bytes = 0;

// With g_lock: drops one reference to the range at arg_start, unregistering
// it with the last.
void release_range(std::uintptr_t arg_start) noexcept {
  auto it = g_ranges.find(arg_start);
  if (it == g_ranges.end() || --it->second.m_holders > 0) return;
  if (runtime::host_unregister(reinterpret_cast<void *>(arg_start)) != runtime::success)
    (void)runtime::last_error();  // the runtime has shut down (the process is ending): nothing left to do
  g_bytes -= it->second.m_bytes;
  g_ranges.erase(it);
}

// With g_lock: registers [arg_lo, arg_hi) (whole pages, none of ours) for
// arg_out, which takes a reference on every range made.
runtime::error_type register_gap(std::uintptr_t arg_lo, std::uintptr_t arg_hi, size_t arg_page,
                                 kp_host_registration &arg_out) {
  auto add = [&](std::uintptr_t arg_start, size_t arg_bytes) {
    g_ranges.emplace(arg_start, registered_range{arg_bytes, 1});
    g_bytes += arg_bytes;
    arg_out.m_starts.push_back(arg_start);
  };
  auto e = runtime::host_register(reinterpret_cast<void *>(arg_lo), arg_hi - arg_lo);
  if (e == runtime::success) {
    add(arg_lo, arg_hi - arg_lo);
    return e;
  }
  if (e != runtime::already_registered) return e;
  (void)runtime::last_error();
  for (std::uintptr_t page = arg_lo; page < arg_hi; page += arg_page) {
    if (runtime_knows<runtime>(reinterpret_cast<void *>(page))) continue;
    e = runtime::host_register(reinterpret_cast<void *>(page), arg_page);
    if (e != runtime::success) return e;
    add(page, arg_page);
  }
  return runtime::success;
}
#endif

}  // namespace
}  // namespace kokkos_python::impl

using namespace kokkos_python::impl;

extern "C" kp_status kp_bridge_host_register(int arg_space, void *arg_ptr, size_t arg_bytes,
                                             kp_host_registration **arg_handle, void **arg_device_ptr,
                                             kp_error *arg_err) noexcept {
  *arg_handle = nullptr;
  *arg_device_ptr = arg_ptr;
  (void)arg_space;  // one device runtime per Kokkos build; registration is portable across its devices
#if defined(KOKKOS_PYTHON_DEVICE_RUNTIME)
  return guarded_call(arg_err, "registering host memory raised an unknown C++ exception", [&]() -> kp_status {
    if (arg_bytes == 0) return KP_OK;
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto start = reinterpret_cast<std::uintptr_t>(arg_ptr);
    const std::uintptr_t lo = start / page * page;
    const std::uintptr_t hi = (start + arg_bytes + page - 1) / page * page;
    std::lock_guard<std::mutex> hold(g_lock);
    // Ours that overlap [lo, hi): from the last range starting at or before lo.
    auto it = g_ranges.upper_bound(lo);
    if (it != g_ranges.begin()) {
      auto before = std::prev(it);
      if (before->first + before->second.m_bytes > lo) it = before;
    }
    if ((it == g_ranges.end() || it->first >= hi) && runtime_knows<runtime>(arg_ptr) &&
        runtime_knows<runtime>(reinterpret_cast<void *>(start + arg_bytes - 1)))
      return KP_OK;  // pinned, registered or managed by its owner: nothing to do
    auto out = std::make_unique<kp_host_registration>();
    std::uintptr_t cursor = lo;
    runtime::error_type e = runtime::success;
    for (; it != g_ranges.end() && it->first < hi; ++it) {
      if (it->first > cursor) e = register_gap(cursor, it->first, page, *out);
      if (e != runtime::success) break;
      ++it->second.m_holders;
      out->m_starts.push_back(it->first);
      cursor = it->first + it->second.m_bytes;
    }
    if (e == runtime::success && cursor < hi) e = register_gap(cursor, hi, page, *out);
    if (e != runtime::success) {
      const char *why = message(e);
      for (auto s : out->m_starts) release_range(s);
      return fail(arg_err, KP_E_KOKKOS, why);
    }
    void *device = nullptr;
    if (runtime::host_get_device_pointer(&device, arg_ptr) == runtime::success && device)
      *arg_device_ptr = device;
    else
      (void)runtime::last_error();  // registered without a mapping of its own: the host address is the device's
    *arg_handle = out->m_starts.empty() ? nullptr : out.release();
    return KP_OK;
  });
#else
  (void)arg_bytes;
  return fail(arg_err, KP_E_UNAVAILABLE, "this Kokkos has no device runtime to register host memory with");
#endif
}

extern "C" void kp_bridge_host_unregister(kp_host_registration *arg_handle) noexcept {
  if (!arg_handle) return;
#if defined(KOKKOS_PYTHON_DEVICE_RUNTIME)
  {
    std::lock_guard<std::mutex> hold(g_lock);
    for (auto s : arg_handle->m_starts) release_range(s);
  }
#endif
  delete arg_handle;
}

extern "C" size_t kp_bridge_host_registered_bytes(void) noexcept {
#if defined(KOKKOS_PYTHON_DEVICE_RUNTIME)
  std::lock_guard<std::mutex> hold(g_lock);
  return g_bytes;
#else
  return 0;
#endif
}
