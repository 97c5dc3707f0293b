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
#include "base.h"
#include "model.h"

#include <string.h>
#include <structmember.h>

/* Storage for the data pointer of empty Views: never read or written. */
static _Alignas(16) char kp_empty_storage[16];

PyObject *kp_view_new(PyTypeObject *type, PyObject *args, PyObject *kwds);

int kp_view_check(PyObject *obj) {
  /* A View's type, or a subclass's, has View in its MRO, and View's tp_new is
   * kp_view_new: no module lookup (which would import for foreign types). */
  PyObject *mro = Py_TYPE(obj)->tp_mro;
  if (!mro || !PyTuple_Check(mro)) return 0;
  for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(mro); i < n; ++i)
    if (((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_new == kp_view_new) return 1;
  return 0;
}

int kp_view_is_dynamic(const kp_view *v) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  return st && PyObject_TypeCheck((PyObject *)v, st->dyn_rank_view_type);
}

Py_ssize_t kp_view_size(const kp_view *v) {
  Py_ssize_t n = 1;
  for (int r = 0; r < v->rank; ++r) n *= v->shape[r];
  return n;
}

PyObject *kp_view_extents_tuple(const kp_view *v, int bytes) {
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
    /* n * e > PY_SSIZE_T_MAX, without the 64-bit division (tens of cycles,
     * on every View handed over from C++) where the compiler can say */
#if defined(__GNUC__) || defined(__clang__)
    size_t product;
    int too_big = __builtin_mul_overflow(n, e, &product) || product > (size_t)PY_SSIZE_T_MAX;
#else
    int too_big = n > (size_t)PY_SSIZE_T_MAX / e;
    size_t product = n * e;
#endif
    if (too_big) {
      PyErr_Format(PyExc_ValueError, "%s: a View of this shape would need more than %zd bytes; reduce the extents",
                   where, PY_SSIZE_T_MAX);
      return -1;
    }
    n = product;
  }
  *out = empty ? 0 : n;
  return 0;
}

/* a * b in *out; 1 when it overflows size_t. */
static int mul_overflows(size_t a, size_t b, size_t *out) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_mul_overflow(a, b, out);
#else
  if (b != 0 && a > SIZE_MAX / b) return 1;
  *out = a * b;
  return 0;
#endif
}

int kp_check_span_at(const char *data, int rank, const Py_ssize_t *shape, const Py_ssize_t *strides,
                     Py_ssize_t itemsize, const char *where) {
  const size_t max = (size_t)PY_SSIZE_T_MAX, isz = (size_t)itemsize;
  /* Bytes from the first element down to the lowest one and up to the
   * highest one; each at most max, so their sum cannot wrap. */
  size_t below = 0, above = 0;
  int empty = 0, r;
  for (r = 0; r < rank; ++r) {
    /* Every stride, whatever its extent: byte_strides holds stride *
     * itemsize, and an empty View's other extents can still be indexed. */
    size_t s = strides[r] < 0 ? (size_t)0 - (size_t)strides[r] : (size_t)strides[r];
    size_t step, reach;
    if (mul_overflows(s, isz, &step) || step > max) {
      PyErr_Format(PyExc_BufferError,
                   "%s: strides[%d] is %zd elements of %zd bytes: these strides would span more than %zd bytes in "
                   "one step; they cannot describe memory (check the producer of this array)",
                   where, r, strides[r], itemsize, PY_SSIZE_T_MAX);
      return -1;
    }
    if (shape[r] == 0) {
      empty = 1;
      continue; /* no index along it, so no offset either */
    }
    size_t *side = strides[r] < 0 ? &below : &above;
    if (mul_overflows((size_t)(shape[r] - 1), step, &reach) || reach > max - *side) goto too_far;
    *side += reach;
  }
  if (below + above > max - isz) goto too_far;
  /* The elements must not run off either end of the address space. */
  if (data && !empty && ((uintptr_t)data < below || UINTPTR_MAX - (uintptr_t)data < above + (isz - 1))) {
    PyErr_Format(PyExc_BufferError,
                 "%s: elements from %zu bytes below to %zu bytes above address %p would run off the address space; "
                 "these extents and strides cannot describe memory (check the producer of this array)",
                 where, below, above + isz, (const void *)data);
    return -1;
  }
  return 0;
too_far:
  if (r < rank)
    PyErr_Format(PyExc_BufferError,
                 "%s: these extents and strides would span more than %zd bytes (shape[%d] = %zd with strides[%d] = "
                 "%zd elements of %zd bytes); they cannot describe memory (check the producer of this array)",
                 where, PY_SSIZE_T_MAX, r, shape[r], r, strides[r], itemsize);
  else
    PyErr_Format(PyExc_BufferError,
                 "%s: these extents and strides would span more than %zd bytes; they cannot describe memory (check "
                 "the producer of this array)",
                 where, PY_SSIZE_T_MAX);
  return -1;
}

