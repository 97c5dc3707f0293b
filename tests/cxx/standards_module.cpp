// standards_module.cpp: a pybind11 module on the package's casters, built
// by tests/test_cxx_standards.py once per C++ standard the installed Kokkos
// allows (C++14 for pykokkos on Kokkos 3.x, C++17, C++20 for Kokkos 5.0):
// Views and DynRankViews both ways, a View made in C++, a from_python error.
#include <kokkos_python/pybind11.hpp>

#include <string>

namespace py = pybind11;
using Matrix = Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace>;
using Dyn = Kokkos::DynRankView<float, Kokkos::LayoutLeft, Kokkos::HostSpace>;

PYBIND11_MODULE(KP_STANDARDS_MODULE, m) {
  m.attr("cplusplus") = static_cast<long>(__cplusplus);
  m.def("make", [](int n) {
    Matrix a("made", n, n);
    for (int i = 0; i < n; ++i) a(i, i) = i + 1.0;
    return a;
  });
  m.def("scale", [](Matrix a, double f) {
    for (size_t i = 0; i < a.extent(0); ++i)
      for (size_t j = 0; j < a.extent(1); ++j) a(i, j) *= f;
  });
  m.def("dyn_rank", [](Dyn d) { return static_cast<int>(d.rank()); });
  m.def("dyn_fill", [](Dyn d) {
    for (size_t i = 0; i < d.extent(0); ++i)
      for (size_t j = 0; j < d.extent(1); ++j) d(i, j) = static_cast<float>(10 * i + j);
  });
  m.def("type_name", []() { return kokkos_python::type_name<Matrix>(); });
}
