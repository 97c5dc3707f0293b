/* buffer.c: host memory in and out of Views.
 *
 * Out: the buffer protocol (PEP 3118) and __array_interface__ (v3) for Views
 * the host can access. Buffer exports are counted on the View and on its
 * Allocation (so Kokkos finalize leaves exported memory in place); device
 * Views refuse with HostAccessError, saying to mirror.
 * In: any object exposing the buffer protocol or __array_interface__ becomes
 * an Unmanaged View of the same memory that keeps the object alive.
 */
#include "core.h"
#include "base.h"
#include "model.h"

#include "exchange.h"

#include <string.h>

/* ---- export ---------------------------------------------------------------------- */

static int buffer_error(kp_view *v, const char *why) {
  PyErr_Format(PyExc_BufferError, "View '%U' cannot export this buffer: %s", v->label, why);
  return -1;
}

/* The flag bits by which a consumer asks for an order of the elements
 * (each of PyBUF_C/F/ANY_CONTIGUOUS also includes PyBUF_STRIDES). */
#define KP_BUF_ORDER_BITS ((PyBUF_C_CONTIGUOUS | PyBUF_F_CONTIGUOUS | PyBUF_ANY_CONTIGUOUS) & ~PyBUF_STRIDES)

/* 0 when v may export what flags ask, else -1 with the error saying why
 * (called for the requests that may be refused only). */
static KP_COLD int buffer_refused(kp_view *v, int flags) {
  if (kp_view_check_released(v)) return -1;
  if (!kp_view_host_exportable(v)) {
    kp_state *st = kp_state_from_type(Py_TYPE(v));
    kp_view_require_host(v, st ? st->host_access_error : PyExc_BufferError, "buffer protocol");
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) && v->readonly) return buffer_error(v, "it is read-only");
  /* A LayoutRight View's strides are C-contiguous; the others are checked,
   * and the Fortran order only when a consumer asks for it. */
  int c = v->layout == KP_LAYOUT_RIGHT || kp_view_is_c_contiguous(v);
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c) return buffer_error(v, "it is not C-contiguous");
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !kp_view_is_f_contiguous(v))
    return buffer_error(v, "it is not Fortran-contiguous");
  if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c && !kp_view_is_f_contiguous(v))
    return buffer_error(v, "it is not contiguous");
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c)
    return buffer_error(v, "it is not C-contiguous and the consumer did not ask for strides");
  return 0;
}

int kp_view_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  kp_view *v = (kp_view *)self;
  view->obj = NULL;
  /* What NumPy and memoryview ask of a live HostSpace View (strides, no
   * order) cannot be refused; anything else goes through every check. */
  int plain = (!v->owner || !v->owner->released) && v->space == KP_SPACE_HOST && !(flags & KP_BUF_ORDER_BITS) &&
              (flags & PyBUF_STRIDES) == PyBUF_STRIDES && !((flags & PyBUF_WRITABLE) && v->readonly);
  if (!plain && buffer_refused(v, flags) < 0) return -1;
  Py_ssize_t itemsize = kp_dtypes[v->dtype].itemsize, len = itemsize;
  for (int r = 0; r < v->rank; ++r) len *= v->shape[r];
  view->buf = v->data;
  view->len = len;
  view->readonly = v->readonly;
  view->itemsize = itemsize;
  view->format = (flags & PyBUF_FORMAT) ? (char *)kp_dtypes[v->dtype].format : NULL;
  view->ndim = v->rank;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? v->shape : NULL;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? v->byte_strides : NULL;
  view->suboffsets = NULL;
  view->internal = NULL;
  view->obj = Py_NewRef(self);
  v->exports++;
  if (v->owner) v->owner->exports++;
  return 0;
}

void kp_view_releasebuffer(PyObject *self, Py_buffer *view) {
  kp_view *v = (kp_view *)self;
  v->exports--;
  if (v->owner) v->owner->exports--;
}

PyObject *kp_view_array_interface(kp_view *v, void *closure) {
  if (kp_view_check_released(v)) return NULL;
  if (!kp_view_host_exportable(v)) {
    kp_state *st = kp_state_from_type(Py_TYPE(v));
    kp_view_require_host(v, st ? st->host_access_error : PyExc_BufferError, "__array_interface__");
    return NULL;
  }
  /* The consumer keeps the View, not a release call: the address stays in
   * use as long as the View lives, so Kokkos finalize must leave it. */
  if (v->owner) v->owner->interface_exported = 1;
  PyObject *shape = kp_view_extents_tuple(v, 0);
  if (!shape) return NULL;
  PyObject *strides = kp_view_is_c_contiguous(v) ? Py_NewRef(Py_None) : kp_view_extents_tuple(v, 1);
  if (!strides) {
    Py_DECREF(shape);
    return NULL;
  }
  return Py_BuildValue("{sNsNsss(NO)si}", "shape", shape, "strides", strides, "typestr", kp_dtypes[v->dtype].typestr,
                       "data", PyLong_FromVoidPtr(v->data), v->readonly ? Py_True : Py_False, "version", 3);
}

