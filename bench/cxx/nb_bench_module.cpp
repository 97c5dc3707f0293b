// nb_bench_module.cpp: kp_bench_cxx_nb, the View functions of
// bench_module.cpp bound with nanobind.
#include <kokkos_python/nanobind.hpp>

using V1 = Kokkos::View<double *, Kokkos::HostSpace>;

NB_MODULE(kp_bench_cxx_nb, m) {
  if (kokkos_python::import("kp_bench_cxx_nb") < 0) throw nanobind::python_error();
  m.def("view_in", [](V1 v) { return v(0); });
  m.def("view_in_out", [](V1 v) { return v; });
  m.def("view_new", [](std::size_t n) { return V1("bench", n); });
}
