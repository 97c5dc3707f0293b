/* view_type.c: the View and DynRankView types, declared whole in one place:
 * every property, method, protocol slot and special method of a View is an
 * entry of the tables below, whichever file implements it (the View model in
 * model/view.c, element access in access/, copies and deep_copy in copy/,
 * the exchange protocols in exchange/, pickling in exchange/pickling.c).
 * Nothing adds to the types afterwards: both are immutable
 * (Py_TPFLAGS_IMMUTABLETYPE); the per-combination classes of
 * model/view_class.c derive from them.
 *
 * Python equivalent:
 *
 *     class View:
 *         shape, ndim, rank, size, nbytes, itemsize, strides, dtype, space, ...
 *         def extent(self, r); def stride(self, r); def span(self); ...
 *         def create_mirror(self, copy=True, space=None); def deep_copy(self, src)
 *         def __dlpack__(self, ...); def __dlpack_device__(self)
 *         __array_interface__; __cuda_array_interface__; def __reduce_ex__(self, protocol)
 *     class DynRankView(View): ...
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "copy.h"
#include "exchange.h"
#include "access.h"
#include "top.h"

#include <stddef.h>
#include <string.h>
#include <structmember.h>

/* ---- properties --------------------------------------------------------------------- */

static PyObject *member_or_int(PyObject *members, int i) {
  if (members && PyTuple_Check(members) && i >= 0 && i < PyTuple_GET_SIZE(members))
    return Py_NewRef(PyTuple_GET_ITEM(members, i));
  return PyLong_FromLong(i);
}

/* A new kokkos.Shape of v's extents (a plain tuple before kokkos' Shape is
 * registered). Made by tuple.__new__ (Shape adds no __new__ or __init__):
 * a tuple subclass filled after tp_alloc is not a whole tuple (Python 3.14
 * keeps a tuple's hash in the object, which tuple's constructor sets and
 * tp_alloc leaves 0: hash(v.shape) was 0). */
static PyObject *view_make_shape(kp_view *v) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  PyObject *t = kp_view_extents_tuple(v, 0);
  if (!t || !st || !st->shape_type) return t;
  PyObject *s;
  if (PyType_Check(st->shape_type) && PyType_IsSubtype((PyTypeObject *)st->shape_type, &PyTuple_Type)) {
    PyObject *args = PyTuple_Pack(1, t);
    s = args ? PyTuple_Type.tp_new((PyTypeObject *)st->shape_type, args, NULL) : NULL;
    Py_XDECREF(args);
  } else {
    s = PyObject_CallOneArg(st->shape_type, t);
  }
  Py_DECREF(t);
  return s;
}

/* view.shape: made once and kept (a View's extents never change; NumPy
 * makes a new tuple per call), once kokkos' Shape is registered. */
static PyObject *view_get_shape(kp_view *v, void *c) {
  if (v->shape_obj) return Py_NewRef(v->shape_obj);
  PyObject *s = view_make_shape(v);
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  if (s && st && st->shape_type) v->shape_obj = Py_NewRef(s);
  return s;
}

