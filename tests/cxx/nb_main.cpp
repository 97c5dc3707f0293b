// nb_main.cpp: kp_test_nb, the nanobind test module (tests/test_cxx.py):
// the same functions as kp_test_pyb, with a smaller type matrix (every
// dtype at rank 2, ranks 1..8 of float64 in every layout, DynRankView).
#include <kokkos_python/nanobind.hpp>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "misc.hpp"

#include <thread>

namespace nb = nanobind;

NB_MODULE(kp_test_nb, m) {
  if (kokkos_python::import("kp_test_nb") < 0) throw nb::python_error();
  kp_test::register_misc<nb::handle>(m);
  m.def(
      "scale_noconvert",
      [](kp_test::V1 v, double a) {
        for (std::size_t i = 0; i < v.extent(0); ++i) v(i) *= a;
      },
      nb::arg("v").noconvert(), nb::arg("a"));
  m.def("release_held_on_thread", [] {
    nb::gil_scoped_release nogil;
    std::thread t([] { kp_test::held().clear(); });
    t.join();
  });
#define KP_TEST_X(T, NAME) \
  kp_test::register_view<Kokkos::View<T **, Kokkos::LayoutRight, Kokkos::HostSpace>>(m, NAME "_2_right");
  KP_TEST_DTYPES(KP_TEST_X)
#undef KP_TEST_X
  kp_test::register_ranks<double, Kokkos::LayoutLeft, 1>(m, "float64");
  kp_test::register_ranks<double, Kokkos::LayoutStride, 1>(m, "float64");
  kp_test::register_view<Kokkos::View<double *, Kokkos::LayoutRight, Kokkos::HostSpace>>(m, "float64_1_right");
  kp_test::register_view<Kokkos::View<double ***, Kokkos::LayoutRight, Kokkos::HostSpace>>(m, "float64_3_right");
  kp_test::register_view<Kokkos::View<double ********, Kokkos::LayoutRight, Kokkos::HostSpace>>(m, "float64_8_right");
  kp_test::register_view<Kokkos::DynRankView<double, Kokkos::LayoutRight, Kokkos::HostSpace>>(m, "drv_float64_right");
  kp_test::register_view<Kokkos::DynRankView<double, Kokkos::LayoutLeft, Kokkos::HostSpace>>(m, "drv_float64_left");
  kp_test::register_view<Kokkos::DynRankView<double, Kokkos::LayoutStride, Kokkos::HostSpace>>(m, "drv_float64_stride");
  kp_test::register_view<Kokkos::DynRankView<std::int32_t, Kokkos::LayoutRight, Kokkos::HostSpace>>(m,
                                                                                                    "drv_int32_right");
}
