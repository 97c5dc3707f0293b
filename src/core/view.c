/* view.c: the View type (and its DynRankView subclass): construction,
 * metadata properties, repr, lifetime.
 *
 * Python equivalent:
 *
 *     class View:
 *         def __init__(self, shape, dtype=kokkos.float64, *, label="",
 *                      space=kokkos.HostSpace, layout=kokkos.LayoutRight,
 *                      trait=kokkos.Managed, initialize=True): ...
 *         shape, ndim, rank, dtype, space, layout, trait, label, size,
 *         nbytes, itemsize, strides, dynamic, is_contiguous, data, ...
 *     class DynRankView(View): ...   # rank 0..7, as Kokkos::DynRankView
 *
 * A View is a value-described Kokkos View: pointer, dtype, rank, extents,
 * strides, layout, memory space and traits are fields, not template
 * arguments, so every combination exists in every build.
 */
#include "core.h"

#include <string.h>
#include <structmember.h>

/* Storage for the data pointer of empty Views: never read or written. */
static _Alignas(16) char kp_empty_storage[16];

static PyObject *view_new(PyTypeObject *type, PyObject *args, PyObject *kwds);

int kp_view_check(PyObject *obj) {
  /* A View's type, or a subclass's, has View in its MRO, and View's tp_new is
   * view_new: no module lookup (which would import for foreign types). */
  PyObject *mro = Py_TYPE(obj)->tp_mro;
  if (!mro || !PyTuple_Check(mro)) return 0;
  for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(mro); i < n; ++i)
    if (((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_new == view_new) return 1;
  return 0;
}

static int is_dynamic(const kp_view *v) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  return st && PyObject_TypeCheck((PyObject *)v, st->dyn_rank_view_type);
}

Py_ssize_t kp_view_size(const kp_view *v) {
  Py_ssize_t n = 1;
  for (int r = 0; r < v->rank; ++r) n *= v->shape[r];
  return n;
}

void kp_contiguous_strides(int rank, const Py_ssize_t *shape, int layout, Py_ssize_t *strides) {
  /* Unsigned: callers may compute strides of foreign extents before they
   * check the size (kp_checked_bytes), and must not overflow doing so. */
  size_t s = 1;
  if (layout == KP_LAYOUT_LEFT) {
    for (int r = 0; r < rank; ++r) {
      strides[r] = (Py_ssize_t)s;
      s *= shape[r] > 0 ? (size_t)shape[r] : 1;
    }
  } else {
    for (int r = rank - 1; r >= 0; --r) {
      strides[r] = (Py_ssize_t)s;
      s *= shape[r] > 0 ? (size_t)shape[r] : 1;
    }
  }
}

static int strides_match(int rank, const Py_ssize_t *shape, const Py_ssize_t *strides, int layout) {
  Py_ssize_t expect[KP_MAX_RANK];
  kp_contiguous_strides(rank, shape, layout, expect);
  for (int r = 0; r < rank; ++r) {
    if (shape[r] == 0) return 1; /* empty: any strides describe it */
    if (shape[r] != 1 && strides[r] != expect[r]) return 0;
  }
  return 1;
}

int kp_layout_of(int rank, const Py_ssize_t *shape, const Py_ssize_t *strides) {
  if (strides_match(rank, shape, strides, KP_LAYOUT_RIGHT)) return KP_LAYOUT_RIGHT;
  if (strides_match(rank, shape, strides, KP_LAYOUT_LEFT)) return KP_LAYOUT_LEFT;
  return KP_LAYOUT_STRIDE;
}

int kp_view_is_c_contiguous(const kp_view *v) { return strides_match(v->rank, v->shape, v->strides, KP_LAYOUT_RIGHT); }
int kp_view_is_f_contiguous(const kp_view *v) { return strides_match(v->rank, v->shape, v->strides, KP_LAYOUT_LEFT); }

