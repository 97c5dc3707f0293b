/* stream.c: ordering exchanged memory between Kokkos' work and a foreign
 * producer's or consumer's, both directions, for every exchange protocol
 * (DLPack and its C exchange table, __cuda_array_interface__).
 *
 * Streams are the protocols' integers: for CUDA 1 is the legacy default
 * stream, 2 the per-thread default stream, anything else a handle; for ROCm
 * 0 is the default stream. The bridge turns them into device-runtime calls
 * (exchange_bridge.h); on a Kokkos without a device backend every space is
 * host memory and these calls wait for nothing.
 */
#include "core.h"
#include "base.h"
#include "model.h"

#include "exchange.h"
#include "exchange_bridge.h"

int kp_fence_kokkos(const char *label, const char *where) {
  if (!kp_bridge_is_initialized()) return 0; /* nothing can be queued */
  kp_error err;
  err.message[0] = 0;
  kp_status s;
  KP_KOKKOS_WORK(where, return -1, s = kp_bridge_fence(label, &err));
  return s == KP_OK ? 0 : kp_raise_bridge(s, &err, where);
}

/* Waits for a foreign stream (protocol integer) of space's backend. */
static int wait_stream(int space, uintptr_t stream, const char *where) {
  kp_error err;
  err.message[0] = 0;
  kp_status s;
  KP_KOKKOS_WORK(where, return -1, s = kp_bridge_stream_synchronize(space, stream, &err));
  return s == KP_OK ? 0 : kp_raise_bridge(s, &err, where);
}

int kp_order_export(int space, int32_t device_type, uintptr_t consumer, const char *where) {
  if (space == KP_SPACE_HOST || !kp_bridge_is_initialized()) return 0;
  if (device_type == KP_DL_CPU || !(kp_dl_is_cuda_device(device_type) || kp_dl_is_rocm_device(device_type)))
    return kp_fence_kokkos("kokkos.View.__dlpack__", where);
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_bridge_stream_wait(space, consumer, kp_bridge_kokkos_stream(space), &err);
  return s == KP_OK ? 0 : kp_raise_bridge(s, &err, where);
}

int kp_order_import(int space, uintptr_t producer, const char *where) {
  if (kp_bridge_space_host_accessible(space)) return wait_stream(space, producer, where);
  if (kp_runtime_ensure() < 0) return -1;
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_bridge_stream_wait(space, kp_bridge_kokkos_stream(space), producer, &err);
  return s == KP_OK ? 0 : kp_raise_bridge(s, &err, where);
}
