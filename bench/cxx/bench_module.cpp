// bench_module.cpp: kp_bench_cxx, the functions bench/bench_cxx.py times:
// the same work taking / returning a Kokkos View (through the kokkos_python
// casters) and a NumPy array (pybind11's py::array_t<double>).
#include <kokkos_python/pybind11.hpp>
#include <pybind11/numpy.h>

#include <vector>

namespace py = pybind11;
using V1 = Kokkos::View<double *, Kokkos::HostSpace>;

PYBIND11_MODULE(kp_bench_cxx, m) {
  if (kokkos_python::import("kp_bench_cxx") < 0) throw py::error_already_set();
  // in: read one element
  m.def("view_in", [](V1 v) { return v(0); });
  m.def("array_in", [](py::array_t<double> a) { return a.data()[0]; });
  // in and out: the same memory back
  m.def("view_in_out", [](V1 v) { return v; });
  m.def("array_in_out", [](py::array_t<double> a) { return a; });
  m.def("array_in_new_out", [](py::array_t<double> a) {
    return py::array_t<double>({a.shape(0)}, {a.strides(0)}, a.data(), a);  // a new array over a's memory
  });
  // out: memory C++ already holds, as a new Python object sharing it
  static V1 *s_view = nullptr;
  static std::vector<double> s_vector(1000, 0.0);
  m.def("view_held", [] {
    if (!s_view) {
      s_view = new V1("held", 1000);
      Kokkos::push_finalize_hook([] {
        delete s_view;
        s_view = nullptr;
      });
    }
    return *s_view;
  });
  static py::capsule s_owner(&s_vector, "held vector");  // lives with the module
  m.def("array_held",
        [] { return py::array_t<double>({s_vector.size()}, {sizeof(double)}, s_vector.data(), s_owner); });
  // out: a new allocation made in C++ (the Kokkos allocation alone: view_alloc_only)
  m.def("view_alloc_only", [](std::size_t n) { return V1("bench", n).extent(0); });
  m.def("view_new", [](std::size_t n) { return V1("bench", n); });
  m.def("array_new", [](std::size_t n) {
    py::array_t<double> a(n);
    std::fill(a.mutable_data(), a.mutable_data() + n, 0.0);
    return a;
  });
}
