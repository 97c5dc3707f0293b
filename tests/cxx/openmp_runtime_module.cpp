// openmp_runtime_module.cpp: a C++ module built against an installed
// package with `python -m kokkos --cxxflags --includes --ldflags`
// (tests/test_internal_kokkos.py, the binary wheel). It runs OpenMP kernels
// in this module's code, as every module built with -fopenmp does, and
// reports what goes wrong when the module's OpenMP runtime is not the one
// the package's Kokkos started its threads on: Kokkos' per-thread id then
// reads 0 on every thread, and a Kokkos random pool hands one state to two
// threads at once.
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <omp.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

// Iterations of n on which Kokkos' thread id differs from OpenMP's.
long thread_id_mismatches(long n) {
  long bad = 0;
  Kokkos::parallel_reduce(
      "thread_ids", Kokkos::RangePolicy<Kokkos::OpenMP>(0, n),
      [](long, long &count) {
        if (Kokkos::OpenMP::impl_hardware_thread_id() != omp_get_thread_num()) ++count;
      },
      bad);
  return bad;
}

// n draws from a Random_XorShift64_Pool seeded with seed, 128 from each
// state taken, as Kokkos::fill_random draws: (values drawn more than once,
// a checksum of the sorted values).
pybind11::tuple draws(long n, std::uint64_t seed) {
  constexpr long per_state = 128;
  n -= n % per_state;
  Kokkos::View<std::uint64_t *, Kokkos::HostSpace> out("draws", n);
  Kokkos::Random_XorShift64_Pool<Kokkos::OpenMP> pool(seed);
  Kokkos::parallel_for("draws", Kokkos::RangePolicy<Kokkos::OpenMP>(0, n / per_state), [=](long i) {
    auto state = pool.get_state();
    for (long j = 0; j < per_state; ++j) out(i * per_state + j) = state.urand64();
    pool.free_state(state);
  });
  Kokkos::fence();
  std::vector<std::uint64_t> values(out.data(), out.data() + n);
  std::sort(values.begin(), values.end());
  long repeats = 0;
  std::uint64_t checksum = 1469598103934665603ull;
  for (long i = 0; i < n; ++i) {
    if (i > 0 && values[i] == values[i - 1]) ++repeats;
    checksum = (checksum ^ values[i]) * 1099511628211ull;
  }
  return pybind11::make_tuple(repeats, checksum);
}

int concurrency() { return Kokkos::OpenMP().concurrency(); }

}  // namespace

PYBIND11_MODULE(kp_openmp_runtime, m) {
  m.def("thread_id_mismatches", &thread_id_mismatches);
  m.def("draws", &draws);
  m.def("concurrency", &concurrency);
}
