// solver.cpp: a C++ Kokkos "solver" that calls a Python "emulator" on its
// Views every step, without copies (docs/embedding.md).
//
// The application owns Kokkos: it initializes Kokkos before the interpreter
// starts and finalizes it after the interpreter ends. Its Views live in the
// default execution space's memory (CudaSpace with a CUDA Kokkos); Python
// receives them as kokkos.View objects (the pybind11 casters of
// kokkos_python/pybind11.hpp) and writes into them through NumPy, CuPy or
// PyTorch (emulator.py), ordered after the solver's kernels.
//
//   solver [steps]      exits 0 and prints "solver ok" when the result is right
#include <kokkos_python/pybind11.hpp>
#include <pybind11/embed.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace py = pybind11;

using Field = Kokkos::View<double *, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace::memory_space>;

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  int status = 0;
  {
    const int n = 1 << 16;
    const int steps = argc > 1 ? std::atoi(argv[1]) : 20;
    Field u("u", n), tendency("tendency", n);
    Kokkos::parallel_for("init", n, KOKKOS_LAMBDA(int i) { u(i) = 1.0 + i % 7; });
    {
      py::scoped_interpreter python;
      try {
        py::module_ emulator = py::module_::import("emulator");
        for (int step = 0; step < steps; ++step) {
          // Python writes the tendency in place: -u/2
          emulator.attr("tendency")(u, tendency, step);
          Kokkos::parallel_for("apply", n, KOKKOS_LAMBDA(int i) { u(i) += 0.1 * tendency(i); });
        }
        std::printf("solver: %d steps through %s\n", steps, emulator.attr("backend")(u).cast<std::string>().c_str());
      } catch (const py::error_already_set &e) {
        std::fprintf(stderr, "solver: the emulator failed: %s\n", e.what());
        status = 1;
      }
    }  // the interpreter ends here; the application's Kokkos keeps running
    if (!Kokkos::is_initialized()) {
      std::fprintf(stderr, "solver: Kokkos was finalized with the interpreter\n");
      return 1;
    }
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u);
    const double factor = std::pow(0.95, steps);
    for (int i = 0; i < n && status == 0; ++i)
      if (std::abs(host(i) - (1.0 + i % 7) * factor) > 1e-12 * (1.0 + i % 7)) {
        std::fprintf(stderr, "solver: u(%d) = %.17g, expected %.17g\n", i, host(i), (1.0 + i % 7) * factor);
        status = 1;
      }
  }
  Kokkos::finalize();
  if (status == 0) std::printf("solver ok\n");
  return status;
}
