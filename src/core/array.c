/* array.c: the original package's construction helpers, in C:
 * kokkos.array, kokkos.unmanaged_array, kokkos.asarray and the free mirror
 * functions.
 *
 * Python equivalent:
 *
 *     def array(shape_label_or_array, shape=None, label=None, array=None,
 *               dtype=None, space=None, layout=None, trait=kokkos.Managed,
 *               dynamic=False, order=None, copy=False) -> View
 *     def unmanaged_array(array, ...) -> View      # array(..., trait=Unmanaged)
 *     def asarray(obj, *, dtype=None, space=None, layout=None, copy=None,
 *                 label=None) -> View
 *     def create_mirror(src, copy=False, space=None) -> View
 *     def create_mirror_view(src, copy=False, space=None) -> View
 *     def create_mirror_view_and_copy(space, src) -> View
 *
 * A first argument that is an array (buffer protocol, __array_interface__,
 * DLPack, __cuda_array_interface__, a View) is wrapped without copying, as
 * an Unmanaged View that keeps it alive; it is copied only when another
 * dtype, layout or space, or copy=True, is asked for, and never when the
 * caller asked for an Unmanaged View. Default labels are those of the
 * original package (KokkosView<double*, LayoutRight, HostSpace>), made once
 * per (kind, dtype, rank, layout, space) and kept in the module state.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "copy.h"
#include "exchange.h"
#include "top.h"
#include "host_register.h"

#include <string.h>

/* ---- default labels ------------------------------------------------------------------ */

#define KP_LABEL_SLOTS (2 * KP_DTYPE_COUNT * (KP_MAX_RANK + 1) * KP_LAYOUT_COUNT * KP_SPACE_COUNT)

/* The default label of a View made by kokkos.array (borrowed from the
 * cache), or NULL with an exception. */
static PyObject *default_label(kp_state *st, int dynamic, int dtype, int rank, int layout, int space) {
  size_t slot = ((((size_t)(dynamic != 0) * KP_DTYPE_COUNT + (size_t)dtype) * (KP_MAX_RANK + 1) + (size_t)rank) *
                     KP_LAYOUT_COUNT +
                 (size_t)layout) *
                    KP_SPACE_COUNT +
                (size_t)space;
  PyObject *label = (PyObject *)kp_slots_get(&st->label_cache, slot);
  if (label) return label;
  char stars[KP_MAX_RANK + 1];
  memset(stars, '*', (size_t)rank);
  stars[rank] = '\0';
  label = PyUnicode_FromFormat("%s<%s%s, %s, %s>", dynamic ? "KokkosDynRankView" : "KokkosView", kp_dtypes[dtype].name,
                               stars, kp_layout_names[layout], kp_spaces[space].name);
  if (!label) return NULL;
  PyUnicode_InternInPlace(&label);
  if (kp_slots_set(&st->label_cache, slot, label) < 0) {
    Py_DECREF(label);
    return NULL;
  }
  return label;
}

static void drop_label(void *label) { Py_DECREF((PyObject *)label); }

int kp_array_init(kp_state *st) { return kp_slots_init(&st->label_cache, KP_LABEL_SLOTS); }

void kp_array_clear(kp_state *st) { kp_slots_free(&st->label_cache, drop_label); }

/* ---- helpers ------------------------------------------------------------------------- */

/* The unqualified name of obj's type ("ndarray", as type(obj).__name__). */
static const char *type_name(PyObject *obj) {
  const char *n = Py_TYPE(obj)->tp_name;
  const char *dot = strrchr(n, '.');
  return dot ? dot + 1 : n;
}

static PyObject *unset_if_none(PyObject *obj) { return obj == Py_None ? NULL : obj; }

/* Whether obj is a View: its class is most often a per-combination class
 * made directly from View (view_class.c), which answers without walking
 * the class's MRO. */
static int is_view(const kp_state *st, PyObject *obj) {
  return Py_TYPE(obj)->tp_base == st->view_type || PyObject_TypeCheck(obj, st->view_type);
}

static int check_label(PyObject *label, const char *where) {
  if (!label || PyUnicode_Check(label)) return 0;
  PyErr_Format(PyExc_TypeError, "%s: label must be a str, got %.100s", where, Py_TYPE(label)->tp_name);
  return -1;
}

/* A flat list or tuple given as kokkos.array's first argument is a shape:
 * say so when it holds data instead. Type checks only, so nothing can
 * change a list while it is read. */
