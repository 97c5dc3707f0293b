/* interface.c: the one reader of the interface dicts, __array_interface__
 * (version 3) and __cuda_array_interface__ (versions 0 to 3): shape,
 * typestr, data, strides, mask, version and, for CUDA, stream.
 *
 * Every entry is checked before it is used (docs/hardening.md, "Exchange
 * inputs"): typestr exactly as the interface defines it; shape and strides
 * as tuples of ints (not bools) of one length, extents >= 0, every byte
 * stride a multiple of the item size whose elements span at most
 * PY_SSIZE_T_MAX bytes without running off the address space; data a
 * (int address, bool read-only) pair, address 0 for empty arrays only;
 * version 3 (0 to 3 for CUDA); descr a list of tuples; offset 0; no mask.
 *
 * One exception policy for both (buffer.c and cai.c use it; the DLPack
 * import follows it too):
 *   TypeError    an entry of the wrong Python type, or an element type no
 *                View has (as for the buffer protocol's formats);
 *   ValueError   a malformed description: a missing entry, a negative
 *                extent, counts that disagree, a rank above Kokkos' 8, a
 *                null address for a non-empty array, stream 0;
 *   OverflowError an address that does not fit a pointer;
 *   BufferError  memory a View cannot describe: a mask, byte strides that
 *                are not a multiple of the element size, elements spanning
 *                more than PY_SSIZE_T_MAX bytes.
 */
#include "core.h"
#include "base.h"
#include "model.h"

#include "exchange.h"

#include <string.h>

/* An entry of the dict (borrowed; NULL without an error when absent). The
 * caller reads a private copy of the dict, so Python code run meanwhile
 * (__index__ of an extent) cannot free the entries. */
static PyObject *entry(PyObject *dict, const char *key) { return PyDict_GetItemString(dict, key); }

/* Reads a tuple of ints; *rank < 0 accepts any length (then sets it). */
static int read_ints(PyObject *t, const kp_interface_ctx *c, const char *key, Py_ssize_t *out, int *rank) {
  if (!PyTuple_Check(t)) {
    PyErr_Format(PyExc_TypeError, "%s: %s['%s'] must be a tuple of ints, got %.100s", c->where, c->name, key,
                 Py_TYPE(t)->tp_name);
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(t);
  if (*rank >= 0 && n != *rank) {
    PyErr_Format(PyExc_ValueError, "%s: %s['%s'] has %zd entries for rank %d", c->where, c->name, key, n, *rank);
    return -1;
  }
  if (n > c->max_rank) {
    PyErr_Format(PyExc_ValueError, "%s: rank %zd is larger than the maximum %d", c->where, n, c->max_rank);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PyTuple_GET_ITEM(t, i);
    if (!PyIndex_Check(item) || PyBool_Check(item)) {
      PyErr_Format(PyExc_TypeError, "%s: %s['%s'][%zd] must be an int, got %.100s", c->where, c->name, key, i,
                   Py_TYPE(item)->tp_name);
      return -1;
    }
    Py_ssize_t x = PyNumber_AsSsize_t(item, PyExc_OverflowError);
    if (x == -1 && PyErr_Occurred()) {
      if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "%s: %s['%s'][%zd] = %R does not fit a Py_ssize_t", c->where, c->name, key, i,
                     item);
      }
      return -1;
    }
    out[i] = x;
  }
  *rank = (int)n;
  return 0;
}

/* data = (address, read_only) */
static int read_data(PyObject *data, const kp_interface_ctx *c, kp_interface *out) {
  if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
    PyErr_Format(PyExc_TypeError, "%s: %s['data'] must be a (pointer, read_only) tuple, got %R", c->where, c->name,
                 data);
    return -1;
  }
  PyObject *addr = PyTuple_GET_ITEM(data, 0);
  if (!PyLong_Check(addr)) {
    PyErr_Format(PyExc_TypeError, "%s: %s['data'][0] must be an int address, got %.100s", c->where, c->name,
                 Py_TYPE(addr)->tp_name);
    return -1;
  }
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(addr, &overflow);
  if (value == -1 && !overflow && PyErr_Occurred()) return -1;
  int negative = overflow < 0 || (overflow == 0 && value < 0);
  out->data = negative ? NULL : PyLong_AsVoidPtr(addr);
  if (negative || (!out->data && PyErr_Occurred())) {
    if (!negative && !PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "%s: %s['data'][0] = %R is not an address", c->where, c->name, addr);
    return -1;
  }
  PyObject *ro = PyTuple_GET_ITEM(data, 1);
  if (!PyLong_Check(ro)) { /* bool, or an int as 0/1 */
    PyErr_Format(PyExc_TypeError, "%s: %s['data'][1] (read-only) must be a bool, got %.100s", c->where, c->name,
                 Py_TYPE(ro)->tp_name);
    return -1;
  }
  out->readonly = PyObject_IsTrue(ro);
  return out->readonly < 0 ? -1 : 0;
}

