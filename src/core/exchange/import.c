/* import.c: a View over any exchange producer's memory, the one place that
 * chooses the protocol: kokkos.asarray's, kokkos.array's and deep_copy's
 * sources all come through kp_view_from_exchange, which names the caller
 * (its `where`) in every message.
 *
 * Python equivalent:
 *
 *     def _view_from_object(obj, label=None) -> View          # kokkos.asarray's import
 *     def _from_cuda_array_interface(obj, label=None) -> View  # the CAI alone
 *
 * The order, cheapest first among the ways that give the same View:
 *   1. a View: itself;
 *   2. a DLPack capsule, or a producer whose type has a DLPack C exchange
 *      table (no Python-level call): DLPack (dlpack.c);
 *   3. a producer offering both __cuda_array_interface__ and __dlpack__
 *      (CuPy), when this Kokkos has CUDA, the interface is a C-level
 *      attribute (a getset descriptor, as Cython types have: reading it
 *      runs no Python code) and names a stream: the interface (cai.c),
 *      which costs less than a capsule; Kokkos' stream waits for the named
 *      stream (stream.c), as DLPack's producer makes it wait for its
 *      current stream. A Python property (PyTorch's) costs more than the
 *      capsule: such producers keep DLPack;
 *   4. any other DLPack producer: obj.__dlpack__() (dlpack.c), falling back to
 *      the buffer protocol when DLPack cannot describe the array (NumPy's
 *      unaligned or byte-strided arrays);
 *   5. __cuda_array_interface__ alone (cai.c);
 *   6. the buffer protocol or __array_interface__ (buffer.c).
 * Each protocol's file owns its checks and messages; this file only picks.
 */
#include "core.h"
#include "base.h"
#include "model.h"

#include "exchange.h"

/* Step 3: *out is the View (or NULL with an exception) and 1 is returned
 * when the interface was taken; 0 (no exception) to go on with DLPack. */
static int view_from_cai_first(kp_state *st, PyObject *obj, PyObject *label, const char *where, kp_view **out) {
  *out = NULL;
  if (!kp_bridge_space_available(KP_SPACE_CUDA)) return 0;
  PyObject *descr = kp_type_lookup(Py_TYPE(obj), st->dl[KP_DL_STR_CAI]); /* borrowed */
  if (!descr || !(Py_IS_TYPE(descr, &PyGetSetDescr_Type) || Py_IS_TYPE(descr, &PyMemberDescr_Type))) return 0;
  PyObject *d = PyObject_GetAttr(obj, st->dl[KP_DL_STR_CAI]);
  if (!d) {
    /* A property that refuses (a PyTorch tensor on the CPU): DLPack. */
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return 1;
    PyErr_Clear();
    return 0;
  }
  kp_interface in;
  int rc = kp_cai_read(d, where, &in);
  if (rc < 0) {
    /* DLPack may still describe the array; a failure of the interpreter
     * itself (MemoryError, KeyboardInterrupt) is reported. */
    if (!(PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_ValueError) ||
          PyErr_ExceptionMatches(PyExc_OverflowError) || PyErr_ExceptionMatches(PyExc_BufferError))) {
      Py_DECREF(d);
      return 1;
    }
    PyErr_Clear();
  }
  if (rc < 0 || !in.has_stream) {
    /* Without a stream the interface promises nothing to order after:
     * DLPack's stream handshake keeps the ordering DLPack gives. */
    Py_DECREF(d);
    return 0;
  }
  *out = kp_view_from_cai_interface(st, obj, &in, label, where);
  Py_DECREF(d);
  return 1;
}

kp_view *kp_view_from_exchange(kp_state *st, PyObject *obj, PyObject *label, const char *where) {
  if (PyObject_TypeCheck(obj, st->view_type)) return (kp_view *)Py_NewRef(obj);
  int is_capsule = PyCapsule_CheckExact(obj);
  if (is_capsule || kp_type_lookup(Py_TYPE(obj), st->dl[KP_DL_STR_DLPACK])) {
    kp_view *v = NULL;
    int has_api = is_capsule ? 0 : kp_dl_has_exchange_api(st, Py_TYPE(obj));
    if (has_api < 0) return NULL;
    if (!is_capsule && !has_api && view_from_cai_first(st, obj, label, where, &v)) return v;
    v = kp_view_from_dlpack(st, obj, label, where);
    /* A producer that cannot describe this array with DLPack (NumPy's
     * unaligned or byte-strided arrays) may still offer a buffer. */
    if (v || !PyErr_ExceptionMatches(PyExc_BufferError) || !PyObject_CheckBuffer(obj)) return v;
    PyObject *exc = kp_fetch_exception();
    v = kp_view_from_buffer_object(st, obj, 0, label, 0, where);
    if (v) {
      Py_XDECREF(exc);
      return v;
    }
    /* Neither way works: DLPack's reason is the one to report. */
    PyErr_Clear();
    kp_restore_exception(exc);
    return NULL;
  }
  PyObject *cai = NULL;
  if (kp_get_optional_attr(obj, st->dl[KP_DL_STR_CAI], &cai) < 0) return NULL;
  if (cai) {
    Py_DECREF(cai);
    return kp_view_from_cai(st, obj, label, where);
  }
  return kp_view_from_buffer_object(st, obj, 0, label, 0, where);
}

