// embed_bench.cpp: the per-call cost of calling a Python function from C++
// with four Kokkos Views (the package's pybind11 casters), against the same
// call with four pybind11::array objects made from the Views' data pointers
// (no copy: an empty capsule as their base), which is what C++ codes do
// without the package. Two Python functions: one that does nothing (the
// hand-over alone) and one that takes each argument as a NumPy array.
// Each pair is timed back to back (each timing the best of three), round
// after round; the median ratio of the rounds is printed.
//
// `embed_bench count views|arrays N` makes N calls of the first function
// only, with one kind of argument, and prints nothing: bench_embed.py
// --callgrind runs it under valgrind at two N and prints the instructions
// per call (the difference over the difference).
#include <kokkos_python/pybind11.hpp>
#include <pybind11/embed.h>
#include <pybind11/numpy.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace py = pybind11;
using Field = Kokkos::View<double *, Kokkos::LayoutRight, Kokkos::HostSpace>;

namespace {

// Seconds per call: the best of three timings of arg_calls calls (as
// bench/timing.py's per_call), so that another process taking the core for
// a moment does not count.
template <class F>
double seconds_per_call(F &&arg_call, int arg_calls) {
  double best = 0;
  for (int repeat = 0; repeat < 3; ++repeat) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < arg_calls; ++i) arg_call();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / arg_calls;
    if (repeat == 0 || t < best) best = t;
  }
  return best;
}

py::array wrap(const Field &arg_field, const py::capsule &arg_base) {
  return py::array(py::dtype::of<double>(), {arg_field.extent(0)}, {sizeof(double)}, arg_field.data(), arg_base);
}

void compare(const char *arg_case, py::object arg_function, const Field (&arg_fields)[4]) {
  const py::capsule base(new int(0), [](void *p) { delete static_cast<int *>(p); });
  auto views = [&] { arg_function(arg_fields[0], arg_fields[1], arg_fields[2], arg_fields[3]); };
  auto arrays = [&] {
    arg_function(wrap(arg_fields[0], base), wrap(arg_fields[1], base), wrap(arg_fields[2], base),
                 wrap(arg_fields[3], base));
  };
  const int calls = 5000, rounds = 15;
  views();
  arrays();
  std::vector<double> ratios, ours, theirs;
  for (int round = 0; round < rounds; ++round) {
    const double o = seconds_per_call(views, calls), r = seconds_per_call(arrays, calls);
    ratios.push_back(o / r);
    ours.push_back(o);
    theirs.push_back(r);
  }
  std::sort(ratios.begin(), ratios.end());
  std::sort(ours.begin(), ours.end());
  std::sort(theirs.begin(), theirs.end());
  const int mid = rounds / 2;
  std::printf("%-52s %8.0f ns %8.0f ns %6.2fx\n", arg_case, ours[mid] * 1e9, theirs[mid] * 1e9, ratios[mid]);
}

// The calls alone, for instruction counts.
void count(py::object arg_function, const Field (&arg_fields)[4], bool arg_views, long arg_calls) {
  const py::capsule base(new int(0), [](void *p) { delete static_cast<int *>(p); });
  for (long i = 0; i < arg_calls; ++i) {
    if (arg_views)
      arg_function(arg_fields[0], arg_fields[1], arg_fields[2], arg_fields[3]);
    else
      arg_function(wrap(arg_fields[0], base), wrap(arg_fields[1], base), wrap(arg_fields[2], base),
                   wrap(arg_fields[3], base));
  }
}

}  // namespace

int main(int argc, char **argv) {
  const bool counting = argc == 4 && std::strcmp(argv[1], "count") == 0;
  if (argc != 1 && !counting) {
    std::fprintf(stderr, "usage: %s [count views|arrays CALLS]\n", argv[0]);
    return 2;
  }
  Kokkos::initialize();
  {
    const Field fields[4] = {Field("u", 1000), Field("v", 1000), Field("w", 1000), Field("x", 1000)};
    py::scoped_interpreter python;
    py::dict ns;
    py::exec(R"(
import numpy as np
def nothing(a, b, c, d):
    pass
def as_numpy(a, b, c, d):
    np.asarray(a); np.asarray(b); np.asarray(c); np.asarray(d)
)",
             ns);
    if (counting) {
      count(ns["nothing"], fields, std::strcmp(argv[2], "views") == 0, std::atol(argv[3]));
    } else {
      std::printf("%-52s %11s %11s %7s\n", "Python function called from C++ with 4 arrays", "Views", "py::array",
                  "ratio");
      compare("def f(a, b, c, d): pass", ns["nothing"], fields);
      compare("def f(a, b, c, d): np.asarray(each)", ns["as_numpy"], fields);
    }
  }
  Kokkos::finalize();
}
