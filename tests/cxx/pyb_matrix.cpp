// pyb_matrix.cpp: one part of kp_test_pyb's View type matrix, chosen by
// KP_TEST_PART (0: LayoutRight, 1: LayoutLeft, 2: LayoutStride, 3:
// DynRankView), so the parts compile in parallel.
#include <kokkos_python/pybind11.hpp>
#include <pybind11/stl.h>

#include "views.hpp"

namespace py = pybind11;

#if KP_TEST_PART == 0
void kp_test_register_right(py::module_ &m) { kp_test::register_matrix<Kokkos::LayoutRight>(m); }
#elif KP_TEST_PART == 1
void kp_test_register_left(py::module_ &m) { kp_test::register_matrix<Kokkos::LayoutLeft>(m); }
#elif KP_TEST_PART == 2
void kp_test_register_stride(py::module_ &m) { kp_test::register_matrix<Kokkos::LayoutStride>(m); }
#else
void kp_test_register_dyn_rank(py::module_ &m) { kp_test::register_dyn_rank(m); }
#endif
