/* index.c: View indexing: element access, subviews by slicing, len and
 * iteration.
 *
 * Semantics follow NumPy's basic indexing, applied to Kokkos Views:
 *   v[i, j]        element (a Python scalar); negative indices count back
 *   v[i]           on a rank-2 View: the subview v(i, ALL) sharing memory
 *   v[1:5, :, 2]   a subview (Kokkos::subview); steps give LayoutStride
 *   v[..., None]   Ellipsis and new unit dimensions
 *   v[[i, j]]      a list of ints with one per dimension is an element index
 *                  (the original package took lists there); other lists and
 *                  arrays (fancy indexing) raise IndexError
 * Assigning to a subview deep-copies the value into it.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "copy.h"
#include "access.h"

#include <string.h>

typedef struct kp_index_result {
  int rank;
  Py_ssize_t shape[KP_MAX_RANK];
  Py_ssize_t strides[KP_MAX_RANK];
  Py_ssize_t offset; /* in elements */
  int is_element;
} kp_index_result;

/* NumPy's bool scalar ("numpy.bool", "numpy.bool_" before NumPy 2): NumPy
 * before 2.3 gives it an __index__, but as an index it means a boolean mask. */
static int is_numpy_bool(PyObject *o) {
  const char *n = Py_TYPE(o)->tp_name;
  return strcmp(n, "numpy.bool") == 0 || strcmp(n, "numpy.bool_") == 0;
}

static int is_integer_index(PyObject *o) {
  if (PyLong_Check(o)) return !PyBool_Check(o);
  PyNumberMethods *nb = Py_TYPE(o)->tp_as_number;
  return nb && nb->nb_index && !is_numpy_bool(o);
}

static int normalize(kp_view *v, int dim, PyObject *item, Py_ssize_t *out) {
  Py_ssize_t i = PyNumber_AsSsize_t(item, PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) {
    /* An __index__ that refuses (a NumPy array of more than one element, a
     * NumPy bool) is fancy or boolean indexing, or no index at all. */
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_IndexError,
                   "View indices must be ints, slices, Ellipsis or None, not %.100s (fancy and boolean indexing "
                   "are not supported: use numpy.asarray(view)[...])",
                   Py_TYPE(item)->tp_name);
    }
    return -1;
  }
  Py_ssize_t n = v->shape[dim];
  if (i < -n || i >= n) {
    PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for axis %d with size %zd (View '%U')", i, dim, n,
                 v->label);
    return -1;
  }
  *out = i < 0 ? i + n : i;
  return 0;
}

/* The indices of key as an array: a tuple's items, a list's (kept alive in
 * *seq, a new reference the caller releases), or key alone (in buf); -1 with
 * IndexError for a list that is not one int per dimension. */
static int index_items(const kp_view *v, PyObject *key, PyObject **buf, PyObject *const **items, Py_ssize_t *nitems,
                       PyObject **seq) {
  *seq = NULL;
  if (PyTuple_Check(key)) {
    *items = &PyTuple_GET_ITEM(key, 0);
    *nitems = PyTuple_GET_SIZE(key);
    return 0;
  }
  if (PyList_Check(key)) {
    /* A list of ints, one per dimension, is an element index (the original
     * package's convention); anything else would be fancy indexing. */
    Py_ssize_t n = PyList_GET_SIZE(key);
    int all_int = n == v->rank;
    for (Py_ssize_t i = 0; all_int && i < n; ++i) all_int = is_integer_index(PyList_GET_ITEM(key, i));
    if (!all_int) {
      PyErr_Format(PyExc_IndexError,
                   "View indices must be ints, slices, Ellipsis or None (a list is taken as one int per "
                   "dimension; fancy indexing is not supported: use numpy.asarray(view)[...])");
      return -1;
    }
    *seq = PyList_AsTuple(key);
    if (!*seq) return -1;
    *items = &PyTuple_GET_ITEM(*seq, 0);
    *nitems = n;
    return 0;
  }
  buf[0] = key;
  *items = buf;
  *nitems = 1;
  return 0;
}