static int check_shape_list(PyObject *seq, const char *where) {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *e = PySequence_Fast_GET_ITEM(seq, i);
    if (PyLong_CheckExact(e)) continue; /* an extent, as it should be */
    if (PyList_Check(e) || PyTuple_Check(e)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: a list or tuple is the View's shape (as in pykokkos-base), and this one holds sequences; to "
                   "make a View holding this data use kokkos.array(numpy.array(data)), or kokkos.deep_copy(view, data) "
                   "into a View of that shape",
                   where);
      return -1;
    }
    if (PyFloat_Check(e) || PyComplex_Check(e) || PyUnicode_Check(e) || PyBytes_Check(e)) {
      /* the reprs below may run Python code that changes a list: hold e */
      Py_INCREF(e);
      PyErr_Format(PyExc_TypeError,
                   "%s: a flat list or tuple is read as the View's shape (as in pykokkos-base), and shape[%zd] = %R "
                   "is not an int; to make a View holding these values use kokkos.array(numpy.array(%R))",
                   where, i, e, seq);
      Py_DECREF(e);
      return -1;
    }
  }
  return 0;
}

/* ---- wrapping arrays ------------------------------------------------------------------- */

/* 1 if obj has the attribute, 0 if not, -1 with the exception its lookup
 * raised (a property that raises). */
static int has_attr(PyObject *obj, const char *name) {
  PyObject *a = NULL;
  int r = kp_get_optional_attr_string(obj, name, &a);
  Py_XDECREF(a);
  return r;
}

/* New Unmanaged View sharing obj's memory (obj: a View, a host buffer or
 * __array_interface__, a DLPack or __cuda_array_interface__ producer). */
static kp_view *wrap_memory(kp_state *st, PyObject *obj, PyObject *label, int dynamic, unsigned traits,
                            const char *where) {
  kp_view *v = NULL;
  int h = 0;
  if (is_view(st, obj)) {
    kp_view *src = (kp_view *)obj;
    if (kp_view_check_released(src)) return NULL;
    if (dynamic && src->rank > KP_MAX_RANK - 1) {
      PyErr_Format(PyExc_ValueError, "%s: rank %d is larger than the maximum %d of a DynRankView", where, src->rank,
                   KP_MAX_RANK - 1);
      return NULL;
    }
    v = kp_view_wrap(st, dynamic ? st->dyn_rank_view_type : st->view_type, src->owner, src->data, src->rank, src->shape,
                     src->strides, src->dtype, src->space, src->traits, src->readonly, label ? label : src->label);
  } else if (PyObject_CheckBuffer(obj) || (h = has_attr(obj, "__array_interface__")) > 0) {
    v = kp_view_from_buffer_object(st, obj, 0, label, dynamic, where);
  } else if (h < 0) {
    return NULL;
  } else if (PyCapsule_CheckExact(obj) || (h = has_attr(obj, "__dlpack__")) > 0 ||
             (h = has_attr(obj, "__cuda_array_interface__")) > 0) {
    kp_view *shared = kp_view_from_exchange(st, obj, label, where);
    if (!shared) return NULL;
    v = wrap_memory(st, (PyObject *)shared, label, dynamic, traits, where);
    Py_DECREF(shared);
    return v;
  } else if (h < 0) {
    return NULL;
  } else {
    PyErr_Format(PyExc_TypeError,
                 "%s: cannot use an object of type %.100s as View memory: it exposes neither the buffer protocol nor "
                 "__array_interface__ (nor __dlpack__ or __cuda_array_interface__). View memory comes from an array: "
                 "a NumPy array, a View, a PyTorch or CuPy tensor, bytearray, array.array, ... The first argument may "
                 "also be a label (str) or a shape (list or tuple): kokkos.array([3]), kokkos.array('x', [3])",
                 where, type_name(obj));
    return NULL;
  }
  if (v) v->traits |= traits | KP_TRAIT_UNMANAGED;
  return v;
}

/* The bytes from the lowest to the highest element of v (0 when empty),
 * and the lowest address in *lo. */
static size_t span_bytes(const kp_view *v, char **lo) {
  char *low = v->data, *high = v->data;
  for (int r = 0; r < v->rank; ++r) {
    if (v->shape[r] == 0) {
      *lo = v->data;
      return 0;
    }
    Py_ssize_t step = (v->shape[r] - 1) * v->strides[r] * kp_dtypes[v->dtype].itemsize;
    if (step < 0)
      low += step;
    else
      high += step;
  }
  *lo = low;
  return (size_t)(high - low) + (size_t)kp_dtypes[v->dtype].itemsize;
}

/* An Unmanaged View in a device space over host memory (w: the host-space
 * View wrapping it; its reference is taken). The View is made whatever the
 * memory is, as the original did, with an Allocation of its own holding w;
 * what the device can do with the memory is asked of reach.c: read it
 * directly, read it once its pages are registered (the Allocation gives them
 * back when the last View over it goes, or at Kokkos finalize, which
 * releases the View), or, under the strict setting, not at all (then the
 * View is marked, and kernels, device copies and device exports refuse it;
 * docs/views.md, "Host memory in a device space"). */
