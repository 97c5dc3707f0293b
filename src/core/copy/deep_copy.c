/* deep_copy.c: deep_copy into a View from any source: another View, a Python or
 * NumPy scalar (a fill), a host buffer or array (zero-copy through the buffer
 * protocol, then copied), a DLPack or __cuda_array_interface__ producer (a
 * CuPy or PyTorch device array), or, through NumPy, anything NumPy can make
 * an array of (a list) or a View of another dtype (a cast). The copies
 * themselves are copy.c's. The one file of copy/ above exchange/: it imports
 * its source through kp_view_from_exchange (exchange/import.c), so it calls
 * copy.c and exchange/, and access/ (slice assignment) calls it.
 *
 * Python equivalent:
 *
 *     def deep_copy(dst, src): ...          # kokkos.deep_copy
 *     class View:
 *         def deep_copy(self, src): ...
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "copy.h"
#include "exchange.h"

#include <string.h>

static int is_python_scalar(PyObject *o) {
  return PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) || PyBool_Check(o);
}

/* Replaces NumPy's ValueError / TypeError (set) for a source it could not
 * convert with one of the same type that names the call, the destination
 * View and what a source may be; NumPy's reason stays at the end. */
static void raise_not_convertible(const kp_view *dst, PyObject *src, const char *where) {
  PyObject *exc = kp_fetch_exception();
  PyObject *type = exc ? (PyObject *)Py_TYPE(exc) : PyExc_TypeError;
  Py_INCREF(type);
  PyObject *why = exc ? PyObject_Str(exc) : NULL;
  if (!why) PyErr_Clear();
  PyErr_Format(type,
               "%s: cannot copy an object of type %.100s into View '%U' (%s): %S. The source may be a View, an array "
               "or buffer of "
               "the same shape (NumPy, CuPy, PyTorch, ...), a (nested) sequence of numbers, or a scalar",
               where, Py_TYPE(src)->tp_name, dst->label, kp_dtypes[dst->dtype].name, why ? why : Py_None);
  if (exc) {
    PyObject *now = kp_fetch_exception();
    if (now) {
      PyException_SetCause(now, Py_NewRef(exc));
      PyException_SetContext(now, exc);
      exc = NULL;
      kp_restore_exception(now);
    }
  }
  Py_XDECREF(exc);
  Py_XDECREF(why);
  Py_DECREF(type);
}

/* numpy.asarray(obj, dtype=<name>) as a View for dst, or NULL with an exception. */
static kp_view *convert_through_numpy(kp_state *st, const kp_view *dst, PyObject *obj, int dtype, const char *where) {
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "%s: cannot copy from %.100s (not a View, buffer or array; install numpy to copy from sequences)",
                 where, Py_TYPE(obj)->tp_name);
    return NULL;
  }
  PyObject *src = obj;
  PyObject *tmp = NULL;
  if (kp_view_check(obj)) {
    /* a View of another dtype: let NumPy cast it */
    tmp = PyObject_CallMethod(np, "asarray", "O", obj);
    if (!tmp) {
      Py_DECREF(np);
      return NULL;
    }
    src = tmp;
  }
  PyObject *arr = PyObject_CallMethod(np, "asarray", "Os", src, kp_dtypes[dtype].name);
  Py_XDECREF(tmp);
  Py_DECREF(np);
  if (!arr) {
    if (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_TypeError))
      raise_not_convertible(dst, obj, where);
    return NULL;
  }
  kp_view *v = kp_view_from_buffer_object(st, arr, 0, NULL, 0, where);
  Py_DECREF(arr);
  return v;
}

