// user.hpp: the user's C++ library of the seed's example: code that uses
// Kokkos and knows nothing about Python.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>

// A View of shape (n, 2) whose row i holds -(i+1), i+1.
Kokkos::View<double **, Kokkos::HostSpace> generate_view(std::size_t n);

// Doubles every value of view in place.
void modify_view(Kokkos::View<double **, Kokkos::HostSpace> view);
