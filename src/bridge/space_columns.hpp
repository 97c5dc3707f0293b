// space_columns.hpp: two columns of the space table (tables.h's
// KOKKOS_PYTHON_SPACE_ROWS),
// each space's backend and memory kind, as C++ arrays indexed by KP_SPACE_*
// (internal to src/bridge).
#pragma once

#include "bridge.h"

namespace kokkos_python::impl {

constexpr kp_backend k_space_backend[] = {KOKKOS_PYTHON_SPACE_ROWS(KP_SPACE_BACKEND_OF)};
constexpr kp_memory_kind k_space_kind[] = {KOKKOS_PYTHON_SPACE_ROWS(KP_SPACE_KIND_OF)};

}  // namespace kokkos_python::impl
