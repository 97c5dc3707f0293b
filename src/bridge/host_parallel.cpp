// host_parallel.cpp: runs the core's host loops (copies, fills) on the
// threads of Kokkos' default host execution space (see host_parallel.h).

#include "host_parallel.h"
#include "guard.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>

using namespace kokkos_python::impl;

extern "C" int kp_bridge_host_concurrency(void) noexcept {
  if (!Kokkos::is_initialized()) return 1;
  try {
    const int c = Kokkos::DefaultHostExecutionSpace().concurrency();
    return c > 0 ? c : 1;
  } catch (...) {
    return 1;
  }
}

extern "C" kp_status kp_bridge_host_parallel(const char *label, int64_t n, void (*body)(int64_t, int64_t, void *),
                                             void *ctx, kp_error *err) noexcept {
  return guarded_call(err, "Kokkos raised an unknown C++ exception", [&]() -> kp_status {
    if (!Kokkos::is_initialized()) return fail(err, KP_E_STATE, "Kokkos is not initialized");
    if (n <= 0) return KP_OK;
    using exec = Kokkos::DefaultHostExecutionSpace;
    const int64_t chunks = std::min<int64_t>(n, exec().concurrency() > 0 ? exec().concurrency() : 1);
    Kokkos::parallel_for(label ? label : "kokkos.host_parallel",
                         Kokkos::RangePolicy<exec, Kokkos::IndexType<int64_t>>(0, chunks), [=](const int64_t arg_t) {
                           const int64_t begin = n * arg_t / chunks, end = n * (arg_t + 1) / chunks;
                           if (begin < end) body(begin, end, ctx);
                         });
    exec().fence();
    return KP_OK;
  });
}
