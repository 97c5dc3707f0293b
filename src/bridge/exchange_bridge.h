/* exchange_bridge.h: what the zero-copy exchange protocols (DLPack and
 * __cuda_array_interface__: src/core/exchange/stream.c, dlpack.c,
 * dlpack_api.c and cai.c) need from Kokkos' device backends: the device a
 * memory space lives on, Kokkos' own stream, the memory space of a foreign
 * pointer, and waiting on a foreign stream.
 *
 * exchange_bridge.cpp (C++, compiled against Kokkos) implements it. Streams
 * cross this line as integers, as the Python protocols carry them: 1 is
 * CUDA's legacy default stream, 2 its per-thread default stream, any other
 * value a stream handle. On a Kokkos without device backends every function
 * answers for the host. Every function is noexcept on the C++ side.
 */
#ifndef KOKKOS_PYTHON_EXCHANGE_BRIDGE_H
#define KOKKOS_PYTHON_EXCHANGE_BRIDGE_H

#include <stdint.h>

#include "bridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ordinal of the device Kokkos runs space's execution space on (the
 * CUDA or HIP device of Kokkos' default instance); 0 for host spaces and
 * for spaces this Kokkos lacks. */
int kp_bridge_device_id(int space) KP_NOEXCEPT;

/* The stream of Kokkos' default execution space instance for memory of
 * space, as a protocol integer (1 when that is CUDA's legacy default
 * stream); 0 for host spaces (no stream). */
uintptr_t kp_bridge_kokkos_stream(int space) KP_NOEXCEPT;

/* The memory space (enum kp_space) that holds ptr, as the device runtime
 * reports it (CUDA: device -> KP_SPACE_CUDA, managed -> KP_SPACE_CUDA_UVM,
 * registered host -> KP_SPACE_CUDA_HOST_PINNED; HIP: device -> KP_SPACE_HIP,
 * registered host -> KP_SPACE_HIP_HOST_PINNED; the rows of the space table
 * of that backend and memory kind), with its device ordinal in *device_id;
 * -1 when no device backend of this Kokkos knows the pointer, or the table
 * has no row for what it is (HIP's managed memory). */
int kp_bridge_pointer_space(const void *ptr, int *device_id) KP_NOEXCEPT;

/* 1 if the device of space (a CUDA or HIP space) can read pageable host
 * memory, that is memory allocated by malloc and never registered with the
 * device runtime (CUDA: cudaDevAttrPageableMemoryAccess, HMM or ATS; HIP:
 * hipDeviceAttributePageableMemoryAccess); 0 if it cannot or the runtime
 * does not say; 1 for host spaces. */
int kp_bridge_pageable_access(int space) KP_NOEXCEPT;

/* Blocks the calling thread until all work queued so far on stream (a
 * protocol integer) of space's backend has finished. KP_E_UNAVAILABLE when
 * this Kokkos has no such backend; KP_E_KOKKOS with the runtime's message
 * when the device runtime reports an error. */
kp_status kp_bridge_stream_synchronize(int space, uintptr_t stream, kp_error *err) KP_NOEXCEPT;

/* Makes the work queued later on stream waiter (a protocol integer) wait
 * for the work queued so far on stream producer, both of space's backend,
 * without blocking the host: an event recorded on producer, waited on by
 * waiter. KP_OK at once when both name the same stream. KP_E_UNAVAILABLE
 * when this Kokkos has no such backend; KP_E_KOKKOS with the runtime's
 * message when the device runtime reports an error. */
kp_status kp_bridge_stream_wait(int space, uintptr_t waiter, uintptr_t producer, kp_error *err) KP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KOKKOS_PYTHON_EXCHANGE_BRIDGE_H */
