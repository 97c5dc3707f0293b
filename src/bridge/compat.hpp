// compat.hpp: every Kokkos-version difference the bridge meets, in one place,
// each with the Kokkos version it belongs to (internal to src/bridge). The
// bridge's other files spell no KOKKOS_VERSION check: they use the names
// below. The public headers' differences are include/kokkos_python/
// compat.hpp's (the bridge reads its table of memory-space types too), the
// core's (CPython versions) src/core/base/compat.h's.
//
// Supported: Kokkos 3.4 to 5.2 and develop.
#pragma once

#include <Kokkos_Core.hpp>

namespace kokkos_python::impl {

// ---- initialize / finalize ------------------------------------------------------

// Whether Kokkos was finalized, as far as Kokkos itself says: it has
// Kokkos::is_finalized from 4.0 on; 3.x has none (the bridge's finalize hook
// tracks it there, and this says false).
inline bool kokkos_says_finalized() noexcept {
#if KOKKOS_VERSION >= 40000
  return Kokkos::is_finalized();
#else
  return false;
#endif
}

// The command-line flags kp_bridge_initialize builds from its settings: 4.0
// renamed --kokkos-threads and --kokkos-tools-library, and 3.x still reads
// the old flags without the "kokkos-" prefix (--threads=, --numa=, ...).
#if KOKKOS_VERSION >= 40000
constexpr const char *k_threads_flag = "--kokkos-num-threads=";
constexpr const char *k_tools_libs_flag = "--kokkos-tools-libs=";
constexpr bool k_reads_unprefixed_flags = false;
#else
constexpr const char *k_threads_flag = "--kokkos-threads=";
constexpr const char *k_tools_libs_flag = "--kokkos-tools-library=";
constexpr bool k_reads_unprefixed_flags = true;
#endif

// ---- fences ---------------------------------------------------------------------

// A global fence that Kokkos Tools see under arg_label: Kokkos names fences
// from 3.6 on; 3.4 and 3.5 fence without a name.
inline void labelled_fence(const char *arg_label) {
#if KOKKOS_VERSION >= 30600
  Kokkos::fence(arg_label);
#else
  (void)arg_label;
  Kokkos::fence();
#endif
}

}  // namespace kokkos_python::impl

// ---- backends ---------------------------------------------------------------------

// KP_COMPAT_HIP: this Kokkos has HIP and the bridge serves its memory spaces
// (allocations, copies, kernels, the device runtime): HIP's public API is
// the one of Kokkos 4.0 on (Kokkos::HIP, hip_stream(), hip_device()); a 3.x
// HIP build has its spaces unavailable to Python.
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
#define KP_COMPAT_HIP 1
#endif

// ---- Kokkos Tools -------------------------------------------------------------------

// KP_COMPAT_TOOL_SETTINGS_SETTERS: Kokkos::Tools::Experimental has
// set_request_tool_settings_callback and
// set_provide_tool_programming_interface_callback (3.6 on). 3.4 and 3.5
// lack them, but their EventSet has both fields, which tools_bridge.cpp sets
// through get_callbacks / set_callbacks instead.
#if KOKKOS_VERSION >= 30600
#define KP_COMPAT_TOOL_SETTINGS_SETTERS 1
#endif
