/* capi_module.c: kp_test_c, a plain C extension module that uses the kokkos
 * package only through kokkos_python.h (the C API capsule): no Kokkos, no
 * link to kokkos._core. tests/test_cxx_capi.py drives it.
 *
 *   from_malloc(dtype, shape, fortran=False, dynamic=False, label=None,
 *               kokkos_bound=False) -> View over malloc'd memory
 *   deleter_calls() -> int;  live_buffers() -> int
 *   from_owner(obj, dtype, shape, strides, offset=0) -> View over obj's buffer
 *   raw(rank, dtype, space, traits, extents, strides, null_data, dynamic)
 *   describe(view) -> dict;  owner(view);  is_view(obj);  is_dyn_rank_view(obj)
 *   is_released(obj);  external_ctx(view, tag);  view_from_object(obj, w, d)
 *   api_info() -> dict;  check_runtime_other() -> raises ImportError
 *   from_inline(dtype, shape, strides=None, size=16, label=None,
 *               kokkos_bound=False, null_construct=False)
 *       -> View over malloc'd memory whose context (the buffer) lives in the
 *          View's owner (view_from_inline, C API version 2)
 *   inline_calls() -> (constructs, destroys, misaligned)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#include <kokkos_python/kokkos_python.h>

#define API kokkos_python_api_table

static long s_deleter_calls = 0;
static long s_live = 0;
static const char s_tag[] = "kp_test_c.malloc";

static void free_buffer(void *ctx) {
  free(ctx);
  ++s_deleter_calls;
  --s_live;
}

static int parse_shape(PyObject *shape, kokkos_python_view_desc *d) {
  PyObject *seq = PySequence_Fast(shape, "shape must be a sequence");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > KOKKOS_PYTHON_MAX_RANK) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "too many extents");
    return -1;
  }
  d->rank = (int32_t)n;
  for (Py_ssize_t i = 0; i < n; ++i) {
    d->extents[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (d->extents[i] == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
  }
  Py_DECREF(seq);
  return 0;
}

/* Bytes per element of each dtype, from the public rows (tables.h): a
 * complex element is two of its C type. */
#define VALUES_INT 1
#define VALUES_UINT 1
#define VALUES_REAL 1
#define VALUES_HALF 1
#define VALUES_BOOL 1
#define VALUES_COMPLEX 2
#define ITEMSIZE(id, number, name, aliases, kind, type, ...) [number] = VALUES_##kind * (int64_t)sizeof(type),
static const int64_t itemsizes[] = {KOKKOS_PYTHON_DTYPE_ROWS(ITEMSIZE)};
_Static_assert(sizeof itemsizes / sizeof itemsizes[0] == KOKKOS_PYTHON_DTYPE_COUNT, "one itemsize per dtype");

static PyObject *from_malloc(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"dtype", "shape", "fortran", "dynamic", "label", "kokkos_bound", NULL};
  int dtype, fortran = 0, dynamic = 0, bound = 0;
  PyObject *shape;
  const char *label = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "iO|ppzp", kwlist, &dtype, &shape, &fortran, &dynamic, &label, &bound))
    return NULL;
  kokkos_python_view_desc d;
  memset(&d, 0, sizeof d);
  if (parse_shape(shape, &d) < 0) return NULL;
  if (dtype < 0 || dtype >= KOKKOS_PYTHON_DTYPE_COUNT) {
    PyErr_SetString(PyExc_ValueError, "bad dtype");
    return NULL;
  }
  int64_t n = 1, s = 1;
  for (int i = 0; i < d.rank; ++i) n *= d.extents[i];
  for (int i = 0; i < d.rank; ++i) {
    int r = fortran ? i : d.rank - 1 - i;
    d.strides[r] = s;
    s *= d.extents[r] > 0 ? d.extents[r] : 1;
  }
  d.data = calloc((size_t)(n > 0 ? n : 1), (size_t)itemsizes[dtype]);
  if (!d.data) return PyErr_NoMemory();
  d.dtype = dtype;
  d.space = KOKKOS_PYTHON_HOST_SPACE;
  d.layout = fortran ? KOKKOS_PYTHON_LAYOUT_LEFT : KOKKOS_PYTHON_LAYOUT_RIGHT;
  d.dynamic = dynamic;
  d.label = label;
  ++s_live;
  PyObject *v = API->view_from_deleter(&d, free_buffer, d.data, bound, s_tag);
  if (!v) {
    /* Not handed over: still ours. */
    free(d.data);
    --s_live;
  }
  return v;
}