int kp_checked_bytes(int rank, const Py_ssize_t *shape, Py_ssize_t itemsize, size_t *out, const char *where) {
  /* As NumPy: the nonzero extents must fit even when another is 0, so that
   * strides (products of extents) never overflow. */
  size_t n = (size_t)itemsize;
  int empty = 0;
  for (int r = 0; r < rank; ++r) {
    size_t e = (size_t)shape[r];
    if (e == 0) {
      empty = 1;
      continue;
    }
    if (n > (size_t)PY_SSIZE_T_MAX / e) {
      PyErr_Format(PyExc_ValueError, "%s: a View of this shape would need more than %zd bytes; reduce the extents",
                   where, PY_SSIZE_T_MAX);
      return -1;
    }
    n *= e;
  }
  *out = empty ? 0 : n;
  return 0;
}

int kp_check_span(int rank, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize,
                  const char *where) {
  size_t span = (size_t)itemsize; /* bytes from the lowest to the highest element, inclusive */
  for (int r = 0; r < rank; ++r)
    if (shape[r] == 0) return 0;
  for (int r = 0; r < rank; ++r) {
    size_t n = (size_t)(shape[r] - 1);
    size_t s = strides[r] < 0 ? (size_t)0 - (size_t)strides[r] : (size_t)strides[r];
    size_t step;
    if (s != 0 && n > (size_t)PY_SSIZE_T_MAX / s) goto too_far;
    step = n * s;
    if (step > (size_t)PY_SSIZE_T_MAX / (size_t)itemsize) goto too_far;
    step *= (size_t)itemsize;
    if (span > (size_t)PY_SSIZE_T_MAX - step) goto too_far;
    span += step;
  }
  return 0;
too_far:
  PyErr_Format(PyExc_BufferError,
               "%s: these extents and strides would span more than %zd bytes; they cannot describe memory "
               "(check the producer of this array)",
               where, PY_SSIZE_T_MAX);
  return -1;
}

kp_view *kp_view_wrap(kp_state *st, PyTypeObject *type, kp_owner *owner, char *data, int rank, const Py_ssize_t *shape,
                      const Py_ssize_t *strides, int dtype, int space, unsigned traits, int readonly, PyObject *label) {
  Py_ssize_t itemsize = kp_dtypes[dtype].itemsize;
  if (kp_check_span(rank, shape, strides, itemsize, "kokkos") < 0) return NULL;
  if (!type) type = st->view_type;
  if (kp_view_class_is_combination(st, type)) type = type->tp_base; /* a subview of a View: its own class */
  int layout = kp_layout_of(rank, shape, strides);
  /* View and DynRankView make Views of their combination's class; a
   * Python subclass (class MyView(kokkos.View)) keeps its own, and may add
   * a __dict__ and weak-reference slots after the struct: its generic
   * allocation zeroes them and starts tracking the object. */
  int exact = type == st->view_type || type == st->dyn_rank_view_type;
  if (exact) {
    type = kp_view_class(st, type == st->dyn_rank_view_type, dtype, space, layout, traits, rank);
    if (!type) return NULL;
  }
  kp_view *v = exact ? PyObject_GC_New(kp_view, type) : (kp_view *)type->tp_alloc(type, 0);
  if (!v) return NULL;
  v->owner = (kp_owner *)Py_XNewRef((PyObject *)owner);
  v->rank = rank;
  v->dtype = dtype;
  v->space = space;
  v->traits = traits;
  v->readonly = readonly;
  v->exports = 0;
  v->weakreflist = NULL;
  v->cai = NULL;
  v->label = label ? Py_NewRef(label) : PyUnicode_FromString("");
  Py_ssize_t size = 1;
  for (int r = 0; r < rank; ++r) {
    v->shape[r] = shape[r];
    v->strides[r] = strides[r];
    v->byte_strides[r] = strides[r] * itemsize;
    size *= shape[r];
  }
  v->data = (size == 0 || !data) ? kp_empty_storage : data;
  v->layout = layout;
  /* A View of Kokkos-owned memory references no Python object that could
   * lead back to it (its Allocation holds only a str label): the cycle
   * collector need not look at it, as NumPy's arrays are not looked at. */
  if (exact && owner && owner->kind != KP_OWNER_KOKKOS) PyObject_GC_Track(v);
  return v;
}

