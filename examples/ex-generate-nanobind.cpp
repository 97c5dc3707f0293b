// ex-generate-nanobind.cpp: the bindings of ex-generate.cpp, with nanobind
// (kokkos_python/nanobind.hpp). Built as a module also named ex_generate,
// in its own directory, so ex-numpy.py runs unchanged with either.
#include <kokkos_python/nanobind.hpp>

#include "user.hpp"

namespace nb = nanobind;

NB_MODULE(ex_generate, m) {
  if (kokkos_python::import("ex_generate") < 0) throw nb::python_error();
  m.doc() = "The seed's example bindings (nanobind): generate_view and modify_view";
  m.def("generate_view", &generate_view, nb::arg("n"),
        "A Kokkos::View<double**, HostSpace> of shape (n, 2) holding -(i+1), i+1.");
  m.def("modify_view", &modify_view, nb::arg("view"), "Doubles every value of the View in place.");
}