kp_view *kp_view_wrap(kp_state *st, PyTypeObject *type, kp_owner *owner, char *data, int rank, const Py_ssize_t *shape,
                      const Py_ssize_t *strides, int dtype, int space, unsigned traits, int readonly, PyObject *label) {
  if (kp_check_span_at(data, rank, shape, strides, kp_dtypes[dtype].itemsize, "kokkos") < 0) return NULL;
  return kp_view_wrap_as(st, type, owner, data, rank, shape, strides, dtype, space, kp_layout_of(rank, shape, strides),
                         traits, readonly, label);
}

/* The label rule (kp_kokkos_text) at the door every View goes through:
 * kp_view_allocate before Kokkos sees the label, kp_view_wrap_as for the
 * others. The empty label, and ASCII ones without NUL, pass in place. A
 * str cannot change, so the last exact str that passed is kept and passes
 * again on sight (a loop's label, kokkos.array's cached default labels);
 * a subclass is never kept (dropping it could run its __del__ here). */
static int view_label_door(kp_state *st, PyObject *label) {
  if (!label || label == st->empty_str || label == st->label_passed) return 0;
  int plain = PyUnicode_Check(label) && PyUnicode_IS_ASCII(label) &&
              !kp_has_nul((const char *)PyUnicode_DATA(label), (size_t)PyUnicode_GET_LENGTH(label));
  if (!plain && !kp_kokkos_text(label, "kokkos", "a View's label")) return -1;
  if (PyUnicode_CheckExact(label)) Py_XSETREF(st->label_passed, Py_NewRef(label));
  return 0;
}

kp_view *kp_view_wrap_as(kp_state *st, PyTypeObject *type, kp_owner *owner, char *data, int rank,
                         const Py_ssize_t *shape, const Py_ssize_t *strides, int dtype, int space, int layout,
                         unsigned traits, int readonly, PyObject *label) {
  /* (a label its Allocation holds passed the door when it was allocated) */
  if ((!owner || label != owner->label) && view_label_door(st, label) < 0) return NULL;
  Py_ssize_t itemsize = kp_dtypes[dtype].itemsize;
  if (!type) type = st->view_type;
  if (kp_view_class_is_combination(st, type)) type = type->tp_base; /* a subview of a View: its own class */
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
  v->shape_obj = NULL;
  v->label = Py_NewRef(label ? label : st->empty_str);
  Py_ssize_t size = 1;
  for (int r = 0; r < rank; ++r) {
    v->shape[r] = shape[r];
    v->strides[r] = strides[r];
    v->byte_strides[r] = strides[r] * itemsize;
    size *= shape[r];
  }
  v->data = (size == 0 || !data) ? kp_empty_storage : data;
  v->layout = layout;
  /* A View whose Allocation holds no Python object the collector can see
   * (Kokkos memory: a str label; memory handed over with a deleter: an
   * opaque context) references nothing that could lead back to it: the
   * cycle collector need not look at it, as NumPy's arrays are not looked
   * at. Views of foreign memory are: the exporter may hold the View. */
  if (exact && owner && owner->kind == KP_OWNER_PYOBJECT) PyObject_GC_Track(v);
  return v;
}

