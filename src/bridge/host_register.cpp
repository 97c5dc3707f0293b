// host_register.cpp: host pages registered with the device runtime on
// demand, counted per range (see host_register.h). The ranges this package
// registered never overlap: a new span takes a reference on the ranges of
// ours it overlaps and registers only the gaps between them. A gap the
// runtime refuses as already registered (its owner pinned or registered part
// of it) is registered page by page, skipping the pages the runtime knows.

#include "host_register.h"
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

// The device runtime's calls, one struct per backend that has one.
#if defined(KOKKOS_ENABLE_CUDA)
struct device_runtime {
  using error_t = cudaError_t;
  static constexpr error_t ok = cudaSuccess;
  static constexpr error_t already_registered = cudaErrorHostMemoryAlreadyRegistered;
  static error_t host_register(void *arg_ptr, size_t arg_bytes) noexcept {
    return cudaHostRegister(arg_ptr, arg_bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
  }
  static error_t host_unregister(void *arg_ptr) noexcept { return cudaHostUnregister(arg_ptr); }
  static error_t device_pointer(void **arg_out, void *arg_ptr) noexcept {
    return cudaHostGetDevicePointer(arg_out, arg_ptr, 0);
  }
  // Whether the runtime already knows arg_ptr (registered or pinned host,
  // managed or device memory).
  static bool knows(const void *arg_ptr) noexcept {
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, arg_ptr) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return attr.type != cudaMemoryTypeUnregistered;
  }
  static void clear() noexcept { (void)cudaGetLastError(); }
  static const char *message(error_t arg_e) noexcept {
    clear();  // the error is reported here
    return cudaGetErrorString(arg_e);
  }
};
#elif defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
struct device_runtime {
  using error_t = hipError_t;
  static constexpr error_t ok = hipSuccess;
  static constexpr error_t already_registered = hipErrorHostMemoryAlreadyRegistered;
  static error_t host_register(void *arg_ptr, size_t arg_bytes) noexcept {
    return hipHostRegister(arg_ptr, arg_bytes, hipHostRegisterMapped | hipHostRegisterPortable);
  }
  static error_t host_unregister(void *arg_ptr) noexcept { return hipHostUnregister(arg_ptr); }
  static error_t device_pointer(void **arg_out, void *arg_ptr) noexcept {
    return hipHostGetDevicePointer(arg_out, arg_ptr, 0);
  }
  // hipPointerGetAttributes fails for memory the runtime does not know.
  static bool knows(const void *arg_ptr) noexcept {
    hipPointerAttribute_t attr;
    if (hipPointerGetAttributes(&attr, arg_ptr) != hipSuccess) {
      (void)hipGetLastError();
      return false;
    }
    return true;
  }
  static void clear() noexcept { (void)hipGetLastError(); }
  static const char *message(error_t arg_e) noexcept {
    clear();
    return hipGetErrorString(arg_e);
  }
};
#endif

#if defined(KOKKOS_ENABLE_CUDA) || (defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000)
#define KOKKOS_PYTHON_HOST_REGISTER 1

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
  if (device_runtime::host_unregister(reinterpret_cast<void *>(arg_start)) != device_runtime::ok)
    device_runtime::clear();  // the runtime has shut down (the process is ending): nothing left to do
  g_bytes -= it->second.m_bytes;
  g_ranges.erase(it);
}

// With g_lock: registers [arg_lo, arg_hi) (whole pages, none of ours) for
// arg_out, which takes a reference on every range made.
device_runtime::error_t register_gap(std::uintptr_t arg_lo, std::uintptr_t arg_hi, size_t arg_page,
                                     kp_host_registration &arg_out) {
  auto add = [&](std::uintptr_t arg_start, size_t arg_bytes) {
    g_ranges.emplace(arg_start, registered_range{arg_bytes, 1});
    g_bytes += arg_bytes;
    arg_out.m_starts.push_back(arg_start);
  };
  auto e = device_runtime::host_register(reinterpret_cast<void *>(arg_lo), arg_hi - arg_lo);
  if (e == device_runtime::ok) {
    add(arg_lo, arg_hi - arg_lo);
    return e;
  }
  if (e != device_runtime::already_registered) return e;
  device_runtime::clear();
  for (std::uintptr_t page = arg_lo; page < arg_hi; page += arg_page) {
    if (device_runtime::knows(reinterpret_cast<void *>(page))) continue;
    e = device_runtime::host_register(reinterpret_cast<void *>(page), arg_page);
    if (e != device_runtime::ok) return e;
    add(page, arg_page);
  }
  return device_runtime::ok;
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
#if defined(KOKKOS_PYTHON_HOST_REGISTER)
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
    if ((it == g_ranges.end() || it->first >= hi) && device_runtime::knows(arg_ptr) &&
        device_runtime::knows(reinterpret_cast<void *>(start + arg_bytes - 1)))
      return KP_OK;  // pinned, registered or managed by its owner: nothing to do
    auto out = std::make_unique<kp_host_registration>();
    std::uintptr_t cursor = lo;
    device_runtime::error_t e = device_runtime::ok;
    for (; e == device_runtime::ok && it != g_ranges.end() && it->first < hi; ++it) {
      if (it->first > cursor) e = register_gap(cursor, it->first, page, *out);
      if (e != device_runtime::ok) break;
      ++it->second.m_holders;
      out->m_starts.push_back(it->first);
      cursor = it->first + it->second.m_bytes;
    }
    if (e == device_runtime::ok && cursor < hi) e = register_gap(cursor, hi, page, *out);
    if (e != device_runtime::ok) {
      const char *why = device_runtime::message(e);
      for (auto s : out->m_starts) release_range(s);
      return fail(arg_err, KP_E_KOKKOS, why);
    }
    void *device = nullptr;
    if (device_runtime::device_pointer(&device, arg_ptr) == device_runtime::ok && device)
      *arg_device_ptr = device;
    else
      device_runtime::clear();  // registered without a mapping of its own: the host address is the device's
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
#if defined(KOKKOS_PYTHON_HOST_REGISTER)
  {
    std::lock_guard<std::mutex> hold(g_lock);
    for (auto s : arg_handle->m_starts) release_range(s);
  }
#endif
  delete arg_handle;
}

extern "C" size_t kp_bridge_host_registered_bytes(void) noexcept {
#if defined(KOKKOS_PYTHON_HOST_REGISTER)
  std::lock_guard<std::mutex> hold(g_lock);
  return g_bytes;
#else
  return 0;
#endif
}
