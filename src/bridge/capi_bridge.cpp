// capi_bridge.cpp: what the C API (src/core/exchange/capi.c) needs to know about the
// Kokkos the core runs: which Kokkos library that is in this process.
//
// A user's module compares the address of Kokkos::is_initialized it sees
// with this one; two different addresses mean two Kokkos runtimes.

#include "bridge.h"

#include <Kokkos_Core.hpp>

extern "C" const void *kp_bridge_kokkos_runtime(void) noexcept {
  return reinterpret_cast<const void *>(&Kokkos::is_initialized);
}
