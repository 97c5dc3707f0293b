// nb_bench_module.cpp: kp_bench_cxx_nb, the View functions of
// bench_module.cpp bound with nanobind.
#include <kokkos_python/nanobind.hpp>

#include <nanobind/ndarray.h>

#include <cstring>

using V1 = Kokkos::View<double *, Kokkos::HostSpace>;

NB_MODULE(kp_bench_cxx_nb, m) {
  if (kokkos_python::import("kp_bench_cxx_nb") < 0) throw nanobind::python_error();
  m.def("view_in", [](V1 v) { return v(0); });
  m.def("view_in_out", [](V1 v) { return v; });
  m.def("view_alloc_only", [](std::size_t n) { return V1("bench", n).extent(0); });
  m.def("view_new", [](std::size_t n) { return V1("bench", n); });
  // the NumPy counterpart: a new zero-filled array handed over as nanobind's ndarray
  m.def("array_new", [](std::size_t n) {
    double *data = new double[n];
    std::memset(data, 0, n * sizeof(double));
    nanobind::capsule owner(data, [](void *p) noexcept { delete[] static_cast<double *>(p); });
    return nanobind::ndarray<nanobind::numpy, double, nanobind::ndim<1>>(data, {n}, owner);
  });
}