/* ---- import ---------------------------------------------------------------------------- */

static int bytes_to_elements(const Py_ssize_t *bytes, int rank, Py_ssize_t itemsize, Py_ssize_t *out,
                             const char *where) {
  for (int r = 0; r < rank; ++r) {
    if (bytes[r] % itemsize != 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s: stride %zd bytes of dimension %d is not a multiple of the item size %zd; Kokkos Views need "
                   "element strides (copy the data: numpy.ascontiguousarray(obj))",
                   where, bytes[r], r, itemsize);
      return -1;
    }
    out[r] = bytes[r] / itemsize;
  }
  return 0;
}

static kp_view *wrap_buffer(kp_state *st, PyObject *obj, int writable, PyObject *label, int dynamic,
                            const char *where) {
  Py_buffer buf;
  if (PyObject_GetBuffer(obj, &buf, PyBUF_RECORDS_RO) < 0) return NULL;
  const char *type = Py_TYPE(obj)->tp_name;
  if (writable && buf.readonly) {
    PyErr_Format(PyExc_BufferError, "%s: the %.100s is read-only, but a writable View was asked for", where, type);
    goto fail;
  }
  int dtype = kp_dtype_from_format(buf.format, buf.itemsize);
  if (dtype < 0 || kp_dtypes[dtype].itemsize != buf.itemsize) {
    PyErr_Format(PyExc_TypeError,
                 "%s: element format '%s' (itemsize %zd) is not supported by Kokkos Views (supported: %s, native "
                 "byte order)",
                 where, buf.format ? buf.format : "B", buf.itemsize, kp_dtype_supported());
    goto fail;
  }
  int max_rank = dynamic ? KP_MAX_RANK - 1 : KP_MAX_RANK;
  if (buf.ndim > max_rank) {
    PyErr_Format(PyExc_ValueError, "%s: rank %d is larger than the maximum %d", where, buf.ndim, max_rank);
    goto fail;
  }
  int rank = buf.ndim;
  Py_ssize_t shape[KP_MAX_RANK], strides[KP_MAX_RANK];
  size_t bytes;
  /* The exporter's fields may lie: each is checked before it is used. */
  const char *lie = NULL;
  if (rank < 0)
    lie = "a negative ndim";
  else if (!buf.shape && rank > 1)
    lie = "no shape for ndim > 1";
  else if (buf.suboffsets)
    lie = "suboffsets, which were not asked for";
  if (lie) {
    PyErr_Format(PyExc_BufferError, "%s: the %.100s's buffer has %s (ndim %d)", where, type, lie, buf.ndim);
    goto fail;
  }
  if (buf.shape)
    memcpy(shape, buf.shape, sizeof(Py_ssize_t) * (size_t)rank);
  else if (rank == 1)
    shape[0] = buf.len / buf.itemsize;
  for (int r = 0; r < rank; ++r)
    if (shape[r] < 0) {
      PyErr_Format(PyExc_BufferError, "%s: the %.100s's buffer has shape[%d] = %zd; extents cannot be negative", where,
                   type, r, shape[r]);
      goto fail;
    }
  if (kp_checked_bytes(rank, shape, buf.itemsize, &bytes, where) < 0) goto fail;
  if (bytes > 0 && !buf.buf) {
    PyErr_Format(PyExc_BufferError, "%s: the %.100s's buffer has %zu bytes of elements at a NULL address", where, type,
                 bytes);
    goto fail;
  }
  if (buf.strides) {
    if (bytes_to_elements(buf.strides, rank, buf.itemsize, strides, where) < 0) goto fail;
  } else {
    kp_contiguous_strides(rank, shape, KP_LAYOUT_RIGHT, strides);
  }
  char *data = buf.buf;
  if (kp_check_span_at(data, rank, shape, strides, buf.itemsize, where) < 0) goto fail;
  int readonly = buf.readonly;
  kp_owner *owner = kp_owner_from_pyobject(st, KP_SPACE_HOST, data, NULL, &buf);
  if (!owner) return NULL;
  kp_view *v =
      kp_view_wrap_as(st, dynamic ? st->dyn_rank_view_type : st->view_type, owner, data, rank, shape, strides, dtype,
                      KP_SPACE_HOST, kp_layout_of(rank, shape, strides), KP_TRAIT_UNMANAGED, readonly, label);
  Py_DECREF(owner);
  return v;
fail:
  PyBuffer_Release(&buf);
  return NULL;
}

