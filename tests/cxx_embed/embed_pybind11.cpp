// embed_pybind11.cpp: a C++ program that embeds Python with pybind11 and
// hands it Kokkos Views (tests/test_embed.py). One scenario per run:
//
//   embed_pybind11 app_owns             the application initializes Kokkos, Python
//                                       writes its Views, Kokkos outlives the interpreter
//   embed_pybind11 python_owns          Python initializes Kokkos, and finalizes it
//                                       when the interpreter ends
//   embed_pybind11 library_initializes  Python first, then C++ code initializes
//                                       Kokkos: it stays the C++ side's to finalize
//   embed_pybind11 app_finalizes_first  the application finalizes Kokkos while the
//                                       interpreter runs: Python's Views read as released
//   embed_pybind11 cuda_writers         CudaSpace Views written by CuPy and PyTorch on
//                                       their own streams (a CUDA Kokkos only)
//
// Prints "embed ok" and exits 0 when every check held; "FAILED: ..." otherwise.
#include <kokkos_python/pybind11.hpp>
#include <pybind11/embed.h>

#include "scenario.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace py = pybind11;
using Matrix = Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace>;
using Vector = Kokkos::View<double *, Kokkos::HostSpace>;

namespace {

using kp_test::check;

const char *const python_side = R"(
import kokkos, numpy as np

def scale(a, b, factor):
    np.asarray(b)[...] = factor * np.asarray(a)

def refuse(a):
    raise ValueError(f"the emulator refuses {a.label!r} of shape {a.shape}")

def make(n, value):
    v = kokkos.array("made_in_python", [n], dtype=kokkos.double)
    np.asarray(v)[...] = value
    return v
)";

py::module_ python_module() {
  py::module_ m = py::module_::import("__main__");
  py::exec(python_side, m.attr("__dict__"));
  return m;
}

void app_owns() {
  Kokkos::initialize();
  {
    Matrix a("a", 3, 4), b("b", 3, 4);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) a(i, j) = 10 * i + j;
    Vector kept("unset", 0);  // not default-constructed: see docs/building.md on GCC 12 and Kokkos 4.7
    {
      py::scoped_interpreter python;
      py::module_ m = python_module();
      check(py::module_::import("kokkos").attr("is_initialized")().cast<bool>(), "Python sees Kokkos initialized");
      m.attr("scale")(a, b, 2.0);
      check(b(2, 3) == 2 * 23.0 && b(0, 1) == 2.0, "Python's writes reach the C++ View");
      try {
        m.attr("refuse")(a);
        check(false, "the Python exception reaches C++");
      } catch (const py::error_already_set &e) {
        check(e.matches(PyExc_ValueError), "the exception keeps its type");
        check(std::strstr(e.what(), "the emulator refuses 'a' of shape [3, 4]") != nullptr,
              "the exception keeps its message");
      }
      kept = m.attr("make")(5, 7.0).cast<Vector>();
      check(kept.extent(0) == 5 && kept(4) == 7.0, "a View made in Python arrives in C++");
    }
    check(Kokkos::is_initialized(), "the application's Kokkos outlives the interpreter");
    check(kept(0) == 7.0 && kept(4) == 7.0, "the Python-made View stays valid after the interpreter");
    Vector after("after", 8);
    check(after.extent(0) == 8, "Kokkos allocates after the interpreter ended");
  }  // kept, a, b and after are freed here, by Kokkos, with no Python call
  Kokkos::finalize();
}

void python_owns() {
  {
    py::scoped_interpreter python;
    py::module_ kokkos = py::module_::import("kokkos");
    check(kokkos.attr("initialize")().cast<bool>(), "kokkos.initialize() initializes Kokkos");
    {
      Matrix a("a", 2, 2), b("b", 2, 2);
      a(1, 1) = 3.0;
      python_module().attr("scale")(a, b, 3.0);
      check(b(1, 1) == 9.0, "Python's writes reach the C++ View");
    }
  }  // the package initialized Kokkos, so its exit handler finalizes it
  check(!Kokkos::is_initialized(), "Kokkos is finalized with the interpreter that initialized it");
}

void library_initializes() {
  {
    py::scoped_interpreter python;
    py::module_ kokkos = py::module_::import("kokkos");
    // a C++ library initializing Kokkos when nobody has
    if (!Kokkos::is_initialized()) Kokkos::initialize();
    check(!kokkos.attr("initialize")().cast<bool>(), "kokkos.initialize() leaves the library's Kokkos alone");
    py::object v = python_module().attr("make")(4, 1.5);
    Vector w = v.cast<Vector>();
    check(w(3) == 1.5, "a View made in Python arrives in C++");
  }
  check(Kokkos::is_initialized(), "the library's Kokkos outlives the interpreter");
  Kokkos::finalize();
}

void app_finalizes_first() {
  Kokkos::initialize();
  py::scoped_interpreter python;
  py::module_ m = python_module();
  py::exec("held = make(3, 2.0)", m.attr("__dict__"));
  Kokkos::finalize();  // releases the Python View's Kokkos memory first
  py::exec(R"(
try:
    held[0]
except RuntimeError as e:
    message = str(e)
else:
    message = "no error"
)",
           m.attr("__dict__"));
  const std::string message = m.attr("message").cast<std::string>();
  check(message.find("made_in_python") != std::string::npos, "using a released View names it: " + message);
}

#if defined(KOKKOS_ENABLE_CUDA)
using Device = Kokkos::View<double *, Kokkos::CudaSpace>;

void cuda_writers() {
  Kokkos::initialize();
  {
    const int n = 1 << 20;
    Device by_cupy("by_cupy", n), by_torch("by_torch", n);
    Kokkos::deep_copy(by_cupy, 1.0);  // queued on Kokkos' stream: the writers must order after it
    Kokkos::deep_copy(by_torch, 1.0);
    {
      py::scoped_interpreter python;
      py::dict ns;
      py::exec(R"(
import cupy, torch

def write_cupy(v):
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        a = cupy.asarray(v)          # waits for Kokkos' stream (the CAI's stream)
        a += cupy.arange(a.size, dtype=a.dtype)
    s.synchronize()

def write_torch(v):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_dlpack(v)     # ordered on this stream by DLPack's stream argument
        t += torch.arange(t.numel(), dtype=t.dtype, device=t.device)
    s.synchronize()
)",
               ns);
      ns["write_cupy"](by_cupy);
      ns["write_torch"](by_torch);
    }
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_cupy);
    auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_torch);
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && a(i) == 1.0 + i && b(i) == 1.0 + i;
    check(ok, "CuPy's and PyTorch's writes on their own streams read back in C++");
  }
  Kokkos::finalize();
}
#endif

}  // namespace

int main(int argc, char *argv[]) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "app_owns")
    app_owns();
  else if (scenario == "python_owns")
    python_owns();
  else if (scenario == "library_initializes")
    library_initializes();
  else if (scenario == "app_finalizes_first")
    app_finalizes_first();
#if defined(KOKKOS_ENABLE_CUDA)
  else if (scenario == "cuda_writers")
    cuda_writers();
#endif
  else {
    std::printf("unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  return kp_test::finish();
}