/* stream: None, or an int other than 0 (CUDA only). */
static int read_stream(PyObject *stream, const kp_interface_ctx *c, kp_interface *out) {
  out->has_stream = stream && stream != Py_None;
  if (!out->has_stream) return 0;
  if (!PyLong_Check(stream) || PyBool_Check(stream)) {
    PyErr_Format(PyExc_TypeError, "%s: %s['stream'] must be an int or None, got %.100s", c->where, c->name,
                 Py_TYPE(stream)->tp_name);
    return -1;
  }
  out->stream = PyLong_AsLongLong(stream);
  if (out->stream == -1 && PyErr_Occurred()) return -1;
  if (out->stream < 0) {
    PyErr_Format(PyExc_ValueError, "%s: %s['stream'] is %lld, which is not a stream handle", c->where, c->name,
                 out->stream);
    return -1;
  }
  if (out->stream == 0) {
    PyErr_Format(PyExc_ValueError,
                 "%s: %s['stream'] is 0, which the interface forbids (1 is the legacy default stream, 2 the "
                 "per-thread default stream)",
                 c->where, c->name);
    return -1;
  }
  return 0;
}

/* typestr, exactly: a byte-order character (< > | =), a kind character, and
 * the item size in decimal without a leading zero, nothing after it, no NUL.
 * Then the dtype (-1 when no View has it: big-endian multi-byte types, ...).
 * -2 when the string is not a typestr at all. */
static int parse_typestr(const char *ts, Py_ssize_t len) {
  if (len < 3 || (Py_ssize_t)strlen(ts) != len) return -2; /* (and so ts[0] is not NUL) */
  if (!strchr("<>|=", ts[0])) return -2;
  if (!((ts[1] >= 'a' && ts[1] <= 'z') || (ts[1] >= 'A' && ts[1] <= 'Z'))) return -2;
  if (ts[2] < '1' || ts[2] > '9' || len > 2 + 9) return -2;
  for (Py_ssize_t i = 3; i < len; ++i)
    if (ts[i] < '0' || ts[i] > '9') return -2;
  return kp_dtype_from_typestr(ts);
}

static int read_typestr(PyObject *typestr, const kp_interface_ctx *c, kp_interface *out) {
  if (!PyUnicode_Check(typestr)) {
    PyErr_Format(PyExc_TypeError, "%s: %s['typestr'] must be a str, got %.100s", c->where, c->name,
                 Py_TYPE(typestr)->tp_name);
    return -1;
  }
  Py_ssize_t len;
  const char *ts = PyUnicode_AsUTF8AndSize(typestr, &len);
  if (!ts) return -1;
  out->dtype = parse_typestr(ts, len);
  if (out->dtype == -2) {
    PyErr_Format(PyExc_TypeError,
                 "%s: %s['typestr'] = %R is not a typestr (a byte order <, >, | or =, a kind character, and the "
                 "item size in bytes in decimal without leading zeros, as '<f8')",
                 c->where, c->name, typestr);
    return -1;
  }
  if (out->dtype < 0) {
    PyErr_Format(PyExc_TypeError,
                 "%s: element type %R (%s['typestr']) is not supported by Kokkos Views (supported: %s, native byte "
                 "order)",
                 c->where, typestr, c->name, kp_dtype_supported());
    return -1;
  }
  return 0;
}

/* version: an int, 3 for __array_interface__ (the only one NumPy
 * writes), 0 to 3 for __cuda_array_interface__; optional for the first. */
static int read_version(PyObject *version, const kp_interface_ctx *c) {
  if (!version) {
    if (!c->cuda) return 0;
    PyErr_Format(PyExc_ValueError, "%s: %s lacks its 'version' entry", c->where, c->name);
    return -1;
  }
  if (!PyLong_Check(version) || PyBool_Check(version)) {
    PyErr_Format(PyExc_TypeError, "%s: %s['version'] must be an int, got %.100s", c->where, c->name,
                 Py_TYPE(version)->tp_name);
    return -1;
  }
  int overflow;
  long v = PyLong_AsLongAndOverflow(version, &overflow);
  if (v == -1 && PyErr_Occurred()) return -1;
  long lo = c->cuda ? 0 : 3;
  if (overflow || v < lo || v > 3) {
    PyErr_Format(PyExc_ValueError, "%s: %s['version'] is %R; kokkos reads version%s %ld%s", c->where, c->name, version,
                 lo == 3 ? "" : "s", lo, lo == 3 ? "" : " to 3");
    return -1;
  }
  return 0;
}

/* descr: a list of (name, typestr[, shape]) tuples, as NumPy writes it; its
 * fields matter only for the structured ('V') types no View has, so only
 * its form is checked. offset: meaningful only where 'data' is a buffer
 * object, which is not taken here: 0 or absent. */
