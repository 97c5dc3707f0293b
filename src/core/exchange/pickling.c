/* pickling.c: the C side of pickling Views (kokkos/pickling.py holds the
 * rest): View.__reduce_ex__, which hands the View to kokkos.pickling's
 * reducer, and the one C step of unpickling, _view_from_bytes.
 *
 * Python equivalent:
 *
 *     def _view_from_bytes(buf, dtype, shape, layout, label, dynamic, traits):
 *         """A View of `dtype`, extents `shape` and `layout` over the bytes of
 *         buf (any C- or Fortran-contiguous buffer: bytes, bytearray,
 *         memoryview, PickleBuffer, mmap, a View), or None when buf's memory
 *         is not aligned for dtype."""
 *
 * No copy is made. The View is Unmanaged: its Allocation holds buf's buffer,
 * so buf stays alive (and cannot be resized or released) while any View,
 * subview or export of the memory lives; the View is read-only when buf is.
 * The bytes are read in the memory order of the layout: LayoutLeft uses
 * LayoutLeft strides, LayoutRight and LayoutStride use LayoutRight strides.
 * The layout is set as given even where the extents let both orders
 * describe the memory (rank 1, extents of 1), so a LayoutLeft View pickled
 * comes back LayoutLeft, as Kokkos would report it.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "exchange.h"

#include <stdint.h>

PyObject *kp_py_view_from_bytes(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  static const char *where = "kokkos.pickling: _view_from_bytes()";
  if (nargs != 7) {
    PyErr_Format(PyExc_TypeError, "%s takes (buf, dtype, shape, layout, label, dynamic, traits), got %zd arguments",
                 where, nargs);
    return NULL;
  }
  kp_state *st = (kp_state *)PyModule_GetState(module);
  PyObject *buf = args[0], *label = args[4] == Py_None ? NULL : args[4];
  int dtype = kp_dtype_from_object(args[1], where);
  if (dtype < 0) return NULL;
  int layout = kp_layout_from_object(args[3], where);
  if (layout < 0) return NULL;
  int traits = kp_trait_from_object(args[6], where);
  if (traits < 0) return NULL;
  int dynamic = PyObject_IsTrue(args[5]);
  if (dynamic < 0) return NULL;
  if (label && !PyUnicode_Check(label)) {
    PyErr_Format(PyExc_TypeError, "%s: label must be a str or None, got %.100s", where, Py_TYPE(label)->tp_name);
    return NULL;
  }
  if (!PyTuple_Check(args[2])) {
    PyErr_Format(PyExc_TypeError, "%s: shape must be a tuple, got %.100s", where, Py_TYPE(args[2])->tp_name);
    return NULL;
  }
  Py_ssize_t rank = PyTuple_GET_SIZE(args[2]);
  int max_rank = dynamic ? KP_MAX_RANK - 1 : KP_MAX_RANK;
  if (rank > max_rank) {
    PyErr_Format(PyExc_ValueError, "%s: rank %zd is larger than the maximum %d", where, rank, max_rank);
    return NULL;
  }
  Py_ssize_t shape[KP_MAX_RANK], strides[KP_MAX_RANK];
  for (Py_ssize_t r = 0; r < rank; ++r) {
    shape[r] = PyNumber_AsSsize_t(PyTuple_GET_ITEM(args[2], r), PyExc_OverflowError);
    if (shape[r] == -1 && PyErr_Occurred()) return NULL;
    if (shape[r] < 0) {
      PyErr_Format(PyExc_ValueError, "%s: shape[%zd] must be >= 0, got %zd", where, r, shape[r]);
      return NULL;
    }
  }
  size_t bytes;
  Py_ssize_t itemsize = kp_dtypes[dtype].itemsize;
  if (kp_checked_bytes((int)rank, shape, itemsize, &bytes, where) < 0) return NULL;

  if (!PyObject_CheckBuffer(buf)) {
    PyErr_Format(PyExc_TypeError,
                 "%s: the View's data must come as a buffer (bytes, bytearray, memoryview, PickleBuffer), got %.100s",
                 where, Py_TYPE(buf)->tp_name);
    return NULL;
  }
  Py_buffer b;
  if (PyObject_GetBuffer(buf, &b, PyBUF_RECORDS_RO) < 0) return NULL;
  if (!PyBuffer_IsContiguous(&b, 'A')) {
    PyBuffer_Release(&b);
    PyErr_Format(PyExc_ValueError, "%s: the %.100s holding the View's data is not contiguous", where,
                 Py_TYPE(buf)->tp_name);
    return NULL;
  }
  if ((size_t)b.len != bytes) {
    PyErr_Format(PyExc_ValueError,
                 "%s: the %.100s holds %zd bytes, but a %s View of this shape needs %zu; the pickle is damaged", where,
                 Py_TYPE(buf)->tp_name, b.len, kp_dtypes[dtype].name, bytes);
    PyBuffer_Release(&b);
    return NULL;
  }
  /* Kokkos' element types want their natural alignment (Kokkos::complex is
   * aligned to its size); the caller copies when the memory lacks it. */
  if (bytes > 0 && ((uintptr_t)b.buf % (uintptr_t)itemsize) != 0) {
    PyBuffer_Release(&b);
    Py_RETURN_NONE;
  }
  kp_contiguous_strides((int)rank, shape, layout == KP_LAYOUT_LEFT ? KP_LAYOUT_LEFT : KP_LAYOUT_RIGHT, strides);
  char *data = b.buf;
  int readonly = b.readonly;
  kp_owner *owner = kp_owner_from_pyobject(st, KP_SPACE_HOST, data, NULL, &b); /* b moved in */
  if (!owner) return NULL;
  kp_view *v = kp_view_wrap(st, dynamic ? st->dyn_rank_view_type : st->view_type, owner, data, (int)rank, shape,
                            strides, dtype, KP_SPACE_HOST, (unsigned)traits | KP_TRAIT_UNMANAGED, readonly, label);
  Py_DECREF(owner);
  if (v && v->layout != layout) {
    v->layout = layout;
    if (kp_view_retype(v) < 0) Py_CLEAR(v);
  }
  return (PyObject *)v;
}

/* View.__reduce_ex__(protocol): kokkos.pickling._reduce_ex(self, protocol).
 * The reducer is imported on first use and kept in the module state, so the
 * View type is complete without the Python package and nothing is patched
 * onto it at import. */
PyObject *kp_view_reduce_ex(PyObject *self, PyObject *protocol) {
  kp_state *st = kp_state_from_type(Py_TYPE(self));
  if (!st->reducer) {
    PyObject *mod = PyImport_ImportModule("kokkos.pickling");
    if (!mod) return NULL;
    PyObject *fn = PyObject_GetAttrString(mod, "_reduce_ex");
    Py_DECREF(mod);
    if (!fn) return NULL;
    if (!st->reducer)
      st->reducer = fn;
    else
      Py_DECREF(fn); /* the import ran Python code that got there first */
  }
  PyObject *args[2] = {self, protocol};
  return PyObject_Vectorcall(st->reducer, args, 2, NULL);
}
