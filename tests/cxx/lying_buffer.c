/* kp_lying_buffer: a buffer exporter whose Py_buffer fields the test sets,
 * lies included (ndim, shape, strides, suboffsets, a NULL buf): what a
 * broken C extension could hand kokkos.asarray. tests/test_exchange_fields.py
 * builds it with the system compiler.
 *
 *     Exporter(ndim, shape=None, strides=None, suboffsets=False, null_buf=False)
 *
 * Elements are doubles ("d") in 8 of its own; shape and strides (bytes) are
 * given as the buffer's fields (None: NULL), at most 8 entries each. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_FIELDS 8

typedef struct {
  PyObject ob_base;
  int ndim;
  Py_ssize_t shape[MAX_FIELDS], strides[MAX_FIELDS], suboffsets[MAX_FIELDS];
  int has_shape, has_strides, has_suboffsets, null_buf;
  double storage[MAX_FIELDS];
} Exporter;

/* Reads up to MAX_FIELDS ints of seq into out; *given is 0 for None. */
static int read_fields(PyObject *seq, Py_ssize_t *out, int *given) {
  *given = seq != Py_None;
  if (!*given) return 0;
  PyObject *fast = PySequence_Fast(seq, "shape and strides must be sequences of ints or None");
  if (!fast) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  for (Py_ssize_t i = 0; i < n && i < MAX_FIELDS; ++i) {
    out[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fast, i));
    if (out[i] == -1 && PyErr_Occurred()) {
      Py_DECREF(fast);
      return -1;
    }
  }
  Py_DECREF(fast);
  return 0;
}

static int exporter_init(Exporter *self, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"ndim", "shape", "strides", "suboffsets", "null_buf", NULL};
  PyObject *shape = Py_None, *strides = Py_None;
  int suboffsets = 0, null_buf = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "i|OOpp", keywords, &self->ndim, &shape, &strides, &suboffsets,
                                   &null_buf))
    return -1;
  if (read_fields(shape, self->shape, &self->has_shape) < 0 ||
      read_fields(strides, self->strides, &self->has_strides) < 0)
    return -1;
  self->has_suboffsets = suboffsets;
  self->null_buf = null_buf;
  for (int i = 0; i < MAX_FIELDS; ++i) {
    self->suboffsets[i] = -1;
    self->storage[i] = i;
  }
  return 0;
}

static int exporter_getbuffer(PyObject *obj, Py_buffer *view, int flags) {
  Exporter *self = (Exporter *)obj;
  view->buf = self->null_buf ? NULL : self->storage;
  view->obj = obj;
  Py_INCREF(obj);
  view->len = sizeof self->storage;
  view->itemsize = sizeof(double);
  view->readonly = 0;
  view->ndim = self->ndim;
  view->format = (flags & PyBUF_FORMAT) ? "d" : NULL;
  view->shape = self->has_shape ? self->shape : NULL;
  view->strides = self->has_strides ? self->strides : NULL;
  view->suboffsets = self->has_suboffsets ? self->suboffsets : NULL;
  view->internal = NULL;
  return 0;
}

static PyBufferProcs exporter_buffer = {exporter_getbuffer, NULL};

static PyTypeObject exporter_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kp_lying_buffer.Exporter",
    .tp_basicsize = sizeof(Exporter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)exporter_init,
    .tp_as_buffer = &exporter_buffer,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, .m_name = "kp_lying_buffer", .m_size = -1};

PyMODINIT_FUNC PyInit_kp_lying_buffer(void) {
  if (PyType_Ready(&exporter_type) < 0) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  Py_INCREF(&exporter_type);
  if (PyModule_AddObject(m, "Exporter", (PyObject *)&exporter_type) < 0) {
    Py_DECREF(&exporter_type);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