int kp_deep_copy(kp_state *st, kp_view *dst, PyObject *src, const char *where) {
  if (kp_view_check_released(dst)) return -1;
  if (dst->readonly) {
    PyErr_Format(PyExc_ValueError, "%s: destination View '%U' is read-only", where, dst->label);
    return -1;
  }
  if ((PyObject *)dst == src) return 0;
  /* The auto-initialization rule (module.c, kp_runtime_ensure): a copy or
   * fill initializes Kokkos with defaults, even between two Views over
   * foreign memory, and raises RuntimeError once Kokkos was finalized. */
  if (kp_runtime_ensure() < 0) return -1;
  if (is_python_scalar(src)) {
    char value[16] = {0};
    if (kp_dtypes[dst->dtype].set(value, src) < 0) return -1;
    /* Converting may run Python code (__bool__ of an int subclass) that
     * finalizes Kokkos: check again. */
    if (kp_view_check_released(dst)) return -1;
    return kp_fill_view(dst, value, where);
  }
  kp_view *sv = NULL;
  if (kp_view_check(src)) {
    sv = (kp_view *)Py_NewRef(src);
  } else {
    /* Host buffers directly; DLPack / CUDA array interface producers (a
     * PyTorch or CuPy device array) through the exchange import. */
    sv = PyObject_CheckBuffer(src) ? kp_view_from_buffer_object(st, src, 0, NULL, 0, where)
                                   : kp_view_from_exchange(st, src, NULL, where);
    if (!sv) {
      if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
      PyErr_Clear();
      sv = convert_through_numpy(st, dst, src, dst->dtype, where);
      if (!sv) return -1;
    }
  }
  int rc = -1;
  /* Reading src may have run Python code (__array_interface__, NumPy) that
   * finalized Kokkos: check the destination again. */
  if (kp_view_check_released(dst) || kp_view_check_released(sv)) goto done;
  if (sv->rank == 0 && dst->rank != 0) {
    /* a 0-d source fills (a NumPy scalar, a rank-0 View) */
    if (!kp_view_require_host(sv, PyExc_TypeError, where)) goto done;
    PyObject *item = kp_dtypes[sv->dtype].get(sv->data);
    if (!item) goto done;
    char value[16] = {0};
    int ok = kp_dtypes[dst->dtype].set(value, item);
    Py_DECREF(item);
    if (ok < 0) goto done;
    rc = kp_fill_view(dst, value, where);
    goto done;
  }
  if (kp_check_same_shape(dst, sv, where) < 0) goto done;
  if (sv->dtype != dst->dtype) {
    if (!kp_bridge_space_host_accessible(sv->space)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: dtypes differ (%s <- %s) and the source is not host-accessible; copy into a View of "
                   "dtype %s first",
                   where, kp_dtypes[dst->dtype].name, kp_dtypes[sv->dtype].name, kp_dtypes[sv->dtype].name);
      goto done;
    }
    kp_view *conv = convert_through_numpy(st, dst, (PyObject *)sv, dst->dtype, where);
    if (!conv) goto done;
    Py_SETREF(sv, conv);
    if (kp_view_check_released(dst)) goto done;
  }
  rc = kp_copy_views(dst, sv, where);
done:
  Py_XDECREF(sv);
  return rc;
}

/* ---- Python entry points ------------------------------------------------------------ */

static const kp_signature sig_deep_copy = {"kokkos.deep_copy()", 2, 2};
static const kp_signature sig_deep_copy_method = {"View.deep_copy()", 1, 1};

PyObject *kp_deep_copy_function(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  const char *where = sig_deep_copy.name;
  kp_state *st = (kp_state *)PyModule_GetState(module);
  PyObject *dst, *src;
  const kp_param params[] = {{KP_KW_DST, &dst}, {KP_KW_SRC, &src}};
  if (kp_args_parse(st, &sig_deep_copy, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0) return NULL;
  if (!PyObject_TypeCheck(dst, st->view_type)) {
    PyErr_Format(PyExc_TypeError,
                 "%s: dst must be a kokkos View, got %.100s (to copy into a NumPy array use numpy.copyto(arr, view))",
                 where, Py_TYPE(dst)->tp_name);
    return NULL;
  }
  if (kp_deep_copy(st, (kp_view *)dst, src, where) < 0) return NULL;
  Py_RETURN_NONE;
}

PyObject *kp_view_deep_copy_method(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  kp_state *st = kp_state_from_type(Py_TYPE(self));
  PyObject *src;
  const kp_param params[] = {{KP_KW_SRC, &src}};
  if (!st || kp_args_parse(st, &sig_deep_copy_method, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0)
    return NULL;
  if (kp_deep_copy(st, self, src, sig_deep_copy_method.name) < 0) return NULL;
  Py_RETURN_NONE;
}
