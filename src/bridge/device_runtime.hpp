// device_runtime.hpp: the device runtime behind a Kokkos backend (CUDA's or
// HIP's), as one traits template, so code that works with streams, events,
// pointer attributes or registered host memory is written once over the
// backend. device_runtime<Kokkos::Cuda> exists where Kokkos has CUDA,
// device_runtime<Kokkos::HIP> where the bridge serves HIP (KP_COMPAT_HIP,
// compat.hpp); nothing else.
//
// Every member is a thin, noexcept call into the runtime returning its error
// code; success is `success`, and a failed call leaves the runtime's sticky
// last error set (clear it with last_error()). memory_kind() says what a
// pointer is in the memory-kind column of the space table (bridge.h).

#ifndef KOKKOS_PYTHON_DEVICE_RUNTIME_HPP
#define KOKKOS_PYTHON_DEVICE_RUNTIME_HPP

#include <Kokkos_Core.hpp>

#include "bridge.h"
#include "compat.hpp"

#include <cstddef>
#include <cstdint>

namespace kokkos_python::impl {

template <class Backend>
struct device_runtime;

#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct device_runtime<Kokkos::Cuda> {
  using error_type = cudaError_t;
  using event_type = cudaEvent_t;
  using stream_type = cudaStream_t;
  static constexpr kp_backend backend = KP_BACKEND_CUDA;
  static constexpr error_type success = cudaSuccess;
  // CUDA has a legacy default stream that blocking streams order with.
  static constexpr bool has_legacy_stream = true;

  static error_type last_error() noexcept { return cudaGetLastError(); }
  static const char *error_string(error_type arg_e) noexcept { return cudaGetErrorString(arg_e); }
  static error_type get_device(int *arg_device) noexcept { return cudaGetDevice(arg_device); }
  static error_type set_device(int arg_device) noexcept { return cudaSetDevice(arg_device); }
  // The device of Kokkos' default instance (Kokkos initialized).
  static int kokkos_device() { return Kokkos::Cuda().cuda_device(); }

  // A protocol's stream integer as a stream: 1 is the legacy default
  // stream, 2 the per-thread default stream, anything else a handle.
  static stream_type stream_of(uintptr_t arg_stream) noexcept {
    if (arg_stream == 1) return cudaStreamLegacy;
    if (arg_stream == 2) return cudaStreamPerThread;
    return reinterpret_cast<stream_type>(arg_stream);
  }
  static error_type stream_synchronize(stream_type arg_s) noexcept { return cudaStreamSynchronize(arg_s); }
  static error_type stream_wait_event(stream_type arg_s, event_type arg_e) noexcept {
    return cudaStreamWaitEvent(arg_s, arg_e, 0);
  }

  // An event for ordering only (no timing).
  static error_type event_create(event_type *arg_e) noexcept {
    return cudaEventCreateWithFlags(arg_e, cudaEventDisableTiming);
  }
  static error_type event_destroy(event_type arg_e) noexcept { return cudaEventDestroy(arg_e); }
  static error_type event_record(event_type arg_e, stream_type arg_s) noexcept { return cudaEventRecord(arg_e, arg_s); }

  // Whether the device reads pageable host memory directly (HMM, ATS).
  static error_type pageable_memory_access(int arg_device, int *arg_value) noexcept {
    return cudaDeviceGetAttribute(arg_value, cudaDevAttrPageableMemoryAccess, arg_device);
  }

  // Page-locks host memory and maps it into every device's address space
  // (mapped, portable); undone by host_unregister.
  static error_type host_register(void *arg_ptr, size_t arg_bytes) noexcept {
    return cudaHostRegister(arg_ptr, arg_bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
  }
  static error_type host_unregister(void *arg_ptr) noexcept { return cudaHostUnregister(arg_ptr); }
  // What host_register returns for memory registered already (by anyone).
  static constexpr error_type already_registered = cudaErrorHostMemoryAlreadyRegistered;
  // The device's address of registered host memory.
  static error_type host_get_device_pointer(void **arg_device_ptr, void *arg_host_ptr) noexcept {
    return cudaHostGetDevicePointer(arg_device_ptr, arg_host_ptr, 0);
  }
  // What arg_ptr is: device, managed, or pinned (or registered) host
  // memory, and on which device; KP_MEMORY_KIND_COUNT for memory the
  // runtime does not know (clears the error that leaves).
  static kp_memory_kind memory_kind(const void *arg_ptr, int *arg_device) noexcept {
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, arg_ptr) != cudaSuccess) {
      (void)cudaGetLastError();
      return KP_MEMORY_KIND_COUNT;
    }
    *arg_device = attr.device;
    switch (attr.type) {
      case cudaMemoryTypeDevice:
        return KP_MEMORY_DEVICE;
      case cudaMemoryTypeManaged:
        return KP_MEMORY_MANAGED;
      case cudaMemoryTypeHost:
        return KP_MEMORY_PINNED;
      default:
        return KP_MEMORY_KIND_COUNT;
    }
  }
};
#endif

