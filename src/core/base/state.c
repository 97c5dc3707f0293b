/* state.c: finding the module state (kp_state) of kokkos._core from a type
 * or, without one, from the imported module. The state itself is declared
 * in core.h and filled by module.c's exec function. */
#include "core.h"
#include "base.h"

kp_state *kp_state_from_type(PyTypeObject *type) {
  PyObject *mod = kp_module_by_def(type, &kp_module_def);
  if (!mod) {
    PyErr_Clear();
    return kp_state_global();
  }
  return (kp_state *)PyModule_GetState(mod);
}

kp_state *kp_state_global(void) {
  /* A multi-phase module is not in PyState: get it from sys.modules. */
  PyObject *m = PyImport_ImportModule("kokkos._core");
  if (!m) return NULL;
  kp_state *st = (kp_state *)PyModule_GetState(m);
  Py_DECREF(m); /* sys.modules keeps it */
  return st;
}