/* ---- view_from_inline: the context is built inside the View's owner ------------------ */

static const char s_inline_tag[] = "kp_test_c.inline";
static long s_constructs = 0, s_destroys = 0, s_misaligned = 0;

typedef struct inline_context {
  void *buffer;
  long serial;
} inline_context;

static void inline_construct(void *storage, const void *src) {
  if ((uintptr_t)storage % 16 != 0) ++s_misaligned;
  inline_context *c = (inline_context *)storage;
  c->buffer = *(void *const *)src;
  c->serial = ++s_constructs;
}

static void inline_destroy(void *storage) {
  inline_context *c = (inline_context *)storage;
  free(c->buffer);
  c->buffer = NULL;
  ++s_destroys;
  --s_live;
}

static PyObject *from_inline(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"dtype",        "shape",          "strides",     "size", "label",
                           "kokkos_bound", "null_construct", "label_bytes", NULL};
  int dtype, bound = 0, null_construct = 0;
  PyObject *shape, *strides = Py_None;
  Py_ssize_t size = (Py_ssize_t)sizeof(inline_context);
  const char *label = NULL, *label_bytes = NULL; /* label_bytes: not UTF-8 checked */
  if (!PyArg_ParseTupleAndKeywords(args, kw, "iO|Onzppy", kwlist, &dtype, &shape, &strides, &size, &label, &bound,
                                   &null_construct, &label_bytes))
    return NULL;
  if (label_bytes) label = label_bytes;
  kokkos_python_view_desc d;
  memset(&d, 0, sizeof d);
  if (parse_shape(shape, &d) < 0) return NULL;
  if (dtype < 0 || dtype >= KOKKOS_PYTHON_DTYPE_COUNT) {
    PyErr_SetString(PyExc_ValueError, "bad dtype");
    return NULL;
  }
  int64_t n = 1, s = 1;
  for (int i = 0; i < d.rank; ++i) n *= d.extents[i];
  for (int i = d.rank - 1; i >= 0; --i) {
    d.strides[i] = s;
    s *= d.extents[i] > 0 ? d.extents[i] : 1;
  }
  if (strides != Py_None) {
    PyObject *seq = PySequence_Fast(strides, "strides must be a sequence");
    if (!seq) return NULL;
    for (int i = 0; i < d.rank && i < PySequence_Fast_GET_SIZE(seq); ++i)
      d.strides[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    if (PyErr_Occurred()) return NULL;
  }
  void *buffer = calloc((size_t)(n > 0 ? n : 1), (size_t)itemsizes[dtype]);
  if (!buffer) return PyErr_NoMemory();
  d.data = buffer;
  d.dtype = dtype;
  d.space = KOKKOS_PYTHON_HOST_SPACE;
  d.layout = strides == Py_None ? KOKKOS_PYTHON_LAYOUT_RIGHT : KOKKOS_PYTHON_LAYOUT_STRIDE;
  d.label = label;
  ++s_live;
  long destroys = s_destroys;
  PyObject *v = API->view_from_inline(&d, (size_t)size, null_construct ? NULL : inline_construct, &buffer,
                                      inline_destroy, bound, s_inline_tag);
  if (!v && s_destroys == destroys) {
    /* Not handed over, and nothing built to destroy: still ours. */
    free(buffer);
    --s_live;
  }
  return v;
}

static PyObject *inline_calls(PyObject *self, PyObject *unused) {
  return Py_BuildValue("(lll)", s_constructs, s_destroys, s_misaligned);
}

static PyObject *deleter_calls(PyObject *self, PyObject *unused) { return PyLong_FromLong(s_deleter_calls); }
static PyObject *live_buffers(PyObject *self, PyObject *unused) { return PyLong_FromLong(s_live); }