kp_view *kp_view_allocate(kp_state *st, const kp_view_spec *spec, PyObject *label) {
  const char *where = "kokkos.View";
  size_t bytes;
  if (kp_space_check_available(spec->space, where) < 0) return NULL;
  if (kp_checked_bytes(spec->rank, spec->shape, kp_dtypes[spec->dtype].itemsize, &bytes, where) < 0) return NULL;
  kp_owner *owner = NULL;
  if (bytes > 0) {
    owner = kp_owner_allocate(st, spec->space, label, bytes, spec->zero);
    if (!owner) return NULL;
  } else if (kp_runtime_ensure() < 0) {
    return NULL;
  }
  Py_ssize_t strides[KP_MAX_RANK];
  kp_contiguous_strides(spec->rank, spec->shape, spec->layout == KP_LAYOUT_LEFT ? KP_LAYOUT_LEFT : KP_LAYOUT_RIGHT,
                        strides);
  PyTypeObject *type = spec->type ? spec->type : spec->dynamic ? st->dyn_rank_view_type : st->view_type;
  kp_view *v = kp_view_wrap(st, type, owner, owner ? owner->data : NULL, spec->rank, spec->shape, strides, spec->dtype,
                            spec->space, spec->traits & ~KP_TRAIT_UNMANAGED, 0, label);
  Py_XDECREF(owner);
  if (!v) return NULL;
  /* extents of 1 make the strides fit both orders: keep the one asked for */
  if (v->layout != spec->layout) {
    v->layout = spec->layout;
    if (kp_view_retype(v) < 0) Py_CLEAR(v);
  }
  return v;
}

int kp_view_check_released(kp_view *v) {
  if (v->owner && v->owner->released) {
    PyErr_Format(PyExc_RuntimeError,
                 "View '%U' was released when Kokkos was finalized; its memory is gone. Copy data out "
                 "(numpy.array(view)) before kokkos.finalize()",
                 v->label);
    return 1;
  }
  return 0;
}

int kp_view_require_host(kp_view *v, PyObject *exc, const char *what) {
  if (kp_bridge_space_host_accessible(v->space)) return 1;
  PyErr_Format(exc,
               "%s: View '%U' lives in %s, which the host cannot access; use view.create_mirror_view() "
               "(or kokkos.create_mirror_view(view), then kokkos.deep_copy) to get a host copy",
               what, v->label, kp_spaces[v->space].name);
  return 0;
}

/* ---- construction from Python ------------------------------------------------------------ */

/* Parses a shape argument (int or sequence of ints) into spec. */
int kp_parse_shape(PyObject *obj, kp_view_spec *spec, int max_rank, const char *where) {
  PyObject *seq = NULL;
  if (PyLong_Check(obj) ||
      (!PySequence_Check(obj) && Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_index)) {
    seq = PyTuple_Pack(1, obj);
  } else {
    /* A copy: an extent's __index__ may change a list while it is read. */
    seq = PySequence_Tuple(obj);
    if (!seq) {
      PyErr_Format(PyExc_TypeError, "%s: shape must be an int or a sequence of ints, got %.100s", where,
                   Py_TYPE(obj)->tp_name);
      return -1;
    }
  }
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > max_rank) {
    PyErr_Format(PyExc_ValueError, "%s: rank %zd is larger than the maximum %d of a %s", where, n, max_rank,
                 max_rank == KP_MAX_RANK ? "Kokkos View" : "Kokkos DynRankView");
    Py_DECREF(seq);
    return -1;
  }
  spec->rank = (int)n;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    PyObject *idx = PyBool_Check(item) ? NULL : PyNumber_Index(item);
    if (!idx) {
      PyErr_Format(PyExc_TypeError, "%s: shape[%zd] must be an int, got %.100s", where, i, Py_TYPE(item)->tp_name);
      Py_DECREF(seq);
      return -1;
    }
    Py_ssize_t e = PyLong_AsSsize_t(idx);
    Py_DECREF(idx);
    if (e == -1 && PyErr_Occurred()) {
      PyErr_Format(PyExc_ValueError, "%s: shape[%zd] is too large", where, i);
      Py_DECREF(seq);
      return -1;
    }
    if (e < 0) {
      PyErr_Format(PyExc_ValueError, "%s: shape[%zd] must be >= 0, got %zd", where, i, e);
      Py_DECREF(seq);
      return -1;
    }
    spec->shape[i] = e;
  }
  Py_DECREF(seq);
  return 0;
}