static PyObject *device_view_over_host(kp_state *st, kp_view *w, int space, int dynamic, const char *where) {
  /* The device View is Kokkos' business (its pages are registered with the
   * runtime of Kokkos' device and given back at Kokkos finalize): Kokkos is
   * initialized first, as for an allocation. */
  if (kp_runtime_ensure() < 0) {
    Py_DECREF(w);
    return NULL;
  }
  char *lo;
  size_t bytes = span_bytes(w, &lo);
  kp_host_reach reach;
  if (kp_space_reach_host(st, space, lo, bytes, &reach, where) < 0) {
    Py_DECREF(w);
    return NULL;
  }
  char *data = w->data + ((char *)reach.device_data - lo);
  kp_owner *owner = kp_owner_from_pyobject(st, space, data, (PyObject *)w, NULL);
  if (!owner) {
    kp_bridge_host_unregister(reach.registration);
    Py_DECREF(w);
    return NULL;
  }
  kp_owner_hold_registration(owner, reach.registration);
  /* A host consumer gets the array's own buffer back (np.asarray(view) is
   * the array), where the device reads it at the same address. */
  owner->reach = (data == w->data ? KP_REACH_HOST_BUFFER : 0) | (reach.refused ? KP_REACH_NO_DEVICE : 0);
  kp_view *v = kp_view_wrap_as(st, dynamic ? st->dyn_rank_view_type : st->view_type, owner, data, w->rank, w->shape,
                               w->strides, w->dtype, space, w->layout, w->traits, w->readonly, w->label);
  Py_DECREF(owner);
  Py_DECREF(w);
  return (PyObject *)v;
}

/* A layout asked for (want: -1 for none) that the strides of v, a new View
 * over an array's memory, fit too (rank 1, or every extent but one 1:
 * contiguous in both orders) becomes v's, as in the original and as for an
 * allocation. -1 with an exception. */
static int adopt_layout(kp_view *v, int want) {
  if ((want != KP_LAYOUT_LEFT && want != KP_LAYOUT_RIGHT) || want == v->layout) return 0;
  if (!(want == KP_LAYOUT_LEFT ? kp_view_is_f_contiguous(v) : kp_view_is_c_contiguous(v))) return 0;
  v->layout = want;
  return kp_view_retype(v);
}

/* ---- one "view or copy" rule: kokkos.array and kokkos.asarray ---------------------------- */

/* What a caller asks of a View of some memory; -1 (0 for copy): as the
 * memory is. */
typedef struct kp_wanted {
  int dtype, space, layout;
  int copy; /* copy=True */
} kp_wanted;

/* Appends "; text" (or text) to *reasons, stealing text; -1 with an exception. */
static int add_reason(PyObject **reasons, PyObject *text) {
  if (!text) return -1;
  PyObject *joined = *reasons ? PyUnicode_FromFormat("%U; %U", *reasons, text) : Py_NewRef(text);
  Py_DECREF(text);
  if (!joined) return -1;
  Py_XSETREF(*reasons, joined);
  return 0;
}

/* Why src, a View of some memory, is not what want asks without a copy: a
 * new str of the reasons ("copy=True; its dtype is float64, not float32"),
 * or NULL with no exception when a View of src will do (NULL with an
 * exception on failure). keep_strides: the caller keeps src's strides
 * whatever layout was asked (an Unmanaged View). */
static PyObject *copy_reasons(const kp_view *src, const kp_wanted *want, int keep_strides) {
  PyObject *reasons = NULL;
  if (want->copy && add_reason(&reasons, PyUnicode_FromString("copy=True")) < 0) return NULL;
  if (want->space >= 0 && want->space != src->space &&
      add_reason(&reasons, PyUnicode_FromFormat("it lives in %s, not %s", kp_spaces[src->space].name,
                                                kp_spaces[want->space].name)) < 0)
    return NULL;
  if (want->dtype >= 0 && want->dtype != src->dtype &&
      add_reason(&reasons, PyUnicode_FromFormat("its dtype is %s, not %s", kp_dtypes[src->dtype].name,
                                                kp_dtypes[want->dtype].name)) < 0)
    return NULL;
  if (!keep_strides &&
      ((want->layout == KP_LAYOUT_RIGHT && !kp_view_is_c_contiguous(src)) ||
       (want->layout == KP_LAYOUT_LEFT && !kp_view_is_f_contiguous(src))) &&
      add_reason(&reasons, PyUnicode_FromFormat("its strides are not %s's", kp_layout_names[want->layout])) < 0)
    return NULL;
  return reasons;
}

