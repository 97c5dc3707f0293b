// A bound C++ library that works on CudaSpace Views: make_filled returns a
// View filled on the GPU; scale multiplies a View Python hands in, on the GPU.
// For the stream-ordering tests: fill_async queues a slow kernel on Kokkos'
// default CUDA instance and returns without a fence; sum reduces a View on
// that instance; kokkos_stream and kokkos_stream_busy describe its stream.
// view_seen_by_kernel reports what a kernel reads of a View it captured.
#include <kokkos_python/pybind11.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

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

using device_vector = Kokkos::View<double *, Kokkos::CudaSpace>;

// Each thread waits about arg_cycles GPU clock cycles, then writes.
struct slow_fill_functor {
  device_vector m_view;
  double m_value;
  long long m_cycles;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
#if defined(__CUDA_ARCH__)
    const long long start = clock64();
    while (clock64() - start < m_cycles) {
    }
#endif
    m_view(i) = m_value;
  }
};

void fill_async(device_vector v, double value, long long cycles) {
  Kokkos::parallel_for("slow_fill", Kokkos::RangePolicy<Kokkos::Cuda>(0, static_cast<int>(v.extent(0))),
                       slow_fill_functor{v, value, cycles});
}

struct sum_functor {
  device_vector m_view;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, double &arg_acc) const { arg_acc += m_view(i); }
};

double sum(device_vector v) {
  double total = 0;
  Kokkos::parallel_reduce("sum", Kokkos::RangePolicy<Kokkos::Cuda>(0, static_cast<int>(v.extent(0))), sum_functor{v},
                          total);
  return total;
}

// What a kernel sees of a View it captured, against what the host sees: the
// data address, the extent, and the size of the functor, each as the host
// code and the device code of this module compiled them. (With CUDA 13 and
// the mdspan View they differed: include/kokkos_python/compat.hpp.)
struct where_functor {
  device_vector m_view;
  Kokkos::View<std::uint64_t *, Kokkos::CudaSpace> m_out;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    m_out(0) = reinterpret_cast<std::uint64_t>(m_view.data());
    m_out(1) = static_cast<std::uint64_t>(m_view.extent(0));
    m_out(2) = sizeof(where_functor);
  }
};

pybind11::tuple view_seen_by_kernel(device_vector v) {
  Kokkos::View<std::uint64_t *, Kokkos::CudaSpace> out("out", 3);
  Kokkos::parallel_for("where", Kokkos::RangePolicy<Kokkos::Cuda>(0, 1), where_functor{v, out});
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return pybind11::make_tuple(reinterpret_cast<std::uint64_t>(v.data()), static_cast<std::uint64_t>(v.extent(0)),
                              sizeof(where_functor), host(0), host(1), host(2));
}

std::uintptr_t kokkos_stream() { return reinterpret_cast<std::uintptr_t>(Kokkos::Cuda().cuda_stream()); }

bool kokkos_stream_busy() { return cudaStreamQuery(Kokkos::Cuda().cuda_stream()) == cudaErrorNotReady; }

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

// As pykokkos' generated code takes its arguments: an object cast explicitly.
void scale_cast(pybind11::object arg_obj, double factor) { scale(arg_obj.cast<device_view>(), factor); }

// pykokkos' test_hierarchical::outer_for written in Kokkos C++: each team's
// thread 0 alone enters a TeamThreadRange reduction (a team collective) and
// writes the result. Right only when a team has one thread (Serial, OpenMP
// as pykokkos runs them); team_size 0 means Kokkos::AUTO.
struct outer_for_functor {
  device_vector m_out;
  int m_count;
  double m_value;
  using member = Kokkos::TeamPolicy<Kokkos::Cuda>::member_type;
  KOKKOS_INLINE_FUNCTION void operator()(const member &team) const {
    if (team.team_rank() == 0) {
      double total = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, m_count), [&](const int, double &acc) { acc += m_value; }, total);
      m_out(team.league_rank()) = total;
    }
  }
};

device_vector outer_for(int league, int count, double value, int team_size) {
  device_vector out("outer_for", league);
  const auto policy = team_size > 0 ? Kokkos::TeamPolicy<Kokkos::Cuda>(league, team_size)
                                    : Kokkos::TeamPolicy<Kokkos::Cuda>(league, Kokkos::AUTO);
  Kokkos::parallel_for("outer_for", policy, outer_for_functor{out, count, value});
  Kokkos::fence();
  return out;
}

PYBIND11_MODULE(kp_cuda_fill, m) {
  if (kokkos_python::import("kp_cuda_fill") < 0) throw pybind11::error_already_set();
  m.def("make_filled", &make_filled);
  m.def("scale", &scale);
  m.def("scale_cast", &scale_cast);
  m.def("fill_async", &fill_async);
  m.def("sum", &sum);
  m.def("kokkos_stream", &kokkos_stream);
  m.def("view_seen_by_kernel", &view_seen_by_kernel);
  m.def("kokkos_stream_busy", &kokkos_stream_busy);
  m.def("outer_for", &outer_for);
}