int kp_check_label_text(PyObject *label, const char *where) {
  Py_ssize_t len;
  const char *s = PyUnicode_AsUTF8AndSize(label, &len);
  if (!s) return -1;
  if ((Py_ssize_t)strlen(s) != len) {
    PyErr_Format(PyExc_ValueError, "%s: label must not contain NUL characters", where);
    return -1;
  }
  return 0;
}

static const kp_signature sig_view = {
    "kokkos.View()",
    7,
    2,
    1,
    {KP_KW_SHAPE, KP_KW_DTYPE, KP_KW_LABEL, KP_KW_SPACE, KP_KW_LAYOUT, KP_KW_TRAIT, KP_KW_INITIALIZE}};
static const kp_signature sig_dyn_rank_view = {
    "kokkos.DynRankView()",
    7,
    2,
    1,
    {KP_KW_SHAPE, KP_KW_DTYPE, KP_KW_LABEL, KP_KW_SPACE, KP_KW_LAYOUT, KP_KW_TRAIT, KP_KW_INITIALIZE}};

/* View(shape, dtype=None, *, label, space, layout, trait, initialize), or
 * the original package's View(label, shape, **keywords), as a vector call. */
static PyObject *view_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  PyTypeObject *type = (PyTypeObject *)callable;
  kp_state *st = kp_state_from_type(type);
  if (!st) return NULL;
  int dynamic = PyType_IsSubtype(type, st->dyn_rank_view_type);
  const kp_signature *sig = dynamic ? &sig_dyn_rank_view : &sig_view;
  const char *where = sig->name;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject *a[7];
  PyObject *label_first = NULL;
  if (nargs >= 2 && PyUnicode_Check(args[0])) {
    /* The original package's classes took (label, shape). */
    if (nargs > 2) {
      PyErr_Format(PyExc_TypeError, "%s: takes (shape, dtype) or (label, shape) positionally", where);
      return NULL;
    }
    kp_signature keywords_only = *sig;
    keywords_only.required = 0;
    if (kp_args_parse(st, &keywords_only, args + 2, 0, kwnames, a) < 0) return NULL;
    if (a[0]) {
      PyErr_Format(PyExc_TypeError, "%s: got multiple values for argument 'shape'", where);
      return NULL;
    }
    a[0] = args[1];
    label_first = args[0];
  } else {
    if (kp_args_parse(st, sig, args, nargs, kwnames, a) < 0) return NULL;
  }
  PyObject *shape = a[0], *dtype = a[1], *label = a[2] ? a[2] : label_first;
  PyObject *space = a[3], *layout = a[4], *trait = a[5];
  int initialize = kp_args_bool(a[6], where, "initialize", 1);
  if (initialize < 0) return NULL;
  kp_view_spec spec = {0};
  spec.dynamic = dynamic;
  if (type != st->view_type && type != st->dyn_rank_view_type && !kp_view_class_is_combination(st, type))
    spec.type = type; /* a Python subclass */
  spec.zero = initialize;
  spec.dtype = KP_DTYPE_FLOAT64;
  spec.space = KP_SPACE_HOST;
  spec.layout = KP_LAYOUT_RIGHT;
  if (kp_parse_shape(shape, &spec, dynamic ? KP_MAX_RANK - 1 : KP_MAX_RANK, where) < 0) return NULL;
  if (dtype && dtype != Py_None && (spec.dtype = kp_arg_dtype(st, dtype, where)) < 0) return NULL;
  if (space && space != Py_None && (spec.space = kp_arg_space(st, space, where)) < 0) return NULL;
  if (layout && layout != Py_None && (spec.layout = kp_arg_layout(st, layout, where)) < 0) return NULL;
  if (trait) {
    int t = kp_arg_trait(st, trait, where);
    if (t < 0) return NULL;
    if (t & KP_TRAIT_UNMANAGED) {
      PyErr_Format(PyExc_ValueError,
                   "%s: an Unmanaged View wraps existing memory; use kokkos.array(ndarray, trait=kokkos.Unmanaged) "
                   "or kokkos.asarray(obj) instead",
                   where);
      return NULL;
    }
    spec.traits = (unsigned)t;
  }
  if (label == Py_None) label = NULL;
  if (label && !PyUnicode_Check(label)) {
    PyErr_Format(PyExc_TypeError, "%s: label must be a str, got %.100s", where, Py_TYPE(label)->tp_name);
    return NULL;
  }
  if (label && kp_check_label_text(label, where) < 0) return NULL;
  return (PyObject *)kp_view_allocate(st, &spec, label);
}

