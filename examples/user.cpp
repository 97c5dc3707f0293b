// user.cpp: the user's C++ library of the seed's example (see user.hpp).
#include "user.hpp"

#include <iostream>

Kokkos::View<double **, Kokkos::HostSpace> generate_view(std::size_t n) {
  std::cout << "[user-bindings]> Generating View..." << std::flush;
  Kokkos::View<double **, Kokkos::HostSpace> view("generated_view", n, 2);
  Kokkos::parallel_for(
      "generate_view", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
      KOKKOS_LAMBDA(const std::size_t i) {
        view(i, 0) = -static_cast<double>(i + 1);
        view(i, 1) = static_cast<double>(i + 1);
      });
  Kokkos::fence();
  std::cout << " Done." << std::endl;
  return view;
}

void modify_view(Kokkos::View<double **, Kokkos::HostSpace> view) {
  std::cout << "[user-bindings]> Modifying View..." << std::flush;
  Kokkos::parallel_for(
      "modify_view", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, view.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) {
        for (std::size_t j = 0; j < view.extent(1); ++j) view(i, j) *= 2;
      });
  Kokkos::fence();
  std::cout << " Done." << std::endl;
}
