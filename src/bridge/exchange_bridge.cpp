// exchange_bridge.cpp: device facts for the zero-copy exchange protocols
// (see exchange_bridge.h): device ids, Kokkos' stream, the space of a foreign
// pointer, pageable access, stream synchronization and stream waits. The
// device runtimes' calls come through device_runtime.hpp, written once over
// the backend (CUDA, HIP); every entry point is noexcept.

#include "exchange_bridge.h"
#include "compat.hpp"
#include "device_runtime.hpp"
#include "guard.hpp"
#include "space_columns.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>

namespace kokkos_python::impl {

bool is_cuda_space(int arg_space) noexcept {
  return arg_space >= 0 && arg_space < KP_SPACE_COUNT && k_space_backend[arg_space] == KP_BACKEND_CUDA;
}

bool is_hip_space(int arg_space) noexcept {
  return arg_space >= 0 && arg_space < KP_SPACE_COUNT && k_space_backend[arg_space] == KP_BACKEND_HIP;
}

#if defined(KOKKOS_ENABLE_CUDA)
using cuda_runtime = device_runtime<Kokkos::Cuda>;

// True if work on stream arg_stream (a protocol integer) is implicitly
// ordered with the legacy default stream: CUDA's blocking streams (made
// without cudaStreamNonBlocking) and the per-thread default stream are.
bool cuda_syncs_with_legacy(uintptr_t arg_stream) noexcept {
  if (arg_stream == 1 || arg_stream == 2) return true;
  // Kokkos' own stream lives as long as Kokkos: its flags are asked once.
  // Other handles may be destroyed and their address reused: ask each time.
  static int s_kokkos_syncs = -1;
  const bool kokkos_own = Kokkos::is_initialized() && arg_stream == kp_bridge_kokkos_stream(KP_SPACE_CUDA);
  if (kokkos_own && s_kokkos_syncs >= 0) return s_kokkos_syncs == 1;
  unsigned flags = 0;
  if (cudaStreamGetFlags(cuda_runtime::stream_of(arg_stream), &flags) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  const bool syncs = (flags & cudaStreamNonBlocking) == 0;
  if (kokkos_own) s_kokkos_syncs = syncs ? 1 : 0;
  return syncs;
}
#endif

// Calls arg_f(device_runtime<Backend>{}) for the device runtime behind
// arg_space's backend; returns arg_none where this Kokkos has none (arg_f's
// own results must differ from it).
template <class T, class F>
T with_runtime(int arg_space, T arg_none, F &&arg_f) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (is_cuda_space(arg_space)) return arg_f(device_runtime<Kokkos::Cuda>{});
#endif
#if defined(KP_COMPAT_HIP)
  if (is_hip_space(arg_space)) return arg_f(device_runtime<Kokkos::HIP>{});
#endif
  (void)arg_space;
  (void)arg_f;
  return arg_none;
}

// Clears the runtime's sticky error and reports arg_e.
template <class R>
kp_status runtime_failure(kp_error *arg_err, typename R::error_type arg_e) noexcept {
  (void)R::last_error();
  return fail(arg_err, KP_E_KOKKOS, R::error_string(arg_e));
}

// What a stream call on a space without a device runtime gives: nothing to
// do for the host, an error for a space this Kokkos has no backend for.
kp_status no_device_streams(int arg_space, kp_error *arg_err) noexcept {
  if (arg_space == KP_SPACE_HOST) return KP_OK;
  return fail(arg_err, KP_E_UNAVAILABLE, "this Kokkos has no device backend for that memory space's streams");
}

// One event per thread, runtime and device, reused: a stream wait waits for
// the event's latest record at the time of the call, so recording it again
// later changes nothing for streams that already wait on it.
template <class R>
typename R::error_type event_for(int arg_device, typename R::event_type &arg_event) noexcept {
  thread_local typename R::event_type t_event = nullptr;
  thread_local int t_device = -1;
  if (t_event && t_device == arg_device) {
    arg_event = t_event;
    return R::success;
  }
  int current = 0;
  typename R::error_type e = R::get_device(&current);
  if (e != R::success) return e;
  if (current != arg_device && (e = R::set_device(arg_device)) != R::success) return e;
  typename R::event_type made = nullptr;
  e = R::event_create(&made);
  if (current != arg_device) (void)R::set_device(current);
  if (e != R::success) return e;
  if (t_event) (void)R::event_destroy(t_event);  // made on another device
  t_event = made;
  t_device = arg_device;
  arg_event = made;
  return R::success;
}

}  // namespace kokkos_python::impl

using namespace kokkos_python::impl;

extern "C" int kp_bridge_device_id(int arg_space) noexcept {
  try {
    return with_runtime(arg_space, 0, [](auto arg_runtime) {
      using R = decltype(arg_runtime);
      if (Kokkos::is_initialized()) return R::kokkos_device();
      int device = 0;
      if (R::get_device(&device) != R::success) {
        (void)R::last_error();
        return 0;
      }
      return device;
    });
  } catch (...) {
    return 0;
  }
}