/* tp_new (Python subclasses, type.__call__ with a dict): the vector call's
 * arguments laid out from the tuple and the dict. */
static PyObject *view_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  Py_ssize_t nargs = PyTuple_GET_SIZE(args), nkw = kwds ? PyDict_GET_SIZE(kwds) : 0;
  if (nargs + nkw > 16) {
    PyErr_SetString(PyExc_TypeError, "kokkos.View(): too many arguments");
    return NULL;
  }
  PyObject *stack[16];
  for (Py_ssize_t i = 0; i < nargs; ++i) stack[i] = PyTuple_GET_ITEM(args, i);
  PyObject *kwnames = NULL;
  if (nkw) {
    kwnames = PyTuple_New(nkw);
    if (!kwnames) return NULL;
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwds, &pos, &key, &value)) {
      PyTuple_SET_ITEM(kwnames, k, Py_NewRef(key));
      stack[nargs + k] = value;
      ++k;
    }
  }
  PyObject *res = view_vectorcall((PyObject *)type, stack, (size_t)nargs, kwnames);
  Py_XDECREF(kwnames);
  return res;
}

void kp_view_type_set_vectorcall(PyTypeObject *type) { type->tp_vectorcall = view_vectorcall; }

static int view_traverse(kp_view *v, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(v));
  Py_VISIT(v->owner);
  Py_VISIT(v->cai);
  return 0;
}

static int view_clear(kp_view *v) {
  Py_CLEAR(v->owner);
  Py_CLEAR(v->cai);
  return 0;
}

static void view_dealloc(kp_view *v) {
  PyTypeObject *tp = Py_TYPE(v);
  PyObject_GC_UnTrack(v);
  if (v->weakreflist) PyObject_ClearWeakRefs((PyObject *)v);
  view_clear(v);
  Py_CLEAR(v->label);
  tp->tp_free((PyObject *)v);
  Py_DECREF(tp);
}

/* ---- properties --------------------------------------------------------------------- */

static PyObject *member_or_int(PyObject *members, int i) {
  if (members && PyTuple_Check(members) && i >= 0 && i < PyTuple_GET_SIZE(members))
    return Py_NewRef(PyTuple_GET_ITEM(members, i));
  return PyLong_FromLong(i);
}

static PyObject *shape_tuple(const kp_view *v, int bytes) {
  PyObject *t = PyTuple_New(v->rank);
  if (!t) return NULL;
  for (int r = 0; r < v->rank; ++r) {
    PyObject *e = PyLong_FromSsize_t(bytes ? v->byte_strides[r] : v->shape[r]);
    if (!e) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, r, e);
  }
  return t;
}