static PyObject *view_get_strides(kp_view *v, void *c) { return kp_view_extents_tuple(v, 1); }
static PyObject *view_get_ndim(kp_view *v, void *c) { return PyLong_FromLong(v->rank); }
static PyObject *view_get_size(kp_view *v, void *c) { return PyLong_FromSsize_t(kp_view_size(v)); }
static PyObject *view_get_itemsize(kp_view *v, void *c) { return PyLong_FromSsize_t(kp_dtypes[v->dtype].itemsize); }
static PyObject *view_get_nbytes(kp_view *v, void *c) {
  return PyLong_FromSsize_t(kp_view_size(v) * kp_dtypes[v->dtype].itemsize);
}
static PyObject *view_get_dtype(kp_view *v, void *c) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  return member_or_int(st ? st->dtype_members : NULL, v->dtype);
}
static PyObject *view_get_space(kp_view *v, void *c) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  return member_or_int(st ? st->space_members : NULL, v->space);
}
static PyObject *view_get_layout(kp_view *v, void *c) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  return member_or_int(st ? st->layout_members : NULL, v->layout);
}
static PyObject *view_get_trait(kp_view *v, void *c) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  if (st && st->trait_enum) return PyObject_CallFunction(st->trait_enum, "I", v->traits);
  return PyLong_FromUnsignedLong(v->traits);
}
static PyObject *view_get_label(kp_view *v, void *c) { return Py_NewRef(v->label); }
static PyObject *view_get_dynamic(kp_view *v, void *c) { return PyBool_FromLong(kp_view_is_dynamic(v)); }
static PyObject *view_get_contiguous(kp_view *v, void *c) {
  return PyBool_FromLong(kp_view_is_c_contiguous(v) || kp_view_is_f_contiguous(v));
}
static PyObject *view_get_data(kp_view *v, void *c) {
  if (kp_view_check_released(v)) return NULL;
  return PyLong_FromVoidPtr(v->data);
}
static PyObject *view_get_readonly(kp_view *v, void *c) { return PyBool_FromLong(v->readonly); }
static PyObject *view_get_released(kp_view *v, void *c) { return PyBool_FromLong(v->owner && v->owner->released); }
static PyObject *view_get_owner(kp_view *v, void *c) { return Py_NewRef(v->owner ? (PyObject *)v->owner : Py_None); }
static PyObject *view_get_host_accessible(kp_view *v, void *c) {
  return PyBool_FromLong(kp_bridge_space_host_accessible(v->space));
}

static PyGetSetDef view_getset[] = {
    {"shape", (getter)view_get_shape, NULL, "Extents of the View, one per rank.", NULL},
    {"ndim", (getter)view_get_ndim, NULL, "Number of dimensions (the View's rank).", NULL},
    {"rank", (getter)view_get_ndim, NULL, "The View's rank (number of dimensions).", NULL},
    {"size", (getter)view_get_size, NULL, "Number of elements.", NULL},
    {"nbytes", (getter)view_get_nbytes, NULL, "Bytes spanned by the elements (size * itemsize).", NULL},
    {"itemsize", (getter)view_get_itemsize, NULL, "Bytes per element.", NULL},
    {"strides", (getter)view_get_strides, NULL,
     "Strides in bytes, as NumPy reports them (view.stride(i) gives elements).", NULL},
    {"dtype", (getter)view_get_dtype, NULL, "Element type (a kokkos.dtype member).", NULL},
    {"space", (getter)view_get_space, NULL, "Memory space (alias of memory_space).", NULL},
    {"memory_space", (getter)view_get_space, NULL, "Memory space (alias of space).", NULL},
    {"layout", (getter)view_get_layout, NULL, "LayoutRight, LayoutLeft or LayoutStride.", NULL},
    {"trait", (getter)view_get_trait, NULL, "Memory traits (alias of memory_trait).", NULL},
    {"memory_trait", (getter)view_get_trait, NULL, "Memory traits (alias of trait).", NULL},
    {"label", (getter)view_get_label, NULL, "The View's label, as Kokkos and Kokkos Tools see it.", NULL},
    {"dynamic", (getter)view_get_dynamic, NULL, "True for a DynRankView.", NULL},
    {"is_contiguous", (getter)view_get_contiguous, NULL, "True if the elements fill their span with no gaps.", NULL},
    {"data", (getter)view_get_data, NULL, "Address of the first element (Kokkos' view.data()).", NULL},
    {"readonly", (getter)view_get_readonly, NULL, "True if the View must not be written (read-only source).", NULL},
    {"released", (getter)view_get_released, NULL, "True once Kokkos finalized and released the memory.", NULL},
    {"allocation", (getter)view_get_owner, NULL, "The shared owner of the memory (None for empty Views).", NULL},
    {"host_accessible", (getter)view_get_host_accessible, NULL, "True if host code can read this View's memory.", NULL},
    {"__array_interface__", (getter)kp_view_array_interface, NULL,
     "NumPy array interface (v3), host-accessible Views only.", NULL},
    {"__cuda_array_interface__", (getter)kp_view_cuda_array_interface, NULL,
     "CUDA array interface (version 3) of Views in CUDA memory spaces; AttributeError for other spaces.", NULL},
    {NULL}};

/* ---- Kokkos-style methods ------------------------------------------------------------------ */