kp_view *kp_view_allocate(kp_state *st, const kp_view_spec *spec, PyObject *label) {
  const char *where = "kokkos.View";
  size_t bytes;
  if (kp_space_check_available(spec->space, where) < 0) return NULL;
  if (kp_checked_bytes(spec->rank, spec->shape, kp_dtypes[spec->dtype].itemsize, &bytes, where) < 0) return NULL;
  if (!spec->label_checked && view_label_door(st, label) < 0) return NULL;
  /* The auto-initialization rule, empty Views included. */
  if (kp_runtime_ensure() < 0) return NULL;
  kp_owner *owner = NULL;
  if (bytes > 0) {
    /* Another thread finalizes Kokkos (without the GIL while a Tools
     * callback is set): a small allocation, made with the GIL held, is not
     * work that kp_work_begin would refuse. */
    if (kp_work_finalizing_elsewhere()) {
      PyErr_Format(PyExc_RuntimeError,
                   "%s: Kokkos is being finalized (by another thread, the exit handler or the application) and "
                   "cannot be used any more in this process",
                   where);
      return NULL;
    }
    owner = kp_owner_allocate(st, spec->space, label, bytes, spec->zero);
    if (!owner) return NULL;
  }
  Py_ssize_t strides[KP_MAX_RANK];
  kp_contiguous_strides(spec->rank, spec->shape, spec->layout == KP_LAYOUT_LEFT ? KP_LAYOUT_LEFT : KP_LAYOUT_RIGHT,
                        strides);
  PyTypeObject *type = spec->type ? spec->type : spec->dynamic ? st->dyn_rank_view_type : st->view_type;
  /* Contiguous strides of extents whose bytes were checked: no span to
   * check, and the layout is the one asked for (extents of 1 fit both
   * orders). */
  kp_view *v = kp_view_wrap_as(st, type, owner, owner ? owner->data : NULL, spec->rank, spec->shape, strides,
                               spec->dtype, spec->space, spec->layout, spec->traits & ~KP_TRAIT_UNMANAGED, 0, label);
  Py_XDECREF(owner);
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

int kp_view_host_exportable(const kp_view *v) {
  return kp_bridge_space_host_accessible(v->space) || (v->owner && (v->owner->reach & KP_REACH_HOST_BUFFER));
}

int kp_view_require_device_reach(const kp_view *v, PyObject *exc, const char *what) {
  if (!v->owner || !(v->owner->reach & KP_REACH_NO_DEVICE) || kp_bridge_space_host_accessible(v->space)) return 0;
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  if (st) exc = st->device_access_error;
  PyErr_Format(exc,
               "%s: View '%U' is a %s View over pageable host memory, which this GPU cannot read (it has no "
               "pageable memory access: no HMM or ATS); pass pinned host memory (cupyx.zeros_pinned, "
               "kokkos.array(..., space=kokkos.%s)) or managed memory, or copy it to the device "
               "(kokkos.array(host_array, space=...) without trait=kokkos.%s)",
               what, v->label, kp_spaces[v->space].name, kp_spaces[KP_SPACE_CUDA_HOST_PINNED].name,
               kp_trait_name(KP_TRAIT_UNMANAGED));
  return -1;
}

/* ---- construction from Python ------------------------------------------------------------ */

/* Parses a shape argument (int or sequence of ints) into spec. */
/* A list or tuple of exact ints, read in place: nothing runs Python code
 * while it is read (no __index__), so it cannot change. 1: done, 0: take
 * the general path. */
static int parse_exact_ints(PyObject *obj, kp_view_spec *spec, int max_rank) {
  if (!PyTuple_CheckExact(obj) && !PyList_CheckExact(obj)) return 0;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
  if (n > max_rank) return 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PySequence_Fast_GET_ITEM(obj, i);
    if (!PyLong_CheckExact(item)) return 0;
    int overflow = 0;
    long long e = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (overflow || e < 0) return 0; /* the general path says what is wrong */
    spec->shape[i] = (Py_ssize_t)e;
  }
  spec->rank = (int)n;
  return 1;
}