/* New reference to a new Kokkos allocation in the form want asks (src's
 * shape; the layout asked, else LayoutLeft for memory in that order only,
 * else LayoutRight) holding a copy of from (src, or the object src wraps
 * when a dtype conversion reads it better). label (borrowed) NULL: the
 * default label of kokkos.array. NULL with an exception. */
static PyObject *copy_to_allocation(kp_state *st, const kp_view *src, PyObject *from, const kp_wanted *want,
                                    unsigned traits, int dynamic, PyObject *label, const char *where) {
  kp_view_spec spec = {0};
  spec.rank = src->rank;
  memcpy(spec.shape, src->shape, sizeof(Py_ssize_t) * (size_t)src->rank);
  spec.dtype = want->dtype >= 0 ? want->dtype : src->dtype;
  spec.space = want->space >= 0 ? want->space : src->space;
  if (want->layout == KP_LAYOUT_RIGHT || want->layout == KP_LAYOUT_LEFT)
    spec.layout = want->layout;
  else
    spec.layout = (kp_view_is_f_contiguous(src) && !kp_view_is_c_contiguous(src)) ? KP_LAYOUT_LEFT : KP_LAYOUT_RIGHT;
  spec.traits = traits & ~(unsigned)KP_TRAIT_UNMANAGED;
  spec.dynamic = dynamic;
  spec.zero = 0;
  spec.label_checked = !label; /* the default labels are the package's own */
  if (!label && !(label = default_label(st, dynamic, spec.dtype, spec.rank, spec.layout, spec.space))) return NULL;
  kp_view *out = kp_view_allocate(st, &spec, label);
  if (out && kp_deep_copy(st, out, from, where) < 0) Py_CLEAR(out);
  return (PyObject *)out;
}

/* 0 when the array's View w has the shape given with it (shape_o, parsed
 * into *shape), else ValueError naming both, -1. */
static int check_given_shape(const kp_view *w, PyObject *shape_o, const kp_view_spec *shape, const char *where) {
  int same = shape->rank == w->rank;
  for (int r = 0; same && r < w->rank; ++r) same = shape->shape[r] == w->shape[r];
  if (same) return 0;
  PyObject *has = kp_view_extents_tuple(w, 0);
  if (!has) return -1;
  PyErr_Format(PyExc_ValueError,
               "%s: shape %R disagrees with the array's shape %R; a View of an array has the array's shape (reshape "
               "the array first, or leave shape out)",
               where, shape_o, has);
  Py_DECREF(has);
  return -1;
}

/* kokkos.array / unmanaged_array of an array: a View of its memory, or a
 * copy (never for an Unmanaged View, which keeps the array's strides).
 * shape_o (NULL: none) is a shape given with the array, parsed in *shape:
 * the array's must agree. */
static PyObject *from_array(kp_state *st, PyObject *obj, PyObject *label, PyObject *dtype_o, int space,
                            PyObject *layout_o, unsigned traits, int unmanaged_asked, int dynamic, int copy,
                            PyObject *shape_o, const kp_view_spec *shape, const char *where) {
  kp_wanted want = {-1, space, -1, copy};
  if (dtype_o && (want.dtype = kp_arg_dtype(st, dtype_o, where)) < 0) return NULL;
  if (layout_o && (want.layout = kp_arg_layout(st, layout_o, where)) < 0) return NULL;
  kp_view *w = wrap_memory(st, obj, label, dynamic, traits, where);
  if (!w) return NULL;
  if (shape_o && check_given_shape(w, shape_o, shape, where) < 0) {
    Py_DECREF(w);
    return NULL;
  }
  if (adopt_layout(w, want.layout) < 0) {
    Py_DECREF(w);
    return NULL;
  }
  int same_dtype = want.dtype < 0 || want.dtype == w->dtype;
  if (unmanaged_asked && !copy && same_dtype && space >= 0 && space != w->space && w->space == KP_SPACE_HOST &&
      !kp_bridge_space_host_accessible(space)) {
    if (kp_space_check_available(space, where) < 0) {
      Py_DECREF(w);
      return NULL;
    }
    return device_view_over_host(st, w, space, dynamic, where);
  }
  PyObject *out = NULL, *why = copy_reasons(w, &want, unmanaged_asked);
  if (!why) {
    if (PyErr_Occurred()) goto done;
    return (PyObject *)w;
  }
  if (unmanaged_asked) {
    PyErr_Format(PyExc_ValueError,
                 "%s: an Unmanaged View never copies, but this %.100s would need a copy (%U); drop "
                 "trait=kokkos.%s (and use kokkos.array) to get a copy, or pass an array that fits",
                 where, type_name(obj), why, kp_trait_name(KP_TRAIT_UNMANAGED));
    goto done;
  }
  out = copy_to_allocation(st, w, same_dtype ? (PyObject *)w : obj, &want, traits, dynamic, label, where);
done:
  Py_XDECREF(why);
  Py_DECREF(w);
  return out;
}

