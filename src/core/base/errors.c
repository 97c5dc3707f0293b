/* errors.c: the one place that turns bridge statuses into Python exceptions. */
#include "core.h"
#include "base.h"

int kp_raise_bridge(kp_status status, const kp_error *err, const char *where) {
  PyObject *exc;
  switch (status) {
    case KP_E_NOMEM:
      exc = PyExc_MemoryError;
      break;
    case KP_E_ARG:
      exc = PyExc_ValueError;
      break;
    case KP_E_UNAVAILABLE:
    case KP_E_STATE:
    case KP_E_KOKKOS:
    default:
      exc = PyExc_RuntimeError;
      break;
  }
  PyErr_Format(exc, "%s: %s", where, (err && err->message[0]) ? err->message : "Kokkos call failed");
  return -1;
}
