// pykokkos_style_module.cpp: a kernel module built the way pykokkos builds
// its generated code (tests/test_pykokkos.py): it includes only pybind11 and
// Kokkos' own headers, from the include/kokkos directory installed next to
// the kokkos package, at the C++ standard KokkosCore_config.h names (C++14
// for Kokkos 3.x), and links lib/libkokkoscore.so and libkokkoscontainers.so
// there. Views and execution-space instances arrive as pybind11 objects and
// are cast as pykokkos' generated code casts them.
#include <pybind11/pybind11.h>

#include <Kokkos_Core.hpp>
#include <Kokkos_DynRankView.hpp>

#include <string>

#ifndef KOKKOS_PYTHON_PYBIND11_HPP
#error "include/kokkos/Kokkos_Core.hpp did not bring in kokkos_python/pybind11.hpp"
#endif

using view_1d = Kokkos::View<double *, Kokkos::LayoutRight, Kokkos::HostSpace>;
using view_2d = Kokkos::View<int64_t **, Kokkos::LayoutRight, Kokkos::HostSpace>;
using dyn_view = Kokkos::DynRankView<float, Kokkos::LayoutRight, Kokkos::HostSpace>;

// As pykokkos' bindings: arguments come in kwargs and are cast one by one.
static double scale(pybind11::kwargs arg_kwargs) {
  auto space = arg_kwargs["space"].cast<Kokkos::DefaultHostExecutionSpace>();
  auto x = arg_kwargs["x"].cast<view_1d>();
  const double factor = arg_kwargs["factor"].cast<double>();
  double sum = 0.0;
  Kokkos::parallel_reduce(
      "scale", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(space, 0, x.extent(0)),
      [=](const int i, double &acc) {
        x(i) *= factor;
        acc += x(i);
      },
      sum);
  space.fence();
  return sum;
}

static int64_t fill_2d(pybind11::object arg_obj) {
  auto v = arg_obj.cast<view_2d>();
  int64_t total = 0;
  for (size_t i = 0; i < v.extent(0); ++i)
    for (size_t j = 0; j < v.extent(1); ++j) {
      v(i, j) = static_cast<int64_t>(10 * i + j);
      total += v(i, j);
    }
  return total;
}

static int dyn_rank(pybind11::object arg_obj) { return static_cast<int>(arg_obj.cast<dyn_view>().rank()); }

static view_1d make(size_t arg_n) {
  view_1d v("made_in_cxx", arg_n);
  for (size_t i = 0; i < arg_n; ++i) v(i) = 0.5 * static_cast<double>(i);
  return v;
}

// An execution-space instance alone: the caster builds the C++ instance
// for this call only (Kokkos initialized; refused once finalized).
static int concurrency(pybind11::kwargs arg_kwargs) {
  return arg_kwargs["space"].cast<Kokkos::DefaultHostExecutionSpace>().concurrency();
}

static std::string standard() { return std::to_string(__cplusplus); }

PYBIND11_MODULE(kp_test_pykokkos_style, m) {
  m.def("scale", &scale);
  m.def("fill_2d", &fill_2d);
  m.def("dyn_rank", &dyn_rank);
  m.def("make", &make);
  m.def("concurrency", &concurrency);
  m.def("standard", &standard);
}