/* ---- kokkos.array -------------------------------------------------------------------- */

static const kp_signature sig_array = {"kokkos.array()", 11, 1};
static const kp_signature sig_unmanaged_array = {"kokkos.unmanaged_array()", 11, 1};

static PyObject *array_impl(PyObject *module, const kp_signature *sig, int force_unmanaged, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  const char *where = sig->name;
  PyObject *first, *shape, *label, *arr, *dtype_o, *space_o, *layout_o, *trait_o, *dynamic_o, *order, *copy_o;
  const kp_param params[] = {{KP_KW_FIRST, &first},     {KP_KW_SHAPE, &shape},   {KP_KW_LABEL, &label},
                             {KP_KW_ARRAY, &arr},       {KP_KW_DTYPE, &dtype_o}, {KP_KW_SPACE, &space_o},
                             {KP_KW_LAYOUT, &layout_o}, {KP_KW_TRAIT, &trait_o}, {KP_KW_DYNAMIC, &dynamic_o},
                             {KP_KW_ORDER, &order},     {KP_KW_COPY, &copy_o}};
  if (kp_args_parse(st, sig, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0) return NULL;
  shape = unset_if_none(shape);
  label = unset_if_none(label);
  arr = unset_if_none(arr);
  dtype_o = unset_if_none(dtype_o);
  space_o = unset_if_none(space_o);
  layout_o = unset_if_none(layout_o);
  order = unset_if_none(order);

  if (PyUnicode_Check(first) && !label) {
    label = first;
  } else if ((PyList_Check(first) || PyTuple_Check(first)) && !shape) {
    shape = first;
  } else if ((PyList_Check(first) || PyTuple_Check(first)) && first != shape) {
    /* A list first is the shape; with another shape it was once ignored. */
    if (check_shape_list(first, where) < 0) return NULL;
    PyErr_Format(PyExc_ValueError,
                 "%s: the first argument %R is the View's shape (a list or tuple, as in pykokkos-base) and shape %R "
                 "is given too; give one shape (a label first: kokkos.array('x', shape=...); data: "
                 "kokkos.array(numpy.array(data)))",
                 where, first, shape);
    return NULL;
  } else if (!arr && !PyUnicode_Check(first) && !PyList_Check(first) && !PyTuple_Check(first)) {
    arr = first;
  }
  if (check_label(label, where) < 0 || (label && kp_check_label_text(label, where) < 0)) return NULL;
  int dynamic = kp_args_bool(dynamic_o, where, "dynamic", 0);
  int copy = kp_args_bool(copy_o, where, "copy", 0);
  if (dynamic < 0 || copy < 0) return NULL;
  if (order) {
    const char *o = PyUnicode_Check(order) ? PyUnicode_AsUTF8(order) : NULL;
    if (!o) PyErr_Clear();
    int c = o && (strcmp(o, "C") == 0 || strcmp(o, "c") == 0);
    int f = o && (strcmp(o, "F") == 0 || strcmp(o, "f") == 0);
    if (!c && !f) {
      PyErr_Format(PyExc_ValueError, "%s: order must be 'C' or 'F', got %R", where, order);
      return NULL;
    }
    if (!layout_o) layout_o = st->layout_members ? PyTuple_GET_ITEM(st->layout_members, c ? 0 : 1) : NULL;
  }
  int space = -1, traits = 0;
  if (space_o && (space = kp_arg_space(st, space_o, where)) < 0) return NULL;
  if (trait_o && (traits = kp_arg_trait(st, trait_o, where)) < 0) return NULL;
  int unmanaged_asked = force_unmanaged || (traits & KP_TRAIT_UNMANAGED);

  if (arr) {
    /* A shape given with the array must be the array's (it was once
     * ignored): parsed first, so that no Python code runs after the wrap. */
    kp_view_spec given = {0};
    if (shape && (((PyList_Check(shape) || PyTuple_Check(shape)) && check_shape_list(shape, where) < 0) ||
                  kp_parse_shape(shape, &given, KP_MAX_RANK, where) < 0))
      return NULL;
    return from_array(st, arr, label, dtype_o, space, layout_o, (unsigned)traits, unmanaged_asked, dynamic, copy, shape,
                      &given, where);
  }
  if (!shape) {
    PyErr_Format(PyExc_TypeError, "%s: give a shape (list or tuple), a label and shape=, or an array", where);
    return NULL;
  }
  if (unmanaged_asked) {
    PyErr_Format(PyExc_ValueError,
                 "%s: an Unmanaged View wraps existing memory; pass the array "
                 "(kokkos.array(ndarray, trait=kokkos.%s))",
                 where, kp_trait_name(KP_TRAIT_UNMANAGED));
    return NULL;
  }
  kp_view_spec spec = {0};
  spec.label_checked = 1; /* a label given was checked above, naming where; the default ones are the package's */
  spec.dynamic = dynamic;
  spec.zero = 1;
  spec.traits = (unsigned)traits;
  spec.dtype = KP_DTYPE_FLOAT64;
  spec.space = space >= 0 ? space : KP_SPACE_HOST;
  spec.layout = KP_LAYOUT_RIGHT;
  if (dtype_o && (spec.dtype = kp_arg_dtype(st, dtype_o, where)) < 0) return NULL;
  if (layout_o && (spec.layout = kp_arg_layout(st, layout_o, where)) < 0) return NULL;
  /* only type checks (no Python code runs): the list is read in place */
  if ((PyList_Check(shape) || PyTuple_Check(shape)) && check_shape_list(shape, where) < 0) return NULL;
  if (kp_parse_shape(shape, &spec, dynamic ? KP_MAX_RANK - 1 : KP_MAX_RANK, where) < 0) return NULL;
  if (!label && !(label = default_label(st, dynamic, spec.dtype, spec.rank, spec.layout, spec.space))) return NULL;
  return (PyObject *)kp_view_allocate(st, &spec, label);
}

const char kp_doc_array[] =
    "array($module, shape_label_or_array, shape=None, label=None, array=None, dtype=None, space=None, "
    "layout=None, trait=None, dynamic=False, order=None, copy=False)\n--\n\n"
    "Create a View, as pykokkos-base's kokkos.array.\n\n"
    "The first argument is a label (str), a shape (list or tuple) or an array (anything with the buffer "
    "protocol, __array_interface__, DLPack or __cuda_array_interface__, or a View). Arrays are wrapped without "
    "copying (an Unmanaged View that keeps the array alive, in the array's memory space) unless copy=True or a "
    "different dtype, layout or space is asked for; then the data is copied into a new Kokkos allocation "
    "(never for trait=kokkos.Unmanaged: that raises ValueError). Views from a shape are zero-filled, dtype "
    "float64, in HostSpace, LayoutRight (order='F': LayoutLeft), labelled as in pykokkos-base "
    "('KokkosView<double*, LayoutRight, HostSpace>') unless label is given; dynamic=True makes a DynRankView.";

const char kp_doc_unmanaged_array[] =
    "unmanaged_array($module, shape_label_or_array, shape=None, label=None, array=None, dtype=None, space=None, "
    "layout=None, trait=None, dynamic=False, order=None, copy=False)\n--\n\n"
    "An Unmanaged View of an array's memory, as pykokkos-base's kokkos.unmanaged_array: kokkos.array with "
    "trait=kokkos.Unmanaged. It never copies: an array that does not fit the dtype, layout or space asked for "
    "raises ValueError. The View keeps the array alive; writes through it reach the array.";

PyObject *kp_py_array(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return array_impl(module, &sig_array, 0, args, nargs, kwnames);
}

PyObject *kp_py_unmanaged_array(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return array_impl(module, &sig_unmanaged_array, 1, args, nargs, kwnames);
}

/* ---- kokkos.asarray -------------------------------------------------------------------- */

static const kp_signature sig_asarray = {"kokkos.asarray()", 1, 1, 1};

const char kp_doc_asarray[] =
    "asarray($module, obj, /, *, dtype=None, space=None, layout=None, copy=None, label=None)\n--\n\n"
    "A View of obj, sharing its memory when it can.\n\n"
    "obj may be a View, anything with __dlpack__ (NumPy, PyTorch, CuPy, JAX), __cuda_array_interface__ (CuPy, "
    "Numba), __array_interface__ or the buffer protocol, a DLPack capsule, or a Python scalar or nested sequence "
    "(converted through NumPy).\n\n"
    "Without a copy, the View is an Unmanaged View of the producer's memory that keeps the producer alive; it is "
    "read-only when the producer is. Its memory space follows the producer's device (CPU -> HostSpace, CUDA -> "
    "CudaSpace, CUDAManaged -> CudaUVMSpace, CUDAHost -> CudaHostPinnedSpace, ...); strided producers give "
    "LayoutStride Views.\n\n"
    "A copy into a new Kokkos allocation (labelled label) is made when space differs from the producer's, dtype "
    "differs, layout (LayoutRight or LayoutLeft) does not describe the producer's strides, or copy=True. "
    "copy=False raises ValueError instead of copying. layout=kokkos.LayoutStride accepts any strides. A View "
    "passed in with nothing to change is returned as is.";

static int not_an_array(PyObject *obj) {
  return PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj) || PyList_Check(obj) || PyTuple_Check(obj);
}