static kp_view *wrap_array_interface(kp_state *st, PyObject *obj, PyObject *ai, int writable, PyObject *label,
                                     int dynamic, const char *where) {
  kp_interface_ctx ctx = {where, "__array_interface__", dynamic ? KP_MAX_RANK - 1 : KP_MAX_RANK, 0};
  kp_interface in;
  if (kp_interface_read(ai, &ctx, &in) < 0) return NULL;
  if (writable && in.readonly) {
    PyErr_Format(PyExc_BufferError, "%s: the array is read-only, but a writable View was asked for", where);
    return NULL;
  }
  kp_owner *owner = kp_owner_from_pyobject(st, KP_SPACE_HOST, in.data, obj, NULL);
  if (!owner) return NULL;
  kp_view *v = kp_view_wrap(st, dynamic ? st->dyn_rank_view_type : st->view_type, owner, in.data, in.rank, in.shape,
                            in.strides, in.dtype, KP_SPACE_HOST, KP_TRAIT_UNMANAGED, in.readonly, label);
  Py_DECREF(owner);
  return v;
}

kp_view *kp_view_from_buffer_object(kp_state *st, PyObject *obj, int writable, PyObject *label, int dynamic,
                                    const char *where) {
  if (PyObject_CheckBuffer(obj)) return wrap_buffer(st, obj, writable, label, dynamic, where);
  PyObject *ai = NULL;
  if (kp_get_optional_attr_string(obj, "__array_interface__", &ai) < 0) return NULL;
  if (ai) {
    kp_view *v = wrap_array_interface(st, obj, ai, writable, label, dynamic, where);
    Py_DECREF(ai);
    return v;
  }
  PyErr_Format(PyExc_TypeError,
               "%s: cannot use %.100s as View memory: it exposes neither the buffer protocol nor __array_interface__",
               where, Py_TYPE(obj)->tp_name);
  return NULL;
}

/* _wrap(obj, writable=False, label=None, dynamic=False, traits=0) -> View
 * over obj's memory (a View argument is shared, not copied). */
PyObject *kp_py_wrap(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < 1 || nargs > 5) {
    PyErr_SetString(PyExc_TypeError, "_wrap(obj, writable=False, label=None, dynamic=False, traits=0)");
    return NULL;
  }
  int writable = nargs > 1 ? PyObject_IsTrue(args[1]) : 0;
  int dynamic = nargs > 3 ? PyObject_IsTrue(args[3]) : 0;
  if (writable < 0 || dynamic < 0) return NULL;
  int traits = nargs > 4 ? kp_trait_from_object(args[4], "kokkos.array()") : 0;
  if (traits < 0) return NULL;
  PyObject *label = nargs > 2 && args[2] != Py_None ? args[2] : NULL;
  if (label && !PyUnicode_Check(label)) {
    PyErr_SetString(PyExc_TypeError, "kokkos.array(): label must be a str");
    return NULL;
  }
  kp_state *st = (kp_state *)PyModule_GetState(module);
  kp_view *v;
  if (kp_view_check(args[0])) {
    kp_view *src = (kp_view *)args[0];
    if (kp_view_check_released(src)) return NULL;
    if (dynamic && src->rank > KP_MAX_RANK - 1) {
      PyErr_Format(PyExc_ValueError, "kokkos.array(): rank %d is larger than the maximum %d of a DynRankView",
                   src->rank, KP_MAX_RANK - 1);
      return NULL;
    }
    if (writable && src->readonly) {
      PyErr_SetString(PyExc_BufferError, "kokkos.array(): the View is read-only, but a writable View was asked for");
      return NULL;
    }
    v = kp_view_wrap(st, dynamic ? st->dyn_rank_view_type : st->view_type, src->owner, src->data, src->rank, src->shape,
                     src->strides, src->dtype, src->space, src->traits, src->readonly, label ? label : src->label);
  } else {
    v = kp_view_from_buffer_object(st, args[0], writable, label, dynamic, "kokkos.array()");
  }
  if (v && (v->traits | (unsigned)traits) != v->traits) {
    v->traits |= (unsigned)traits;
    if (kp_view_retype(v) < 0) Py_CLEAR(v);
  }
  return (PyObject *)v;
}