int kp_parse_shape(PyObject *obj, kp_view_spec *spec, int max_rank, const char *where) {
  if (parse_exact_ints(obj, spec, max_rank)) return 0;
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

int kp_check_label_text(PyObject *label, const char *where) { return kp_kokkos_text(label, where, "label") ? 0 : -1; }

static const kp_signature sig_view = {"kokkos.View()", 2, 1};
static const kp_signature sig_dyn_rank_view = {"kokkos.DynRankView()", 2, 1};

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
  PyObject *shape, *dtype, *label, *space, *layout, *trait, *initialize_o;
  const kp_param params[] = {{KP_KW_SHAPE, &shape},
                             {KP_KW_DTYPE, &dtype},
                             {KP_KW_LABEL, &label},
                             {KP_KW_SPACE, &space},
                             {KP_KW_LAYOUT, &layout},
                             {KP_KW_TRAIT, &trait},
                             {KP_KW_INITIALIZE, &initialize_o}};
  PyObject *label_first = NULL;
  if (nargs >= 2 && PyUnicode_Check(args[0])) {
    /* The original package's classes took (label, shape). */
    if (nargs > 2) {
      PyErr_Format(PyExc_TypeError, "%s: takes (shape, dtype) or (label, shape) positionally", where);
      return NULL;
    }
    kp_signature keywords_only = *sig;
    keywords_only.required = 0;
    if (kp_args_parse(st, &keywords_only, params, KP_PARAM_COUNT(params), args + 2, 0, kwnames) < 0) return NULL;
    if (shape) {
      PyErr_Format(PyExc_TypeError, "%s: got multiple values for argument 'shape'", where);
      return NULL;
    }
    shape = args[1];
    label_first = args[0];
  } else {
    if (kp_args_parse(st, sig, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0) return NULL;
  }
  if (!label) label = label_first;
  int initialize = kp_args_bool(initialize_o, where, "initialize", 1);
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
                   "%s: an Unmanaged View wraps existing memory; use kokkos.array(ndarray, trait=kokkos.%s) "
                   "or kokkos.asarray(obj) instead",
                   where, kp_trait_name(KP_TRAIT_UNMANAGED));
      return NULL;
    }
    spec.traits = (unsigned)t;
  }
  if (label == Py_None) label = NULL;
  if (label && !PyUnicode_Check(label)) {
    PyErr_Format(PyExc_TypeError, "%s: label must be a str, got %.100s", where, Py_TYPE(label)->tp_name);
    return NULL;
  }
  return (PyObject *)kp_view_allocate(st, &spec, label);
}

/* tp_new (Python subclasses, type.__call__ with a dict): the vector call's
 * arguments laid out from the tuple and the dict. */
PyObject *kp_view_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
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

int kp_view_traverse(kp_view *v, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(v));
  Py_VISIT(v->owner);
  Py_VISIT(v->cai);
  Py_VISIT(v->shape_obj);
  return 0;
}

int kp_view_clear(kp_view *v) {
  Py_CLEAR(v->owner);
  Py_CLEAR(v->cai);
  Py_CLEAR(v->shape_obj);
  return 0;
}

void kp_view_dealloc(kp_view *v) {
  PyTypeObject *tp = Py_TYPE(v);
  PyObject_GC_UnTrack(v);
  if (v->weakreflist) PyObject_ClearWeakRefs((PyObject *)v);
  kp_view_clear(v);
  Py_CLEAR(v->label);
  tp->tp_free((PyObject *)v);
  Py_DECREF(tp);
}

/* The slots of the per-combination classes (view_class.c): View's lifetime
 * functions, everything else inherited. */
PyType_Slot kp_view_class_slots[] = {
    {Py_tp_dealloc, kp_view_dealloc},
    {Py_tp_traverse, kp_view_traverse},
    {Py_tp_clear, kp_view_clear},
    {Py_tp_doc,
     "A Kokkos View of one dtype, memory space, layout, memory traits and rank, named as the original "
     "pykokkos-base named its classes; everything else is kokkos.View's (or kokkos.DynRankView's)."},
    {0, NULL}};
