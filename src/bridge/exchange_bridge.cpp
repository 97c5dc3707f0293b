// exchange_bridge.cpp: device facts for the zero-copy exchange protocols
// (see exchange_bridge.h). The only code here that touches a device runtime
// directly: CUDA's pointer attributes and stream synchronization, HIP's
// stream synchronization, each behind the Kokkos backend macro that brings
// the runtime's header in. Every entry point is noexcept.

#include "exchange_bridge.h"
#include "guard.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>

namespace kokkos_python::impl {

constexpr kp_backend k_space_backend[] = {KP_SPACE_ROWS(KP_SPACE_BACKEND_OF)};

bool is_cuda_space(int arg_space) noexcept {
  return arg_space >= 0 && arg_space < KP_SPACE_COUNT && k_space_backend[arg_space] == KP_BACKEND_CUDA;
}

bool is_hip_space(int arg_space) noexcept {
  return arg_space >= 0 && arg_space < KP_SPACE_COUNT && k_space_backend[arg_space] == KP_BACKEND_HIP;
}

#if defined(KOKKOS_ENABLE_CUDA)
cudaStream_t cuda_stream_of(uintptr_t arg_stream) noexcept {
  if (arg_stream == 1) return cudaStreamLegacy;
  if (arg_stream == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(arg_stream);
}
#endif

#if defined(KOKKOS_ENABLE_CUDA)
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
  if (cudaStreamGetFlags(cuda_stream_of(arg_stream), &flags) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  const bool syncs = (flags & cudaStreamNonBlocking) == 0;
  if (kokkos_own) s_kokkos_syncs = syncs ? 1 : 0;
  return syncs;
}

// One event per thread and device, reused: cudaStreamWaitEvent waits for
// the event's latest record at the time of the call, so recording it again
// later changes nothing for streams that already wait on it.
cudaError_t cuda_event_for(int arg_device, cudaEvent_t &arg_event) noexcept {
  thread_local cudaEvent_t t_event = nullptr;
  thread_local int t_device = -1;
  if (t_event && t_device == arg_device) {
    arg_event = t_event;
    return cudaSuccess;
  }
  int current = 0;
  cudaError_t e = cudaGetDevice(&current);
  if (e != cudaSuccess) return e;
  if (current != arg_device && (e = cudaSetDevice(arg_device)) != cudaSuccess) return e;
  cudaEvent_t made = nullptr;
  e = cudaEventCreateWithFlags(&made, cudaEventDisableTiming);
  if (current != arg_device) (void)cudaSetDevice(current);
  if (e != cudaSuccess) return e;
  if (t_event) (void)cudaEventDestroy(t_event);  // made on another device
  t_event = made;
  t_device = arg_device;
  arg_event = made;
  return cudaSuccess;
}
#endif

#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
hipError_t hip_event_for(int arg_device, hipEvent_t &arg_event) noexcept {
  thread_local hipEvent_t t_event = nullptr;
  thread_local int t_device = -1;
  if (t_event && t_device == arg_device) {
    arg_event = t_event;
    return hipSuccess;
  }
  int current = 0;
  hipError_t e = hipGetDevice(&current);
  if (e != hipSuccess) return e;
  if (current != arg_device && (e = hipSetDevice(arg_device)) != hipSuccess) return e;
  hipEvent_t made = nullptr;
  e = hipEventCreateWithFlags(&made, hipEventDisableTiming);
  if (current != arg_device) (void)hipSetDevice(current);
  if (e != hipSuccess) return e;
  if (t_event) (void)hipEventDestroy(t_event);
  t_event = made;
  t_device = arg_device;
  arg_event = made;
  return hipSuccess;
}
#endif

}  // namespace kokkos_python::impl

using namespace kokkos_python::impl;

extern "C" int kp_bridge_device_id(int arg_space) noexcept {
  try {
#if defined(KOKKOS_ENABLE_CUDA)
    if (is_cuda_space(arg_space)) {
      if (Kokkos::is_initialized()) return Kokkos::Cuda().cuda_device();
      int device = 0;
      if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
      }
      return device;
    }
#endif
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
    if (is_hip_space(arg_space) && Kokkos::is_initialized()) return Kokkos::HIP().hip_device();
#endif
  } catch (...) {
  }
  (void)arg_space;
  return 0;
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
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
    if (is_hip_space(arg_space) && Kokkos::is_initialized())
      return reinterpret_cast<uintptr_t>(Kokkos::HIP().hip_stream());
#endif
  } catch (...) {
  }
  (void)arg_space;
  return 0;
}