static int dim_arg(kp_view *v, PyObject *arg, const char *name, int *out) {
  long r = PyLong_AsLong(arg);
  if (r == -1 && PyErr_Occurred()) return -1;
  if (r < 0 || r >= (v->rank > 0 ? v->rank : 1)) {
    if (r >= 0 && r < KP_MAX_RANK) {
      *out = -1; /* Kokkos: extent of a rank beyond the View's is 1 */
      return 0;
    }
    PyErr_Format(PyExc_IndexError, "View.%s(): dimension %ld out of range for a rank-%d View", name, r, v->rank);
    return -1;
  }
  *out = (int)r;
  return 0;
}

static PyObject *view_extent(kp_view *v, PyObject *arg) {
  int r;
  if (dim_arg(v, arg, "extent", &r) < 0) return NULL;
  return PyLong_FromSsize_t(r < 0 || r >= v->rank ? 1 : v->shape[r]);
}

static PyObject *view_stride(kp_view *v, PyObject *arg) {
  int r;
  if (dim_arg(v, arg, "stride", &r) < 0) return NULL;
  if (r < 0 || r >= v->rank) return PyLong_FromSsize_t(kp_view_size(v));
  return PyLong_FromSsize_t(v->strides[r]);
}

static PyObject *view_span(kp_view *v, PyObject *unused) {
  Py_ssize_t lo = 0, hi = 0;
  if (kp_view_size(v) == 0) return PyLong_FromLong(0);
  for (int r = 0; r < v->rank; ++r) {
    Py_ssize_t d = (v->shape[r] - 1) * v->strides[r];
    if (d < 0)
      lo += d;
    else
      hi += d;
  }
  return PyLong_FromSsize_t(hi - lo + 1);
}

static PyObject *view_span_is_contiguous(kp_view *v, PyObject *unused) { return view_get_contiguous(v, NULL); }
static PyObject *view_use_count(kp_view *v, PyObject *unused) {
  return PyLong_FromSsize_t(v->owner ? Py_REFCNT(v->owner) : 0);
}

