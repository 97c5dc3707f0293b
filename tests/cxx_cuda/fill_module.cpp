// A bound C++ library that works on CudaSpace Views: make_filled returns a
// View filled on the GPU; scale multiplies a View Python hands in, on the GPU.
#include <kokkos_python/pybind11.hpp>

#include <Kokkos_Core.hpp>

using device_view = Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::CudaSpace>;

struct fill_functor {
  device_view m_view;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const { m_view(i, j) = 1000.0 * i + j; }
};

struct scale_functor {
  device_view m_view;
  double m_factor;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const { m_view(i, j) *= m_factor; }
};

device_view make_filled(int n, int m) {
  device_view v("filled_on_gpu", n, m);
  Kokkos::parallel_for("fill", Kokkos::MDRangePolicy<Kokkos::Cuda, Kokkos::Rank<2>>({0, 0}, {n, m}), fill_functor{v});
  Kokkos::fence();
  return v;
}

void scale(device_view v, double factor) {
  Kokkos::parallel_for("scale",
                       Kokkos::MDRangePolicy<Kokkos::Cuda, Kokkos::Rank<2>>(
                           {0, 0}, {static_cast<int>(v.extent(0)), static_cast<int>(v.extent(1))}),
                       scale_functor{v, factor});
  Kokkos::fence();
}

PYBIND11_MODULE(kp_cuda_fill, m) {
  if (kokkos_python::import("kp_cuda_fill") < 0) throw pybind11::error_already_set();
  m.def("make_filled", &make_filled);
  m.def("scale", &scale);
}