static PyObject *view_get_shape(kp_view *v, void *c) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  if (st && st->shape_type && PyType_Check(st->shape_type) &&
      PyType_IsSubtype((PyTypeObject *)st->shape_type, &PyTuple_Type) &&
      ((PyTypeObject *)st->shape_type)->tp_itemsize == PyTuple_Type.tp_itemsize) {
    /* kokkos' Shape is a tuple subclass without a __dict__: fill one
     * directly, as tuple.__new__ does for subclasses. */
    PyTypeObject *shape_type = (PyTypeObject *)st->shape_type;
    PyObject *s = shape_type->tp_alloc(shape_type, v->rank);
    if (!s) return NULL;
    for (int r = 0; r < v->rank; ++r) {
      PyObject *e = PyLong_FromSsize_t(v->shape[r]);
      if (!e) {
        Py_DECREF(s);
        return NULL;
      }
      PyTuple_SET_ITEM(s, r, e);
    }
    return s;
  }
  PyObject *t = shape_tuple(v, 0);
  if (!t || !st || !st->shape_type) return t;
  PyObject *s = PyObject_CallOneArg(st->shape_type, t);
  Py_DECREF(t);
  return s;
}
static PyObject *view_get_strides(kp_view *v, void *c) { return shape_tuple(v, 1); }
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
static PyObject *view_get_dynamic(kp_view *v, void *c) { return PyBool_FromLong(is_dynamic(v)); }
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
  PyObject *shape = shape_tuple(v, 0);
  if (!shape) return NULL;
  char traits[96] = "";
  static const char *names[] = {"Unmanaged", "RandomAccess", "Atomic", "Restrict", "Aligned"};
  for (int i = 0; i < 5; ++i) {
    if (v->traits & (1u << i)) {
      if (traits[0]) strcat(traits, "|");
      strcat(traits, names[i]);
    }
  }
  if (!traits[0]) strcpy(traits, "Managed");
  PyObject *r = PyUnicode_FromFormat("kokkos.%s(label=%R, shape=%R, dtype=%s, space=%s, layout=%s, trait=%s%s)",
                                     is_dynamic(v) ? "DynRankView" : "View", v->label, shape, kp_dtypes[v->dtype].name,
                                     kp_spaces[v->space].name, kp_layout_names[v->layout], traits,
                                     (v->owner && v->owner->released) ? ", released" : "");
  Py_DECREF(shape);
  return r;
}

/* ---- types ------------------------------------------------------------------------------------ */

static PyMemberDef view_members[] = {{"__weaklistoffset__", T_PYSSIZET, offsetof(kp_view, weakreflist), READONLY},
                                     {NULL}};

static PyType_Slot view_slots[] = {
    {Py_tp_new, view_new},
    {Py_tp_dealloc, view_dealloc},
    {Py_tp_traverse, view_traverse},
    {Py_tp_clear, view_clear},
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
    {Py_tp_dealloc, view_dealloc},
    {Py_tp_traverse, view_traverse},
    {Py_tp_clear, view_clear},
    {Py_tp_doc,
     "DynRankView(shape, dtype=kokkos.float64, *, label='', space=kokkos.HostSpace, layout=kokkos.LayoutRight, "
     "trait=kokkos.Managed, initialize=True)\n\nA Kokkos DynRankView: a View whose rank (0..7) is chosen at run time."},
    {0, NULL}};

PyType_Spec kp_dyn_rank_view_type_spec = {
    "kokkos.DynRankView", sizeof(kp_view), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE, dyn_rank_view_slots};

/* The slots of the per-combination classes (view_class.c): View's lifetime
 * functions, everything else inherited. */
PyType_Slot kp_view_class_slots[] = {
    {Py_tp_dealloc, view_dealloc},
    {Py_tp_traverse, view_traverse},
    {Py_tp_clear, view_clear},
    {Py_tp_doc,
     "A Kokkos View of one dtype, memory space, layout, memory traits and rank, named as the original "
     "pykokkos-base named its classes; everything else is kokkos.View's (or kokkos.DynRankView's)."},
    {0, NULL}};
