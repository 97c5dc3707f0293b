/* scalar.c: a View of one element as a Python number, by NumPy's rules.
 *
 * Python equivalent:
 *
 *     class View:
 *         def __float__(self) -> float      # a View of one element (any rank)
 *         def __int__(self) -> int          # the same, truncated toward zero
 *         def __complex__(self) -> complex  # the same
 *         def __index__(self) -> int        # rank 0, integer dtype only
 *         def __bool__(self) -> bool        # rank 0: the element's truth;
 *                                           # otherwise len(self) > 0, as before
 *
 * Each reads the element on the host: Views the host cannot access raise
 * kokkos.HostAccessError, as element access does. The element is read into a
 * Python object first (kp_dtypes[].get) and converted afterwards, so the
 * conversion never touches View memory.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "access.h"

/* The single element of v as a new Python object, or NULL with an
 * exception; what names the conversion for the messages. */
PyObject *kp_view_one_element(kp_view *v, const char *what) {
  if (kp_view_check_released(v)) return NULL;
  Py_ssize_t n = kp_view_size(v);
  if (n != 1) {
    PyErr_Format(PyExc_TypeError,
                 "%s: only a View of one element converts to a Python scalar; View '%U' has %zd elements "
                 "(index an element, e.g. view[0, 0], or use numpy.asarray(view))",
                 what, v->label, n);
    return NULL;
  }
  if (!kp_bridge_space_host_accessible(v->space)) {
    kp_state *st = kp_state_from_type(Py_TYPE(v));
    kp_view_require_host(v, st ? st->host_access_error : PyExc_RuntimeError, what);
    return NULL;
  }
  return kp_dtypes[v->dtype].get(v->data);
}

/* conv(the single element), or NULL with an exception. */
static PyObject *converted(PyObject *self, const char *what, PyObject *(*conv)(PyObject *)) {
  PyObject *e = kp_view_one_element((kp_view *)self, what);
  if (!e) return NULL;
  PyObject *r = conv(e);
  Py_DECREF(e);
  return r;
}

static PyObject *to_complex(PyObject *e) { return PyObject_CallOneArg((PyObject *)&PyComplex_Type, e); }

PyObject *kp_view_float(PyObject *self) { return converted(self, "float(View)", PyNumber_Float); }
PyObject *kp_view_int(PyObject *self) { return converted(self, "int(View)", PyNumber_Long); }
PyObject *kp_view_complex(PyObject *self, PyObject *unused) { return converted(self, "complex(View)", to_complex); }

PyObject *kp_view_index(PyObject *self) {
  kp_view *v = (kp_view *)self;
  if (kp_view_check_released(v)) return NULL;
  int kind = kp_dtypes[v->dtype].kind;
  if (v->rank != 0 || (kind != KP_KIND_INT && kind != KP_KIND_UINT)) {
    PyErr_Format(PyExc_TypeError,
                 "View '%U' (rank %d, dtype %s) cannot be used as an index: only a rank-0 View of an integer dtype "
                 "can (as with NumPy arrays)",
                 v->label, v->rank, kp_dtypes[v->dtype].name);
    return NULL;
  }
  return kp_view_one_element(v, "operator.index(View)"); /* already an int */
}

int kp_view_bool(PyObject *self) {
  kp_view *v = (kp_view *)self;
  if (v->rank > 0) {
    /* what a View's truth has always been: non-empty along the first
     * dimension (len) */
    if (kp_view_check_released(v)) return -1;
    return v->shape[0] != 0;
  }
  PyObject *e = kp_view_one_element(v, "bool(View)");
  if (!e) return -1;
  int r = PyObject_IsTrue(e);
  Py_DECREF(e);
  return r;
}