/* Applies the index key to v. */
static int apply_index(kp_view *v, PyObject *key, kp_index_result *res) {
  PyObject *items_buf[1];
  PyObject *const *items;
  Py_ssize_t nitems;
  PyObject *seq;
  if (index_items(v, key, items_buf, &items, &nitems, &seq) < 0) return -1;

  /* Count the indices that consume a dimension. */
  Py_ssize_t consuming = 0, ellipses = 0;
  for (Py_ssize_t k = 0; k < nitems; ++k) {
    PyObject *it = items[k];
    if (it == Py_Ellipsis)
      ++ellipses;
    else if (it != Py_None)
      ++consuming;
  }
  int rc = -1;
  if (ellipses > 1) {
    PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
    goto done;
  }
  if (consuming > v->rank) {
    PyErr_Format(PyExc_IndexError, "too many indices for View: View is %d-dimensional, but %zd were indexed", v->rank,
                 consuming);
    goto done;
  }
  int dim = 0, out = 0, saw_slice = 0;
  res->offset = 0;
  for (Py_ssize_t k = 0; k < nitems; ++k) {
    PyObject *it = items[k];
    if (it == Py_Ellipsis) {
      Py_ssize_t fill = v->rank - consuming;
      for (Py_ssize_t f = 0; f < fill; ++f, ++dim, ++out) {
        if (out >= KP_MAX_RANK) goto too_many;
        res->shape[out] = v->shape[dim];
        res->strides[out] = v->strides[dim];
      }
      saw_slice = 1;
    } else if (it == Py_None) {
      if (out >= KP_MAX_RANK) goto too_many;
      res->shape[out] = 1;
      res->strides[out] = 0;
      ++out;
      saw_slice = 1;
    } else if (PySlice_Check(it)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(it, &start, &stop, &step) < 0) goto done;
      Py_ssize_t len = PySlice_AdjustIndices(v->shape[dim], &start, &stop, step);
      if (out >= KP_MAX_RANK) goto too_many;
      res->shape[out] = len;
      /* One element: any stride describes it, and stride * step could overflow. */
      res->strides[out] = len > 1 ? v->strides[dim] * step : v->strides[dim];
      if (len > 0) res->offset += start * v->strides[dim];
      ++out;
      ++dim;
      saw_slice = 1;
    } else if (is_integer_index(it)) {
      Py_ssize_t i;
      if (normalize(v, dim, it, &i) < 0) goto done;
      res->offset += i * v->strides[dim];
      ++dim;
    } else {
      PyErr_Format(PyExc_IndexError,
                   "View indices must be ints, slices, Ellipsis or None, not %.100s (fancy and boolean indexing "
                   "are not supported: use numpy.asarray(view)[...])",
                   Py_TYPE(it)->tp_name);
      goto done;
    }
  }
  /* Dimensions not indexed are taken whole. */
  for (; dim < v->rank; ++dim, ++out) {
    if (out >= KP_MAX_RANK) goto too_many;
    res->shape[out] = v->shape[dim];
    res->strides[out] = v->strides[dim];
    saw_slice = 1;
  }
  res->rank = out;
  res->is_element = !saw_slice && out == 0;
  rc = 0;
  goto done;
too_many:
  PyErr_Format(PyExc_IndexError, "the result would have more than %d dimensions", KP_MAX_RANK);
done:
  Py_XDECREF(seq);
  return rc;
}

static PyObject *make_subview(kp_view *v, const kp_index_result *r) {
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  if (!st) return NULL;
  /* A subview has the View's type: View, DynRankView, or a Python subclass
   * of either (as NumPy keeps ndarray subclasses). */
  PyTypeObject *type = Py_TYPE(v);
  if (PyObject_TypeCheck((PyObject *)v, st->dyn_rank_view_type) && r->rank > KP_MAX_RANK - 1) {
    PyErr_Format(PyExc_IndexError, "a DynRankView has at most %d dimensions", KP_MAX_RANK - 1);
    return NULL;
  }
  Py_ssize_t size = 1;
  for (int i = 0; i < r->rank; ++i) size *= r->shape[i];
  char *data = size ? v->data + r->offset * kp_dtypes[v->dtype].itemsize : NULL;
  return (PyObject *)kp_view_wrap(st, type, v->owner, data, r->rank, r->shape, r->strides, v->dtype, v->space,
                                  v->traits, v->readonly, v->label);
}

/* Fast path: an int, or a tuple of exactly rank ints. Returns the element
 * offset, or -1 if the key needs the general path (no error set), or -2
 * with an error set. */
static Py_ssize_t fast_offset(kp_view *v, PyObject *key) {
  if (PyLong_CheckExact(key)) {
    if (v->rank != 1) return -1;
    Py_ssize_t i = PyLong_AsSsize_t(key);
    if (i == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return -1;
    }
    Py_ssize_t n = v->shape[0];
    if (i < 0) i += n;
    if (i < 0 || i >= n) return -1; /* general path raises with the message */
    return i * v->strides[0];
  }
  if (PyTuple_CheckExact(key) && PyTuple_GET_SIZE(key) == v->rank) {
    Py_ssize_t off = 0;
    for (int d = 0; d < v->rank; ++d) {
      PyObject *it = PyTuple_GET_ITEM(key, d);
      if (!PyLong_CheckExact(it)) return -1;
      Py_ssize_t i = PyLong_AsSsize_t(it);
      if (i == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
      }
      Py_ssize_t n = v->shape[d];
      if (i < 0) i += n;
      if (i < 0 || i >= n) return -1;
      off += i * v->strides[d];
    }
    return off;
  }
  return -1;
}