extern "C" int kp_bridge_pointer_space(const void *arg_ptr, int *arg_device_id) noexcept {
  if (arg_device_id) *arg_device_id = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, arg_ptr) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky-free error state
    return -1;
  }
  if (arg_device_id) *arg_device_id = attr.device;
  switch (attr.type) {
    case cudaMemoryTypeDevice:
      return KP_SPACE_CUDA;
    case cudaMemoryTypeManaged:
      return KP_SPACE_CUDA_UVM;
    case cudaMemoryTypeHost:
      return KP_SPACE_CUDA_HOST_PINNED;
    default:
      return -1;
  }
#else
  (void)arg_ptr;
  return -1;
#endif
}

extern "C" int kp_bridge_pageable_access(int arg_space) noexcept {
  try {
#if defined(KOKKOS_ENABLE_CUDA)
    if (is_cuda_space(arg_space)) {
      int value = 0;
      if (cudaDeviceGetAttribute(&value, cudaDevAttrPageableMemoryAccess, kp_bridge_device_id(arg_space)) !=
          cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
      }
      return value != 0;
    }
#endif
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
    if (is_hip_space(arg_space)) {
      int value = 0;
      if (hipDeviceGetAttribute(&value, hipDeviceAttributePageableMemoryAccess, kp_bridge_device_id(arg_space)) !=
          hipSuccess) {
        (void)hipGetLastError();
        return 0;
      }
      return value != 0;
    }
#endif
  } catch (...) {
    return 0;
  }
  return kp_bridge_space_host_accessible(arg_space);
}

extern "C" kp_status kp_bridge_stream_synchronize(int arg_space, uintptr_t arg_stream, kp_error *arg_err) noexcept {
  try {
#if defined(KOKKOS_ENABLE_CUDA)
    if (is_cuda_space(arg_space)) {
      cudaError_t e = cudaStreamSynchronize(cuda_stream_of(arg_stream));
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return fail(arg_err, KP_E_KOKKOS, cudaGetErrorString(e));
      }
      return KP_OK;
    }
#endif
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
    if (is_hip_space(arg_space)) {
      hipError_t e = hipStreamSynchronize(reinterpret_cast<hipStream_t>(arg_stream));
      if (e != hipSuccess) {
        (void)hipGetLastError();
        return fail(arg_err, KP_E_KOKKOS, hipGetErrorString(e));
      }
      return KP_OK;
    }
#endif
  } catch (std::exception &e) {
    return fail(arg_err, KP_E_KOKKOS, e.what());
  } catch (...) {
    return fail(arg_err, KP_E_KOKKOS, "synchronizing a stream raised an unknown C++ exception");
  }
  (void)arg_stream;
  if (arg_space == KP_SPACE_HOST) return KP_OK;
  return fail(arg_err, KP_E_UNAVAILABLE, "this Kokkos has no device backend for that memory space's streams");
}

extern "C" kp_status kp_bridge_stream_wait(int arg_space, uintptr_t arg_waiter, uintptr_t arg_producer,
                                           kp_error *arg_err) noexcept {
  if (arg_waiter == arg_producer) return KP_OK;
  try {
#if defined(KOKKOS_ENABLE_CUDA)
    if (is_cuda_space(arg_space)) {
      // The legacy default stream and a blocking stream wait for each
      // other's earlier work by themselves.
      if ((arg_waiter == 1 && cuda_syncs_with_legacy(arg_producer)) ||
          (arg_producer == 1 && cuda_syncs_with_legacy(arg_waiter)))
        return KP_OK;
      cudaEvent_t event = nullptr;
      cudaError_t e = cuda_event_for(kp_bridge_device_id(arg_space), event);
      if (e == cudaSuccess) e = cudaEventRecord(event, cuda_stream_of(arg_producer));
      if (e == cudaSuccess) e = cudaStreamWaitEvent(cuda_stream_of(arg_waiter), event, 0);
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return fail(arg_err, KP_E_KOKKOS, cudaGetErrorString(e));
      }
      return KP_OK;
    }
#endif
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
    if (is_hip_space(arg_space)) {
      hipEvent_t event = nullptr;
      hipError_t e = hip_event_for(kp_bridge_device_id(arg_space), event);
      if (e == hipSuccess) e = hipEventRecord(event, reinterpret_cast<hipStream_t>(arg_producer));
      if (e == hipSuccess) e = hipStreamWaitEvent(reinterpret_cast<hipStream_t>(arg_waiter), event, 0);
      if (e != hipSuccess) {
        (void)hipGetLastError();
        return fail(arg_err, KP_E_KOKKOS, hipGetErrorString(e));
      }
      return KP_OK;
    }
#endif
  } catch (std::exception &e) {
    return fail(arg_err, KP_E_KOKKOS, e.what());
  } catch (...) {
    return fail(arg_err, KP_E_KOKKOS, "ordering two streams raised an unknown C++ exception");
  }
  if (arg_space == KP_SPACE_HOST) return KP_OK;
  return fail(arg_err, KP_E_UNAVAILABLE, "this Kokkos has no device backend for that memory space's streams");
}