/* ---- Python entry points ------------------------------------------------------------ */

static const kp_signature sig_view_from_object = {"kokkos.asarray()", 2, 1, 2};
static const kp_signature sig_from_cai = {"kokkos.asarray()", 2, 1, 2};

/* Parses (obj, label=None) for the zero-copy import entry points. */
static int parse_obj_label(kp_state *st, const kp_signature *sig, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, PyObject **obj, PyObject **label) {
  const kp_param params[] = {{KP_KW_OBJ, obj}, {KP_KW_LABEL, label}};
  if (kp_args_parse(st, sig, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0) return -1;
  if (*label == Py_None) *label = NULL;
  if (*label && !PyUnicode_Check(*label)) {
    PyErr_Format(PyExc_TypeError, "%s: label must be a str, got %.100s", sig->name, Py_TYPE(*label)->tp_name);
    return -1;
  }
  return 0;
}

PyObject *kp_py_view_from_object(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *obj, *label;
  kp_state *st = (kp_state *)PyModule_GetState(module);
  if (parse_obj_label(st, &sig_view_from_object, args, nargs, kwnames, &obj, &label) < 0) return NULL;
  return (PyObject *)kp_view_from_exchange(st, obj, label, sig_view_from_object.name);
}

PyObject *kp_py_from_cuda_array_interface(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                          PyObject *kwnames) {
  PyObject *obj, *label;
  kp_state *st = (kp_state *)PyModule_GetState(module);
  if (parse_obj_label(st, &sig_from_cai, args, nargs, kwnames, &obj, &label) < 0) return NULL;
  return (PyObject *)kp_view_from_cai(st, obj, label, sig_from_cai.name);
}

/* ---- the protocols' names and constants ------------------------------------------- */

/* A tuple of n interned keyword names (of a, b, c); new reference or NULL. */
static PyObject *kw_names(Py_ssize_t n, const char *a, const char *b, const char *c) {
  const char *names[3] = {a, b, c};
  PyObject *t = PyTuple_New(n);
  for (Py_ssize_t i = 0; t && i < n; ++i) {
    PyObject *s = PyUnicode_InternFromString(names[i]);
    if (!s)
      Py_CLEAR(t);
    else
      PyTuple_SET_ITEM(t, i, s);
  }
  return t;
}

int kp_exchange_init(kp_state *st) {
  PyObject **dl = st->dl;
  dl[KP_DL_STR_DLPACK] = PyUnicode_InternFromString("__dlpack__");
  dl[KP_DL_STR_DLPACK_DEVICE] = PyUnicode_InternFromString("__dlpack_device__");
  dl[KP_DL_STR_EXCHANGE_API] = PyUnicode_InternFromString(KP_DL_EXCHANGE_API_ATTR);
  dl[KP_DL_STR_CAI] = PyUnicode_InternFromString("__cuda_array_interface__");
  dl[KP_DL_MAX_VERSION] = Py_BuildValue("(ii)", KP_DL_MAJOR_VERSION, KP_DL_MINOR_VERSION);
  dl[KP_DL_CPU_DEVICE] = Py_BuildValue("(ii)", KP_DL_CPU, 0);
  /* Keyword names interned: a producer's parser (NumPy's among them) finds
   * an interned name by its address, and compares strings otherwise. */
  dl[KP_DL_KW_MAX_VERSION] = kw_names(1, "max_version", "", "");
  dl[KP_DL_KW_STREAM_MAX_VERSION] = kw_names(2, "stream", "max_version", "");
  dl[KP_DL_KW_STREAM] = kw_names(1, "stream", "", "");
  dl[KP_DL_KW_HOST_COPY] = kw_names(3, "max_version", "dl_device", "copy");
  for (int i = 0; i < KP_DL_CONST_COUNT; ++i)
    if (!dl[i]) return -1; /* the module's clear drops those made */
  return 0;
}