#if defined(KP_COMPAT_HIP)
template <>
struct device_runtime<Kokkos::HIP> {
  using error_type = hipError_t;
  using event_type = hipEvent_t;
  using stream_type = hipStream_t;
  static constexpr kp_backend backend = KP_BACKEND_HIP;
  static constexpr error_type success = hipSuccess;
  static constexpr bool has_legacy_stream = false;

  static error_type last_error() noexcept { return hipGetLastError(); }
  static const char *error_string(error_type arg_e) noexcept { return hipGetErrorString(arg_e); }
  static error_type get_device(int *arg_device) noexcept { return hipGetDevice(arg_device); }
  static error_type set_device(int arg_device) noexcept { return hipSetDevice(arg_device); }
  static int kokkos_device() { return Kokkos::HIP().hip_device(); }

  static stream_type stream_of(uintptr_t arg_stream) noexcept { return reinterpret_cast<stream_type>(arg_stream); }
  static error_type stream_synchronize(stream_type arg_s) noexcept { return hipStreamSynchronize(arg_s); }
  static error_type stream_wait_event(stream_type arg_s, event_type arg_e) noexcept {
    return hipStreamWaitEvent(arg_s, arg_e, 0);
  }

  static error_type event_create(event_type *arg_e) noexcept {
    return hipEventCreateWithFlags(arg_e, hipEventDisableTiming);
  }
  static error_type event_destroy(event_type arg_e) noexcept { return hipEventDestroy(arg_e); }
  static error_type event_record(event_type arg_e, stream_type arg_s) noexcept { return hipEventRecord(arg_e, arg_s); }

  static error_type pageable_memory_access(int arg_device, int *arg_value) noexcept {
    return hipDeviceGetAttribute(arg_value, hipDeviceAttributePageableMemoryAccess, arg_device);
  }

  static error_type host_register(void *arg_ptr, size_t arg_bytes) noexcept {
    return hipHostRegister(arg_ptr, arg_bytes, hipHostRegisterMapped | hipHostRegisterPortable);
  }
  static error_type host_unregister(void *arg_ptr) noexcept { return hipHostUnregister(arg_ptr); }
  static constexpr error_type already_registered = hipErrorHostMemoryAlreadyRegistered;
  static error_type host_get_device_pointer(void **arg_device_ptr, void *arg_host_ptr) noexcept {
    return hipHostGetDevicePointer(arg_device_ptr, arg_host_ptr, 0);
  }
  // hipPointerGetAttributes fails for memory the runtime does not know; its
  // memory type is the field `memoryType` before ROCm 6, `type` since.
  static kp_memory_kind memory_kind(const void *arg_ptr, int *arg_device) noexcept {
    hipPointerAttribute_t attr;
    if (hipPointerGetAttributes(&attr, arg_ptr) != hipSuccess) {
      (void)hipGetLastError();
      return KP_MEMORY_KIND_COUNT;
    }
    *arg_device = attr.device;
    if (attr.isManaged) return KP_MEMORY_MANAGED;
#if HIP_VERSION_MAJOR >= 6
    const hipMemoryType type = attr.type;
#else
    const hipMemoryType type = attr.memoryType;
#endif
    switch (type) {
      case hipMemoryTypeDevice:
        return KP_MEMORY_DEVICE;
      case hipMemoryTypeHost:
        return KP_MEMORY_PINNED;
      default:
        return KP_MEMORY_KIND_COUNT;
    }
  }
};
#endif

// The device runtime of this Kokkos build, where it has one (Kokkos enables
// one device backend at most): KOKKOS_PYTHON_DEVICE_RUNTIME is defined then.
#if defined(KOKKOS_ENABLE_CUDA)
#define KOKKOS_PYTHON_DEVICE_RUNTIME 1
using build_runtime = device_runtime<Kokkos::Cuda>;
#elif defined(KP_COMPAT_HIP)
#define KOKKOS_PYTHON_DEVICE_RUNTIME 1
using build_runtime = device_runtime<Kokkos::HIP>;
#endif

// Whether runtime R knows arg_ptr: registered or pinned host memory, managed
// or device memory.
template <class R>
bool runtime_knows(const void *arg_ptr) noexcept {
  int device = 0;
  return R::memory_kind(arg_ptr, &device) != KP_MEMORY_KIND_COUNT;
}

}  // namespace kokkos_python::impl

#endif
