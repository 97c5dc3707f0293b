// pyb_main.cpp: kp_test_pyb, the pybind11 test module (tests/test_cxx.py).
#include <kokkos_python/pybind11.hpp>
#include <pybind11/stl.h>

#include "misc.hpp"

#include <thread>

namespace py = pybind11;

void kp_test_register_right(py::module_ &m);
void kp_test_register_left(py::module_ &m);
void kp_test_register_stride(py::module_ &m);
void kp_test_register_dyn_rank(py::module_ &m);

PYBIND11_MODULE(kp_test_pyb, m) {
  if (kokkos_python::import("kp_test_pyb") < 0) throw py::error_already_set();
  kp_test::register_misc<py::handle>(m);
  m.def(
      "scale_noconvert",
      [](kp_test::V1 v, double a) {
        for (std::size_t i = 0; i < v.extent(0); ++i) v(i) *= a;
      },
      py::arg("v").noconvert(), py::arg("a"));
  // The last C++ copy of a View over Python memory dies on another thread,
  // while this one has released the GIL: the record must take the GIL.
  m.def("release_held_on_thread", [] {
    py::gil_scoped_release nogil;
    std::thread t([] { kp_test::held().clear(); });
    t.join();
  });
  // A View handed over the way modules built with C++ layer version 1 (C API
  // version 1) did: a heap copy of the Kokkos::View through
  // view_from_deleter. from_python must still return the original View.
  m.def("make_kept_v1", [](std::size_t n) {
    using holder = kokkos_python::detail::view_holder<kp_test::V2, 1>;
    kp_test::V2 v = kp_test::make<kp_test::V2>("kept_v1", {n, 2});
    kp_test::held().push_back(v);
    const std::string label = v.label();
    kokkos_python_view_desc desc;
    kokkos_python::detail::describe(v, label, desc);
    auto *copy = new holder(v);
    PyObject *obj = kokkos_python::api()->view_from_deleter(&desc, &holder::release, copy, 1, holder::tag());
    if (!obj) {
      delete copy;
      throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(obj);
  });
  kp_test_register_right(m);
  kp_test_register_left(m);
  kp_test_register_stride(m);
  kp_test_register_dyn_rank(m);
}
