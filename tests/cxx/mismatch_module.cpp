// mismatch_module.cpp: kp_test_mismatch, a module tests/test_cxx_runtime.py
// builds against a *different* Kokkos library than the kokkos package's:
// importing it must raise ImportError, not misbehave.
#include <kokkos_python/kokkos_python.hpp>

static PyModuleDef s_def = {
    PyModuleDef_HEAD_INIT, "kp_test_mismatch", nullptr, -1, nullptr, nullptr, nullptr, nullptr, nullptr};

PyMODINIT_FUNC PyInit_kp_test_mismatch(void) {
  if (kokkos_python::import("kp_test_mismatch") < 0) return nullptr;
  return PyModule_Create(&s_def);
}
