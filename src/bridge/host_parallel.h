/* host_parallel.h: the C interface to run a C loop on the threads of Kokkos'
 * default host execution space (OpenMP, Threads, HPX; one thread for
 * Serial). The core's large host copies and fills use it, so they scale
 * with the threads Kokkos was given (kokkos.initialize(num_threads=...),
 * OMP_NUM_THREADS) and Kokkos Tools see them as kernels. */
#ifndef KOKKOS_PYTHON_HOST_PARALLEL_H
#define KOKKOS_PYTHON_HOST_PARALLEL_H

#include <stdint.h>

#include "bridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of threads of Kokkos' default host execution space (1 when
 * Kokkos is not initialized). */
int kp_bridge_host_concurrency(void) KP_NOEXCEPT;

/* Splits [0, n) into one contiguous chunk per host thread and calls
 * body(begin, end, ctx) for each non-empty chunk, in parallel, then fences.
 * body must not call into Python or throw. Runs without the GIL. label names
 * the kernel for Kokkos Tools. */
kp_status kp_bridge_host_parallel(const char *label, int64_t n, void (*body)(int64_t begin, int64_t end, void *ctx),
                                  void *ctx, kp_error *err) KP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KOKKOS_PYTHON_HOST_PARALLEL_H */