static int require_element_access(kp_view *v) {
  if (kp_view_check_released(v)) return -1;
  if (!kp_bridge_space_host_accessible(v->space)) {
    kp_state *st = kp_state_from_type(Py_TYPE(v));
    kp_view_require_host(v, st ? st->host_access_error : PyExc_RuntimeError, "View element access");
    return -1;
  }
  return 0;
}

PyObject *kp_view_subscript(PyObject *self, PyObject *key) {
  kp_view *v = (kp_view *)self;
  Py_ssize_t off = fast_offset(v, key);
  if (off >= 0) {
    if (require_element_access(v) < 0) return NULL;
    return kp_dtypes[v->dtype].get(v->data + off * kp_dtypes[v->dtype].itemsize);
  }
  kp_index_result r;
  if (apply_index(v, key, &r) < 0) return NULL;
  if (r.is_element) {
    if (require_element_access(v) < 0) return NULL;
    return kp_dtypes[v->dtype].get(v->data + r.offset * kp_dtypes[v->dtype].itemsize);
  }
  if (kp_view_check_released(v)) return NULL;
  return make_subview(v, &r);
}

/* Converts value and stores it at element offset off. The conversion may run
 * Python code (__index__, __float__) that finalizes Kokkos and frees the
 * memory: convert first, check again, then store. */
static int store_element(kp_view *v, Py_ssize_t off, PyObject *value) {
  char tmp[16];
  Py_ssize_t itemsize = kp_dtypes[v->dtype].itemsize;
  PyNumberMethods *nb = Py_TYPE(value)->tp_as_number;
  if (nb && nb->nb_float == kp_view_float) {
    /* a View (its type has the View's nb_float: a cheaper test than
     * kp_view_check on this hot path) of one element stores its element,
     * whatever its dtype */
    PyObject *e = kp_view_one_element((kp_view *)value, "View element assignment");
    if (!e) return -1;
    int rc = kp_dtypes[v->dtype].set(tmp, e);
    Py_DECREF(e);
    if (rc < 0) return -1;
  } else if (kp_dtypes[v->dtype].set(tmp, value) < 0) {
    return -1;
  }
  if (require_element_access(v) < 0) return -1;
  memcpy(v->data + off * itemsize, tmp, (size_t)itemsize);
  return 0;
}

int kp_view_ass_subscript(PyObject *self, PyObject *key, PyObject *value) {
  kp_view *v = (kp_view *)self;
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "View elements cannot be deleted");
    return -1;
  }
  if (v->readonly) {
    PyErr_Format(PyExc_ValueError, "View '%U' is read-only (it wraps read-only memory)", v->label);
    return -1;
  }
  Py_ssize_t off = fast_offset(v, key);
  if (off >= 0) {
    if (require_element_access(v) < 0) return -1;
    return store_element(v, off, value);
  }
  kp_index_result r;
  if (apply_index(v, key, &r) < 0) return -1;
  if (r.is_element) {
    if (require_element_access(v) < 0) return -1;
    return store_element(v, r.offset, value);
  }
  if (kp_view_check_released(v)) return -1;
  PyObject *sub = make_subview(v, &r);
  if (!sub) return -1;
  kp_state *st = kp_state_from_type(Py_TYPE(v));
  int rc = kp_deep_copy(st, (kp_view *)sub, value, "View.__setitem__");
  Py_DECREF(sub);
  return rc;
}

Py_ssize_t kp_view_length(PyObject *self) {
  kp_view *v = (kp_view *)self;
  if (v->rank == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a rank-0 View");
    return -1;
  }
  return v->shape[0];
}

PyObject *kp_view_item(PyObject *self, Py_ssize_t i) {
  kp_view *v = (kp_view *)self;
  if (v->rank == 0) {
    PyErr_SetString(PyExc_TypeError, "iteration over a rank-0 View");
    return NULL;
  }
  if (i < 0 || i >= v->shape[0]) {
    PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for axis 0 with size %zd (View '%U')", i, v->shape[0],
                 v->label);
    return NULL;
  }
  PyObject *key = PyLong_FromSsize_t(i);
  if (!key) return NULL;
  PyObject *res = kp_view_subscript(self, key);
  Py_DECREF(key);
  return res;
}