static PyMethodDef view_methods[] = {
    {"extent", (PyCFunction)view_extent, METH_O,
     "extent(r): the extent of dimension r (1 beyond the rank, as Kokkos)."},
    {"stride", (PyCFunction)view_stride, METH_O, "stride(r): the stride of dimension r in elements."},
    {"span", (PyCFunction)view_span, METH_NOARGS, "Number of elements between the first and last (inclusive)."},
    {"span_is_contiguous", (PyCFunction)view_span_is_contiguous, METH_NOARGS, "True if the span has no gaps."},
    {"use_count", (PyCFunction)view_use_count, METH_NOARGS, "Number of references to the shared allocation."},
    {"__complex__", (PyCFunction)kp_view_complex, METH_NOARGS, "complex(view): the element of a one-element View."},
    {"create_mirror", (PyCFunction)(void (*)(void))kp_view_create_mirror, METH_FASTCALL | METH_KEYWORDS,
     "create_mirror(copy=True, space=None): a new View in host memory (or space) with this shape and layout; "
     "copy=True copies the data."},
    {"create_mirror_view", (PyCFunction)(void (*)(void))kp_view_create_mirror_view, METH_FASTCALL | METH_KEYWORDS,
     "create_mirror_view(copy=True, space=None): this View itself (no copy, whatever copy says) when the host "
     "(or space) can access it; else a new mirror, into which copy=True copies the data."},
    {"deep_copy", (PyCFunction)(void (*)(void))kp_view_deep_copy_method, METH_FASTCALL | METH_KEYWORDS,
     "deep_copy(src): copy src (View, array, buffer or scalar) into this View."},
    {"__dlpack__", (PyCFunction)(void (*)(void))kp_view_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n\n"
     "Export the View as a DLPack capsule (the Python array API's DLPack protocol): a versioned "
     "'dltensor_versioned' capsule (with READ_ONLY / IS_COPIED flags) when max_version >= (1, 0), else a legacy "
     "'dltensor' one. The capsule keeps the memory alive. dl_device=(1, 0) exports host-accessible memory to the "
     "CPU, or a host copy of device memory unless copy=False; copy=True always exports a copy."},
    {"__dlpack_device__", (PyCFunction)kp_view_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (device_type, device_id): where the View's memory lives, in DLPack's terms."},
    {"__reduce_ex__", (PyCFunction)kp_view_reduce_ex, METH_O,
     "__reduce_ex__(protocol): pickle support (kokkos.pickling): protocol 5 hands the memory out of band, "
     "earlier protocols copy it by value."},
    {NULL}};

/* ---- repr ------------------------------------------------------------------------------------ */

static PyObject *view_repr(kp_view *v) {
  PyObject *shape = kp_view_extents_tuple(v, 0);
  if (!shape) return NULL;
  char traits[96];
  kp_trait_names(v->traits, traits, sizeof traits);
  PyObject *r = PyUnicode_FromFormat("kokkos.%s(label=%R, shape=%R, dtype=%s, space=%s, layout=%s, trait=%s%s)",
                                     kp_view_is_dynamic(v) ? "DynRankView" : "View", v->label, shape,
                                     kp_dtypes[v->dtype].name, kp_spaces[v->space].name, kp_layout_names[v->layout],
                                     traits, (v->owner && v->owner->released) ? ", released" : "");
  Py_DECREF(shape);
  return r;
}

/* ---- types ------------------------------------------------------------------------------------ */

static PyMemberDef view_members[] = {{"__weaklistoffset__", T_PYSSIZET, offsetof(kp_view, weakreflist), READONLY},
                                     {NULL}};

static PyType_Slot view_slots[] = {
    {Py_tp_new, kp_view_new},
    {Py_tp_dealloc, kp_view_dealloc},
    {Py_tp_traverse, kp_view_traverse},
    {Py_tp_clear, kp_view_clear},
    {Py_tp_repr, view_repr},
    {Py_tp_getset, view_getset},
    {Py_tp_methods, view_methods},
    {Py_tp_members, view_members},
    {Py_mp_subscript, kp_view_subscript},
    {Py_mp_ass_subscript, kp_view_ass_subscript},
    {Py_mp_length, kp_view_length},
    {Py_sq_length, kp_view_length},
    {Py_sq_item, kp_view_item},
    {Py_nb_float, kp_view_float},
    {Py_nb_int, kp_view_int},
    {Py_nb_index, kp_view_index},
    {Py_nb_bool, kp_view_bool},
    {Py_bf_getbuffer, kp_view_getbuffer},
    {Py_bf_releasebuffer, kp_view_releasebuffer},
    {Py_tp_doc,
     "View(shape, dtype=kokkos.float64, *, label='', space=kokkos.HostSpace, layout=kokkos.LayoutRight, "
     "trait=kokkos.Managed, initialize=True)\n\nA Kokkos View: a labelled, reference-counted array in a Kokkos memory "
     "space. New Views are zero-filled unless initialize=False (Kokkos' WithoutInitializing)."},
    {0, NULL}};

PyType_Spec kp_view_type_spec = {
    "kokkos.View", sizeof(kp_view), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE, view_slots};

static PyType_Slot dyn_rank_view_slots[] = {
    {Py_tp_dealloc, kp_view_dealloc},
    {Py_tp_traverse, kp_view_traverse},
    {Py_tp_clear, kp_view_clear},
    {Py_tp_doc,
     "DynRankView(shape, dtype=kokkos.float64, *, label='', space=kokkos.HostSpace, layout=kokkos.LayoutRight, "
     "trait=kokkos.Managed, initialize=True)\n\nA Kokkos DynRankView: a View whose rank (0..7) is chosen at run time."},
    {0, NULL}};

PyType_Spec kp_dyn_rank_view_type_spec = {
    "kokkos.DynRankView", sizeof(kp_view), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE, dyn_rank_view_slots};

/* The View type's one class attribute, which no slot can declare: the DLPack
 * C exchange table (__dlpack_c_exchange_api__), looked up on the type by
 * consumers. Written into the new type's dict before any View exists, as
 * NumPy does for its array type; nothing changes the type after this. */
int kp_view_type_add_class_attributes(PyTypeObject *view_type) {
  PyObject *api = kp_dlpack_exchange_api_capsule();
  if (!api) return -1;
  int rc = PyDict_SetItemString(view_type->tp_dict, "__dlpack_c_exchange_api__", api);
  Py_DECREF(api);
  if (rc < 0) return -1;
  PyType_Modified(view_type);
  return 0;
}