/* obj (a Python scalar or nested sequence) as a NumPy array of dtype (-1:
 * NumPy's choice). New reference or NULL with an exception. */
static PyObject *numpy_array_of(PyObject *obj, int dtype, const char *where) {
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: converting a %.100s needs NumPy; install numpy or pass an array", where,
                 type_name(obj));
    return NULL;
  }
  PyObject *out = dtype < 0 ? PyObject_CallMethod(np, "asarray", "O", obj)
                            : PyObject_CallMethod(np, "asarray", "Os", obj, kp_dtypes[dtype].name);
  Py_DECREF(np);
  return out;
}

/* kokkos.asarray(obj) with nothing asked: zero-copy; host buffers (NumPy
 * arrays) directly, which costs less than a DLPack capsule. */
static PyObject *asarray_as_is(kp_state *st, PyObject *obj, PyObject *label, const char *where) {
  if (PyObject_CheckBuffer(obj) && !is_view(st, obj)) {
    kp_view *v = kp_view_from_buffer_object(st, obj, 0, label, 0, where);
    if (v || !(PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_TypeError) ||
               PyErr_ExceptionMatches(PyExc_ValueError)))
      return (PyObject *)v;
    PyErr_Clear();
  }
  return (PyObject *)kp_view_from_exchange(st, obj, label, where);
}