static PyObject *from_owner(PyObject *self, PyObject *args) {
  PyObject *obj, *shape, *strides;
  int dtype;
  Py_ssize_t offset = 0; /* bytes from the start of obj's buffer */
  if (!PyArg_ParseTuple(args, "OiOO|n", &obj, &dtype, &shape, &strides, &offset)) return NULL;
  kokkos_python_view_desc d;
  memset(&d, 0, sizeof d);
  if (parse_shape(shape, &d) < 0) return NULL;
  PyObject *seq = PySequence_Fast(strides, "strides must be a sequence");
  if (!seq) return NULL;
  for (int i = 0; i < d.rank && i < PySequence_Fast_GET_SIZE(seq); ++i)
    d.strides[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
  Py_DECREF(seq);
  Py_buffer buf;
  if (PyObject_GetBuffer(obj, &buf, PyBUF_SIMPLE) < 0) return NULL;
  d.data = (char *)buf.buf + offset;
  d.readonly = buf.readonly;
  PyBuffer_Release(&buf); /* bytes: the memory lives as long as obj */
  d.dtype = dtype;
  d.space = KOKKOS_PYTHON_HOST_SPACE;
  d.layout = KOKKOS_PYTHON_LAYOUT_STRIDE;
  d.label = "from_owner";
  return API->view_from_owner(&d, obj);
}

static PyObject *raw(PyObject *self, PyObject *args) {
  int rank, dtype, space, null_data, dynamic;
  unsigned traits;
  PyObject *extents, *strides;
  if (!PyArg_ParseTuple(args, "iiiIOOpp", &rank, &dtype, &space, &traits, &extents, &strides, &null_data, &dynamic))
    return NULL;
  kokkos_python_view_desc d;
  memset(&d, 0, sizeof d);
  if (parse_shape(extents, &d) < 0) return NULL;
  PyObject *seq = PySequence_Fast(strides, "strides must be a sequence");
  if (!seq) return NULL;
  for (int i = 0; i < KOKKOS_PYTHON_MAX_RANK && i < PySequence_Fast_GET_SIZE(seq); ++i)
    d.strides[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
  Py_DECREF(seq);
  d.rank = rank;
  d.dtype = dtype;
  d.space = space;
  d.traits = traits;
  d.dynamic = dynamic;
  d.layout = KOKKOS_PYTHON_LAYOUT_STRIDE;
  void *mem = malloc(4096);
  if (!mem) return PyErr_NoMemory();
  d.data = null_data ? NULL : mem;
  ++s_live;
  PyObject *v = API->view_from_deleter(&d, free_buffer, mem, 0, s_tag);
  if (!v) {
    free(mem);
    --s_live;
  }
  return v;
}

static PyObject *describe(PyObject *self, PyObject *view) {
  kokkos_python_view_desc d;
  if (API->describe(view, &d) < 0) return NULL;
  PyObject *ext = PyTuple_New(d.rank), *str = PyTuple_New(d.rank);
  if (!ext || !str) {
    Py_XDECREF(ext);
    Py_XDECREF(str);
    return NULL;
  }
  for (int i = 0; i < d.rank; ++i) {
    PyTuple_SET_ITEM(ext, i, PyLong_FromLongLong(d.extents[i]));
    PyTuple_SET_ITEM(str, i, PyLong_FromLongLong(d.strides[i]));
  }
  return Py_BuildValue("{sKsisisisisIsisisNsNss}", "data", (unsigned long long)(uintptr_t)d.data, "rank", (int)d.rank,
                       "dtype", (int)d.dtype, "space", (int)d.space, "layout", (int)d.layout, "traits",
                       (unsigned)d.traits, "readonly", (int)d.readonly, "dynamic", (int)d.dynamic, "extents", ext,
                       "strides", str, "label", d.label);
}

static PyObject *owner(PyObject *self, PyObject *view) { return API->owner(view); }
static PyObject *is_view(PyObject *self, PyObject *obj) { return PyBool_FromLong(API->is_view(obj)); }
static PyObject *is_dyn_rank_view(PyObject *self, PyObject *obj) { return PyBool_FromLong(API->is_dyn_rank_view(obj)); }
static PyObject *is_released(PyObject *self, PyObject *obj) { return PyBool_FromLong(API->is_released(obj)); }

static PyObject *external_ctx(PyObject *self, PyObject *args) {
  PyObject *view;
  const char *tag;
  if (!PyArg_ParseTuple(args, "Os", &view, &tag)) return NULL;
  void *ctx = NULL;
  int r = API->external_owner(view, tag, &ctx);
  if (r < 0) return NULL;
  if (r == 0) Py_RETURN_NONE;
  return PyLong_FromVoidPtr(ctx);
}

static PyObject *view_from_object(PyObject *self, PyObject *args) {
  PyObject *obj;
  int writable, dynamic;
  if (!PyArg_ParseTuple(args, "Opp", &obj, &writable, &dynamic)) return NULL;
  return API->view_from_object(obj, writable, dynamic);
}

static PyObject *api_info(PyObject *self, PyObject *unused) {
  return Py_BuildValue("{sIsIsisisOsssisisI}", "version", (unsigned)API->version, "size", (unsigned)API->size,
                       "kokkos_version", (int)API->kokkos_version, "max_rank", (int)API->max_rank, "has_runtime",
                       API->kokkos_runtime ? Py_True : Py_False, "kokkos_library",
                       API->kokkos_library ? API->kokkos_library : "", "is_initialized", API->is_initialized(),
                       "is_finalized", API->is_finalized(), "inline_capacity", (unsigned)API->inline_capacity);
}

static PyObject *runtime_ensure(PyObject *self, PyObject *unused) {
  if (API->runtime_ensure() < 0) return NULL;
  Py_RETURN_NONE;
}

/* A "Kokkos runtime" that is not the core's: the address of this function. */
static PyObject *check_runtime_other(PyObject *self, PyObject *unused) {
  if (API->check_runtime((const void *)&check_runtime_other, 30401, "kp_test_c") < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *check_runtime_same(PyObject *self, PyObject *unused) {
  if (API->check_runtime(API->kokkos_runtime, API->kokkos_version, "kp_test_c") < 0) return NULL;
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"from_malloc", (PyCFunction)(void (*)(void))from_malloc, METH_VARARGS | METH_KEYWORDS, NULL},
    {"deleter_calls", deleter_calls, METH_NOARGS, NULL},
    {"from_inline", (PyCFunction)(void (*)(void))from_inline, METH_VARARGS | METH_KEYWORDS, NULL},
    {"inline_calls", inline_calls, METH_NOARGS, NULL},
    {"live_buffers", live_buffers, METH_NOARGS, NULL},
    {"from_owner", from_owner, METH_VARARGS, NULL},
    {"raw", raw, METH_VARARGS, NULL},
    {"describe", describe, METH_O, NULL},
    {"owner", owner, METH_O, NULL},
    {"is_view", is_view, METH_O, NULL},
    {"is_dyn_rank_view", is_dyn_rank_view, METH_O, NULL},
    {"is_released", is_released, METH_O, NULL},
    {"external_ctx", external_ctx, METH_VARARGS, NULL},
    {"view_from_object", view_from_object, METH_VARARGS, NULL},
    {"api_info", api_info, METH_NOARGS, NULL},
    {"runtime_ensure", runtime_ensure, METH_NOARGS, NULL},
    {"check_runtime_other", check_runtime_other, METH_NOARGS, NULL},
    {"check_runtime_same", check_runtime_same, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

static int exec_module(PyObject *m) {
  if (kokkos_python_import() < 0) return -1;
  if (PyModule_AddStringConstant(m, "inline_tag", s_inline_tag) < 0) return -1;
  return PyModule_AddStringConstant(m, "tag", s_tag);
}

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "kp_test_c", "C API test module", 0, methods, slots};

PyMODINIT_FUNC PyInit_kp_test_c(void) { return PyModuleDef_Init(&def); }