extern "C" uintptr_t kp_bridge_kokkos_stream(int arg_space) noexcept {
  try {
#if defined(KOKKOS_ENABLE_CUDA)
    if (is_cuda_space(arg_space)) {
      if (!Kokkos::is_initialized()) return 1;
      // The default instance keeps its stream from initialize to finalize,
      // and Kokkos initializes once per process: ask once.
      static const uintptr_t s_stream = [] {
        cudaStream_t s = Kokkos::Cuda().cuda_stream();
        return s == nullptr ? uintptr_t(1) : reinterpret_cast<uintptr_t>(s);
      }();
      return s_stream;
    }
#endif
#if defined(KP_COMPAT_HIP)
    if (is_hip_space(arg_space) && Kokkos::is_initialized())
      return reinterpret_cast<uintptr_t>(Kokkos::HIP().hip_stream());
#endif
  } catch (...) {
  }
  (void)arg_space;
  return 0;
}

#if defined(KOKKOS_PYTHON_DEVICE_RUNTIME)
// The row of the space table of backend arg_backend and memory kind
// arg_kind, or -1 (the table has no such row).
static int space_of_kind(kp_backend arg_backend, kp_memory_kind arg_kind) noexcept {
  for (int s = 0; s < KP_SPACE_COUNT; ++s)
    if (k_space_backend[s] == arg_backend && k_space_kind[s] == arg_kind) return s;
  return -1;
}
#endif

extern "C" int kp_bridge_pointer_space(const void *arg_ptr, int *arg_device_id) noexcept {
  int device = 0, space = -1;
#if defined(KOKKOS_PYTHON_DEVICE_RUNTIME)
  space = space_of_kind(build_runtime::backend, build_runtime::memory_kind(arg_ptr, &device));
#else
  (void)arg_ptr;
#endif
  if (arg_device_id) *arg_device_id = space < 0 ? 0 : device;
  return space;
}

extern "C" int kp_bridge_pageable_access(int arg_space) noexcept {
  try {
    return with_runtime(arg_space, kp_bridge_space_host_accessible(arg_space), [&](auto arg_runtime) {
      using R = decltype(arg_runtime);
      int value = 0;
      if (R::pageable_memory_access(kp_bridge_device_id(arg_space), &value) != R::success) {
        (void)R::last_error();
        return 0;
      }
      return value != 0 ? 1 : 0;
    });
  } catch (...) {
    return 0;
  }
}

// Runs arg_f(device_runtime<Backend>{}) for arg_space's device runtime, a
// C++ exception becoming a status and a message (arg_unknown for one not
// derived from std::exception); a space without a device runtime has no
// streams to order (no_device_streams).
template <class F>
kp_status on_device_streams(int arg_space, kp_error *arg_err, const char *arg_unknown, F &&arg_f) noexcept {
  return guarded_call(arg_err, arg_unknown, [&]() -> kp_status {
    const kp_status status = with_runtime(arg_space, KP_E_UNAVAILABLE, arg_f);
    return status == KP_E_UNAVAILABLE ? no_device_streams(arg_space, arg_err) : status;
  });
}

extern "C" kp_status kp_bridge_stream_synchronize(int arg_space, uintptr_t arg_stream, kp_error *arg_err) noexcept {
  return on_device_streams(arg_space, arg_err, "synchronizing a stream raised an unknown C++ exception",
                           [&](auto arg_runtime) {
                             using R = decltype(arg_runtime);
                             typename R::error_type e = R::stream_synchronize(R::stream_of(arg_stream));
                             return e == R::success ? KP_OK : runtime_failure<R>(arg_err, e);
                           });
}

extern "C" kp_status kp_bridge_stream_wait(int arg_space, uintptr_t arg_waiter, uintptr_t arg_producer,
                                           kp_error *arg_err) noexcept {
  if (arg_waiter == arg_producer) return KP_OK;
  return on_device_streams(arg_space, arg_err, "ordering two streams raised an unknown C++ exception",
                           [&](auto arg_runtime) {
                             using R = decltype(arg_runtime);
#if defined(KOKKOS_ENABLE_CUDA)
                             // The legacy default stream and a blocking stream wait for each
                             // other's earlier work by themselves.
                             if constexpr (R::has_legacy_stream) {
                               if ((arg_waiter == 1 && cuda_syncs_with_legacy(arg_producer)) ||
                                   (arg_producer == 1 && cuda_syncs_with_legacy(arg_waiter)))
                                 return KP_OK;
                             }
#endif
                             typename R::event_type event = nullptr;
                             typename R::error_type e = event_for<R>(kp_bridge_device_id(arg_space), event);
                             if (e == R::success) e = R::event_record(event, R::stream_of(arg_producer));
                             if (e == R::success) e = R::stream_wait_event(R::stream_of(arg_waiter), event);
                             return e == R::success ? KP_OK : runtime_failure<R>(arg_err, e);
                           });
}