PyObject *kp_py_asarray(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  const char *where = sig_asarray.name;
  PyObject *obj, *dtype_o, *space_o, *layout_o, *copy_o, *label;
  const kp_param params[] = {{KP_KW_OBJ, &obj},         {KP_KW_DTYPE, &dtype_o}, {KP_KW_SPACE, &space_o},
                             {KP_KW_LAYOUT, &layout_o}, {KP_KW_COPY, &copy_o},   {KP_KW_LABEL, &label}};
  if (kp_args_parse(st, &sig_asarray, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0) return NULL;
  label = unset_if_none(label);
  dtype_o = unset_if_none(dtype_o);
  space_o = unset_if_none(space_o);
  layout_o = unset_if_none(layout_o);
  copy_o = unset_if_none(copy_o);
  if (check_label(label, where) < 0) return NULL;
  if (!dtype_o && !space_o && !layout_o && !copy_o && !not_an_array(obj)) return asarray_as_is(st, obj, label, where);
  if (copy_o && !PyBool_Check(copy_o)) {
    PyErr_Format(PyExc_TypeError, "%s: copy must be True, False or None, got %.100s", where, type_name(copy_o));
    return NULL;
  }
  int forbid_copy = copy_o == Py_False;
  kp_wanted want = {-1, -1, -1, copy_o == Py_True};
  if (space_o && (want.space = kp_arg_space(st, space_o, where)) < 0) return NULL;
  if (dtype_o && (want.dtype = kp_arg_dtype(st, dtype_o, where)) < 0) return NULL;
  if (layout_o && (want.layout = kp_arg_layout(st, layout_o, where)) < 0) return NULL;
  if (not_an_array(obj) && forbid_copy) {
    PyErr_Format(PyExc_ValueError, "%s: a %.100s is not an array; making a View of it needs a copy, but copy=False",
                 where, type_name(obj));
    return NULL;
  }
  PyObject *converted = NULL, *reasons = NULL, *res = NULL;
  kp_view *src = NULL;
  if (not_an_array(obj) && !(converted = numpy_array_of(obj, want.dtype, where))) return NULL;
  src = kp_view_from_exchange(st, converted ? converted : obj, label, where);
  if (!src) goto done;
  if (!(reasons = copy_reasons(src, &want, 0))) {
    /* a View given is returned as it is; a new one takes the layout asked for */
    if (PyErr_Occurred() || ((PyObject *)src != obj && adopt_layout(src, want.layout) < 0)) goto done;
    res = Py_NewRef((PyObject *)src);
  } else if (forbid_copy) {
    PyErr_Format(PyExc_ValueError, "%s: a View of this %.100s needs a copy (%U), but copy=False", where, type_name(obj),
                 reasons);
  } else {
    /* the copy's label: the one given, else the producer's, else the function's */
    PyObject *own = label                                  ? Py_NewRef(label)
                    : PyUnicode_GET_LENGTH(src->label) > 0 ? Py_NewRef(src->label)
                                                           : PyUnicode_FromString("kokkos.asarray");
    if (own) res = copy_to_allocation(st, src, (PyObject *)src, &want, 0, 0, own, where);
    Py_XDECREF(own);
  }
done:
  Py_XDECREF(converted);
  Py_XDECREF(reasons);
  Py_XDECREF(src);
  return res;
}

/* ---- mirrors ------------------------------------------------------------------------------ */

static const kp_signature sig_create_mirror = {"kokkos.create_mirror()", 3, 1};
static const kp_signature sig_create_mirror_view = {"kokkos.create_mirror_view()", 3, 1};
static const kp_signature sig_create_mirror_view_and_copy = {"kokkos.create_mirror_view_and_copy()", 2, 2};

const char kp_doc_create_mirror[] =
    "create_mirror($module, src, copy=False, space=None)\n--\n\n"
    "Kokkos::create_mirror: a new View in host memory (or space) with src's shape and layout; copy=True copies "
    "src's data into it.";
const char kp_doc_create_mirror_view[] =
    "create_mirror_view($module, src, copy=False, space=None)\n--\n\n"
    "Kokkos::create_mirror_view: src itself when the host (or space) can access its memory -- then nothing is "
    "copied and copy changes nothing, even copy=True -- else a new mirror in host memory (or space) with src's "
    "shape and layout, into which copy=True copies src's data.";
const char kp_doc_create_mirror_view_and_copy[] =
    "create_mirror_view_and_copy($module, space, src)\n--\n\n"
    "Kokkos::create_mirror_view_and_copy(space, src): src itself when space can access its memory, else a new "
    "View in space holding a copy of src.";

static PyObject *mirror_impl(PyObject *module, const kp_signature *sig, PyObject *src_o, PyObject *copy_o,
                             PyObject *space_o, int copy_default, int view_if_possible) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  const char *where = sig->name;
  if (!is_view(st, src_o)) {
    PyErr_Format(PyExc_TypeError,
                 "%s: src must be a kokkos View, got %.100s (wrap an array first: kokkos.asarray(obj))", where,
                 type_name(src_o));
    return NULL;
  }
  int copy = kp_args_bool(copy_o, where, "copy", copy_default);
  if (copy < 0) return NULL;
  int space = KP_SPACE_HOST;
  space_o = unset_if_none(space_o);
  if (space_o && ((space = kp_arg_space(st, space_o, where)) < 0 || kp_space_check_available(space, where) < 0))
    return NULL;
  return kp_mirror((kp_view *)src_o, space, copy, view_if_possible, where);
}

