/* host_register.h: host memory made readable by a GPU that cannot read
 * pageable memory, by registering its pages with the device runtime
 * (CUDA: cudaHostRegister, mapped and portable; HIP: hipHostRegister) for as
 * long as some View needs them.
 *
 * Pages are counted: arrays that share a page (small NumPy arrays do), a
 * slice of an array already registered, or the same array wrapped twice,
 * each hold a reference to the registered ranges under them, and a range is
 * unregistered when its last holder goes. Memory the runtime already knows
 * (registered or pinned by its owner, managed, device memory) is left
 * alone. Thread-safe (one lock). host_register.cpp implements it; every
 * function is noexcept on the C++ side.
 */
#ifndef KOKKOS_PYTHON_HOST_REGISTER_H
#define KOKKOS_PYTHON_HOST_REGISTER_H

#include <stddef.h>

#include "bridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one caller holds of the registered ranges: given back, once, with
 * kp_bridge_host_unregister. */
typedef struct kp_host_registration kp_host_registration;

/* Makes [ptr, ptr + bytes) readable by the device of space (a device space
 * of this Kokkos). On KP_OK: *handle is what to give back (NULL when
 * nothing had to be registered: the runtime already knew every page) and
 * *device_ptr the address device code reads ptr at. On failure the
 * runtime's reason is in *err and nothing stays registered for this call
 * (KP_E_UNAVAILABLE: this Kokkos has no runtime for space; KP_E_KOKKOS: the
 * runtime refused, e.g. a locked-memory limit or a read-only mapping). */
kp_status kp_bridge_host_register(int space, void *ptr, size_t bytes, kp_host_registration **handle, void **device_ptr,
                                  kp_error *err) KP_NOEXCEPT;

/* Gives back what kp_bridge_host_register handed out (NULL: nothing);
 * ranges nobody holds any more are unregistered. */
void kp_bridge_host_unregister(kp_host_registration *handle) KP_NOEXCEPT;

/* Bytes (whole pages) registered by kp_bridge_host_register and not yet
 * unregistered: 0 once every holder has gone. */
size_t kp_bridge_host_registered_bytes(void) KP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KOKKOS_PYTHON_HOST_REGISTER_H */
