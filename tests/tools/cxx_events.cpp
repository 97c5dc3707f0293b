// cxx_events.cpp: C++ Kokkos code that raises Kokkos Tools events, for the
// tests of Python callbacks. Built by the tests against the Kokkos the
// kokkos package runs (one Kokkos runtime in the process) and loaded with
// ctypes, which releases the GIL while these functions run: the events reach
// Python from threads that do not hold it.

#include <Kokkos_Core.hpp>

#include <string>
#include <thread>
#include <vector>

extern "C" {

// Kernels, a View allocation and deallocation, a labelled deep copy,
// regions, a section, an event and metadata, all from C++.
int kp_test_cxx_events(void) {
  using exec = Kokkos::DefaultHostExecutionSpace;
  {
    Kokkos::View<double *, exec::memory_space> a("cxx_source", 10);
    Kokkos::View<double *, exec::memory_space> b("cxx_target", 10);
    Kokkos::Tools::pushRegion("cxx_region");
    Kokkos::parallel_for(
        "cxx_parallel_for", Kokkos::RangePolicy<exec>(0, 10), KOKKOS_LAMBDA(const int i) { a(i) = i; });
    double sum = 0;
    Kokkos::parallel_reduce(
        "cxx_parallel_reduce", Kokkos::RangePolicy<exec>(0, 10), KOKKOS_LAMBDA(const int i, double &s) { s += a(i); },
        sum);
    Kokkos::parallel_scan(
        "cxx_parallel_scan", Kokkos::RangePolicy<exec>(0, 10), KOKKOS_LAMBDA(const int i, double &s, const bool final) {
          s += a(i);
          if (final) b(i) = s;
        });
    Kokkos::deep_copy(b, a);
    Kokkos::Tools::popRegion();
    uint32_t section = 0;
    Kokkos::Tools::createProfileSection("cxx_section", &section);
    Kokkos::Tools::startSection(section);
    Kokkos::Tools::stopSection(section);
    Kokkos::Tools::destroyProfileSection(section);
    Kokkos::Tools::markEvent("cxx_event");
    Kokkos::Tools::declareMetadata("cxx_key", "cxx_value");
    if (sum != 45.0) return 1;
  }
  return 0;
}

// nthreads C++ threads each push/pop a region and mark an event iterations
// times ("thread_<t>"); returns when all joined.
int kp_test_threads(int nthreads, int iterations) {
  std::vector<std::thread> threads;
  for (int t = 0; t < nthreads; ++t) {
    threads.emplace_back([t, iterations] {
      const std::string name = "thread_" + std::to_string(t);
      for (int i = 0; i < iterations; ++i) {
        Kokkos::Tools::pushRegion(name);
        Kokkos::Tools::markEvent(name);
        Kokkos::Tools::popRegion();
      }
    });
  }
  for (auto &th : threads) th.join();
  return 0;
}

// dual_view_sync / dual_view_modify events as Kokkos' DualView raises them.
int kp_test_dual_view_events(void) {
  static double data[4];
  Kokkos::Tools::syncDualView("cxx_dual_view", data, true);
  Kokkos::Tools::modifyDualView("cxx_dual_view", data, false);
  return 0;
}

// Kokkos::Tools' begin/end calls as Kokkos' own kernels and fences make
// them; out[0..3] receive the ids the begin callbacks returned (for
// parallel_for, parallel_reduce, parallel_scan, fence).
int kp_test_begin_end(uint64_t *out) {
  uint64_t id = 0;
  Kokkos::Tools::beginParallelFor("cxx_begin_for", 3, &id);
  out[0] = id;
  Kokkos::Tools::endParallelFor(id);
  id = 0;
  Kokkos::Tools::beginParallelReduce("cxx_begin_reduce", 3, &id);
  out[1] = id;
  Kokkos::Tools::endParallelReduce(id);
  id = 0;
  Kokkos::Tools::beginParallelScan("cxx_begin_scan", 3, &id);
  out[2] = id;
  Kokkos::Tools::endParallelScan(id);
  id = 0;
  Kokkos::Tools::beginFence("cxx_fence", 7, &id);
  out[3] = id;
  Kokkos::Tools::endFence(id);
  return 0;
}

// Allocates and frees "cxx_probe", a View of n doubles.
int kp_test_allocate(int n) {
  Kokkos::View<double *, Kokkos::HostSpace> v("cxx_probe", n);
  return v.extent(0) == static_cast<size_t>(n) ? 0 : 1;
}
}