PyObject *kp_py_create_mirror(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *src, *copy, *space;
  const kp_param params[] = {{KP_KW_SRC, &src}, {KP_KW_COPY, &copy}, {KP_KW_SPACE, &space}};
  if (kp_args_parse((kp_state *)PyModule_GetState(module), &sig_create_mirror, params, KP_PARAM_COUNT(params), args,
                    nargs, kwnames) < 0)
    return NULL;
  return mirror_impl(module, &sig_create_mirror, src, copy, space, 0, 0);
}

PyObject *kp_py_create_mirror_view(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *src, *copy, *space;
  const kp_param params[] = {{KP_KW_SRC, &src}, {KP_KW_COPY, &copy}, {KP_KW_SPACE, &space}};
  if (kp_args_parse((kp_state *)PyModule_GetState(module), &sig_create_mirror_view, params, KP_PARAM_COUNT(params),
                    args, nargs, kwnames) < 0)
    return NULL;
  return mirror_impl(module, &sig_create_mirror_view, src, copy, space, 0, 1);
}

PyObject *kp_py_create_mirror_view_and_copy(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                            PyObject *kwnames) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  /* The call as the documentation spells it, (kokkos.HostSpace, a HostSpace
   * View): the View itself, as below, once it is known not released. */
  if (nargs == 2 && !kwnames && st->space_members && args[0] == PyTuple_GET_ITEM(st->space_members, KP_SPACE_HOST) &&
      Py_TYPE(args[1])->tp_base == st->view_type && ((kp_view *)args[1])->space == KP_SPACE_HOST) {
    if (kp_view_check_released((kp_view *)args[1])) return NULL;
    return Py_NewRef(args[1]);
  }
  PyObject *space, *src;
  const kp_param params[] = {{KP_KW_SPACE, &space}, {KP_KW_SRC, &src}};
  if (kp_args_parse(st, &sig_create_mirror_view_and_copy, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0)
    return NULL;
  /* (a View second, the common case, answers first) */
  if (!is_view(st, src) && is_view(st, space)) {
    PyErr_Format(PyExc_TypeError,
                 "%s: the arguments are (space, view), but the first is a View and the second a %.100s: they look "
                 "swapped; call create_mirror_view_and_copy(kokkos.%s, view)",
                 sig_create_mirror_view_and_copy.name, type_name(src), kp_spaces[KP_SPACE_HOST].name);
    return NULL;
  }
  return mirror_impl(module, &sig_create_mirror_view_and_copy, src, Py_True, space, 1, 1);
}
