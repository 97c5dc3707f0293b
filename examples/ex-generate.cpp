// ex-generate.cpp: Python bindings of the user's library (user.hpp) with
// pybind11. Kokkos Views cross the boundary as kokkos.View objects through
// the casters of kokkos_python/pybind11.hpp: no copies, shared ownership.
#include <kokkos_python/pybind11.hpp>

#include "user.hpp"

namespace py = pybind11;

PYBIND11_MODULE(ex_generate, m) {
  // Imports the kokkos package and checks that this module and the package
  // share one Kokkos library.
  if (kokkos_python::import("ex_generate") < 0) throw py::error_already_set();
  m.doc() = "The seed's example bindings (pybind11): generate_view and modify_view";
  m.def("generate_view", &generate_view, py::arg("n"),
        "A Kokkos::View<double**, HostSpace> of shape (n, 2) holding -(i+1), i+1.");
  m.def("modify_view", &modify_view, py::arg("view"), "Doubles every value of the View in place.");
}