static int read_descr_offset(PyObject *d, const kp_interface_ctx *c) {
  PyObject *descr = entry(d, "descr");
  if (descr && descr != Py_None) {
    if (!PyList_Check(descr)) {
      PyErr_Format(PyExc_TypeError, "%s: %s['descr'] must be a list of tuples, got %.100s", c->where, c->name,
                   Py_TYPE(descr)->tp_name);
      return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(descr); ++i) {
      PyObject *f = PyList_GET_ITEM(descr, i);
      if (!PyTuple_Check(f) || PyTuple_GET_SIZE(f) < 2 || PyTuple_GET_SIZE(f) > 3) {
        PyErr_Format(PyExc_TypeError, "%s: %s['descr'][%zd] must be a (name, typestr) tuple, got %.100s", c->where,
                     c->name, i, Py_TYPE(f)->tp_name);
        return -1;
      }
    }
  }
  PyObject *offset = entry(d, "offset");
  if (offset && offset != Py_None) {
    if (!PyLong_Check(offset) || PyBool_Check(offset)) {
      PyErr_Format(PyExc_TypeError, "%s: %s['offset'] must be an int, got %.100s", c->where, c->name,
                   Py_TYPE(offset)->tp_name);
      return -1;
    }
    int nonzero = PyObject_IsTrue(offset);
    if (nonzero < 0) return -1;
    if (nonzero) {
      PyErr_Format(PyExc_ValueError,
                   "%s: %s['offset'] is %R; an offset applies to a buffer object in 'data', and kokkos takes an "
                   "address there: add the offset to the address",
                   c->where, c->name, offset);
      return -1;
    }
  }
  return 0;
}

static int read_copy(PyObject *d, const kp_interface_ctx *c, kp_interface *out) {
  static const char *const required[] = {"shape", "typestr", "data"};
  for (int i = 0; i < 3; ++i)
    if (!entry(d, required[i])) {
      PyErr_Format(PyExc_ValueError, "%s: %s lacks its '%s' entry (shape, typestr and data are required)", c->where,
                   c->name, required[i]);
      return -1;
    }
  if (read_version(entry(d, "version"), c) < 0) return -1;
  PyObject *mask = entry(d, "mask");
  if (mask && mask != Py_None) {
    PyErr_Format(PyExc_BufferError,
                 "%s: masked arrays (a 'mask' in %s) cannot be Views; fill the masked elements first", c->where,
                 c->name);
    return -1;
  }
  if (read_typestr(entry(d, "typestr"), c, out) < 0 || read_descr_offset(d, c) < 0) return -1;
  Py_ssize_t itemsize = kp_dtypes[out->dtype].itemsize;
  out->rank = -1;
  if (read_ints(entry(d, "shape"), c, "shape", out->shape, &out->rank) < 0) return -1;
  for (int r = 0; r < out->rank; ++r)
    if (out->shape[r] < 0) {
      PyErr_Format(PyExc_ValueError, "%s: %s['shape'][%d] is %zd; extents cannot be negative", c->where, c->name, r,
                   out->shape[r]);
      return -1;
    }
  /* Before any strides are computed from the extents: they must not overflow. */
  if (kp_checked_bytes(out->rank, out->shape, itemsize, &out->bytes, c->where) < 0) return -1;
  PyObject *strides = entry(d, "strides");
  if (strides && strides != Py_None) {
    Py_ssize_t bytes[KP_MAX_RANK];
    if (read_ints(strides, c, "strides", bytes, &out->rank) < 0) return -1;
    for (int r = 0; r < out->rank; ++r) {
      if (bytes[r] % itemsize != 0) {
        PyErr_Format(PyExc_BufferError,
                     "%s: byte stride %zd (dimension %d) is not a multiple of the %zd-byte item size; Kokkos View "
                     "strides count elements (copy the data into a contiguous array first)",
                     c->where, bytes[r], r, itemsize);
        return -1;
      }
      out->strides[r] = bytes[r] / itemsize;
    }
  } else {
    kp_contiguous_strides(out->rank, out->shape, KP_LAYOUT_RIGHT, out->strides);
  }
  if (read_data(entry(d, "data"), c, out) < 0) return -1;
  if (!out->data && out->bytes > 0) {
    PyErr_Format(PyExc_ValueError, "%s: %s['data'] is a null pointer for %zu bytes", c->where, c->name, out->bytes);
    return -1;
  }
  if (kp_check_span_at(out->data, out->rank, out->shape, out->strides, itemsize, c->where) < 0) return -1;
  out->has_stream = 0;
  return c->cuda ? read_stream(entry(d, "stream"), c, out) : 0;
}

int kp_interface_read(PyObject *dict, const kp_interface_ctx *c, kp_interface *out) {
  if (!PyDict_Check(dict)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be a dict, got %.100s", c->where, c->name, Py_TYPE(dict)->tp_name);
    return -1;
  }
  PyObject *copy = PyDict_Copy(dict);
  if (!copy) return -1;
  int rc = read_copy(copy, c, out);
  Py_DECREF(copy);
  return rc;
}
