// embed_capi.cpp: a C++ program that embeds Python through CPython's C API
// alone (Py_Initialize, no pybind11) and hands it Kokkos Views with
// kokkos_python::to_python / from_python (tests/test_embed.py).
//
//   embed_capi views     Views to a Python function and back; a Python
//                        exception read in C++; Kokkos outlives the interpreter
//   embed_capi threads   C++ threads calling Python with Views (the GIL taken
//                        per call with PyGILState_Ensure)
//
// Prints "embed ok" and exits 0 when every check held; "FAILED: ..." otherwise.
#include <kokkos_python/kokkos_python.hpp>

#include "scenario.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using Vector = Kokkos::View<double *, Kokkos::HostSpace>;

namespace {

using kp_test::check;

// A new reference to the function `name` defined by `code` in __main__.
PyObject *define(const char *arg_code, const char *arg_name) {
  PyObject *main = PyImport_AddModule("__main__");  // borrowed
  if (!main) return nullptr;
  PyObject *globals = PyModule_GetDict(main);  // borrowed
  PyObject *r = PyRun_String(arg_code, Py_file_input, globals, globals);
  if (!r) return nullptr;
  Py_DECREF(r);
  PyObject *f = PyDict_GetItemString(globals, arg_name);  // borrowed
  Py_XINCREF(f);
  return f;
}

// The message of the Python exception set now (cleared).
std::string take_error() {
  try {
    throw kokkos_python::python_error();
  } catch (const kokkos_python::python_error &e) {
    return e.what();
  }
}

const char *const python_side = R"(
import kokkos, numpy as np

def axpy(x, y, a):
    np.asarray(y)[...] += a * np.asarray(x)
    return kokkos.array("sum", [1], dtype=kokkos.double) if a > 0 else None

def fail(x):
    raise KeyError(f"no such field {x.label}")
)";

void views() {
  Kokkos::initialize();
  {
    Vector x("x", 100), y("y", 100);
    for (int i = 0; i < 100; ++i) x(i) = i;
    Py_Initialize();
    PyObject *axpy = define(python_side, "axpy");
    PyObject *fail = define(python_side, "fail");
    check(axpy && fail, "the Python functions are defined");
    PyObject *px = kokkos_python::to_python(x);
    PyObject *py = kokkos_python::to_python(y);
    check(px && py, "to_python hands the Views over");
    PyObject *a = PyFloat_FromDouble(2.0);
    PyObject *r = PyObject_CallFunctionObjArgs(axpy, px, py, a, nullptr);
    check(r != nullptr, "the call succeeds");
    check(y(99) == 198.0, "Python's writes reach the C++ View");
    Vector s("unset", 0);  // not default-constructed: see docs/building.md on GCC 12 and Kokkos 4.7
    if (r) s = kokkos_python::from_python<Vector>(r);
    check(s.extent(0) == 1 && s.label() == "sum", "a View made in Python comes back");
    Py_XDECREF(r);
    PyObject *none = PyObject_CallFunctionObjArgs(fail, px, nullptr);
    check(none == nullptr, "the Python exception is reported");
    const std::string message = take_error();
    check(message.find("no such field x") != std::string::npos, "the exception's message: " + message);
    Py_XDECREF(a);
    Py_XDECREF(px);
    Py_XDECREF(py);
    Py_XDECREF(axpy);
    Py_XDECREF(fail);
    check(Py_FinalizeEx() == 0, "the interpreter ends cleanly");
    check(Kokkos::is_initialized(), "the application's Kokkos outlives the interpreter");
    s(0) = 1.0;  // the Python-made View stays valid
    check(s(0) == 1.0, "the Python-made View stays valid");
  }
  Kokkos::finalize();
}

void threads() {
  Kokkos::initialize();
  {
    Py_Initialize();
    PyObject *axpy = define(python_side, "axpy");
    check(axpy != nullptr, "the Python function is defined");
    PyThreadState *main_state = PyEval_SaveThread();  // let other threads take the GIL
    const int nthreads = 4;
    std::vector<Vector> ys;
    for (int t = 0; t < nthreads; ++t) ys.emplace_back("y" + std::to_string(t), 10);
    Vector x("x", 10);
    Kokkos::deep_copy(x, 1.0);
    std::vector<std::thread> pool;
    for (int t = 0; t < nthreads; ++t)
      pool.emplace_back([&, t] {
        for (int k = 0; k < 50; ++k) {
          PyGILState_STATE g = PyGILState_Ensure();
          PyObject *px = kokkos_python::to_python(x);
          PyObject *py = kokkos_python::to_python(ys[t]);
          PyObject *a = PyFloat_FromDouble(-1.0);
          PyObject *r = px && py && a ? PyObject_CallFunctionObjArgs(axpy, px, py, a, nullptr) : nullptr;
          if (!r) PyErr_Print();
          Py_XDECREF(r);
          Py_XDECREF(a);
          Py_XDECREF(px);
          Py_XDECREF(py);
          PyGILState_Release(g);
        }
      });
    for (auto &th : pool) th.join();
    PyEval_RestoreThread(main_state);
    bool ok = true;
    for (int t = 0; t < nthreads; ++t)
      for (int i = 0; i < 10; ++i) ok = ok && ys[t](i) == -50.0;
    check(ok, "every thread's calls wrote its View");
    Py_XDECREF(axpy);
    check(Py_FinalizeEx() == 0, "the interpreter ends cleanly");
  }
  Kokkos::finalize();
}

}  // namespace

int main(int argc, char *argv[]) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "views")
    views();
  else if (scenario == "threads")
    threads();
  else {
    std::printf("unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  return kp_test::finish();
}
