/* compat.h: the one place where the core bridges CPython versions (3.10 to
 * 3.13+). Every PY_VERSION_HEX check of the core lives here; the other files
 * call the kp_ names below and read the same on every version. */
#ifndef KOKKOS_PYTHON_COMPAT_H
#define KOKKOS_PYTHON_COMPAT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* 1 while the interpreter is shutting down (deleters then leak rather than
 * touch Python objects that may already be gone). */
static inline int kp_is_finalizing(void) {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

/* 1 on the thread Python started in (the one signal handlers run on).
 * CPython 3.13 keeps _PyOS_IsMainThread internal; _thread tells the main
 * thread's ident there. Not a hot path: only an interrupt kept by a
 * callback asks. Leaves the thread's exception state as it was. */
static inline int kp_is_main_thread(void) {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject *exc = PyErr_GetRaisedException();
  PyObject *mod = PyImport_ImportModule("_thread");
  PyObject *ident = mod ? PyObject_CallMethod(mod, "_get_main_thread_ident", NULL) : NULL;
  unsigned long main_ident = ident ? PyLong_AsUnsignedLong(ident) : 0;
  Py_XDECREF(ident);
  Py_XDECREF(mod);
  PyErr_Clear();
  PyErr_SetRaisedException(exc);
  return main_ident != 0 && main_ident == PyThread_get_thread_ident();
#else
  return _PyOS_IsMainThread();
#endif
}

/* Looks up an optional attribute: 1 and a new reference in *out if present,
 * 0 and *out = NULL if absent, -1 with an exception on other errors. */
static inline int kp_get_optional_attr(PyObject *obj, PyObject *name, PyObject **out) {
#if PY_VERSION_HEX >= 0x030D0000
  return PyObject_GetOptionalAttr(obj, name, out);
#else
  return _PyObject_LookupAttr(obj, name, out);
#endif
}

/* kp_get_optional_attr with a C string name. */
static inline int kp_get_optional_attr_string(PyObject *obj, const char *name, PyObject **out) {
#if PY_VERSION_HEX >= 0x030D0000
  return PyObject_GetOptionalAttrString(obj, name, out);
#else
  PyObject *str = PyUnicode_FromString(name);
  if (!str) {
    *out = NULL;
    return -1;
  }
  int res = _PyObject_LookupAttr(obj, str, out);
  Py_DECREF(str);
  return res;
#endif
}

/* The attribute name as found on type and its bases (borrowed, or NULL; never
 * an exception): the protocols put their entry points on the type. */
static inline PyObject *kp_type_lookup(PyTypeObject *type, PyObject *name) {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject *res = NULL;
  if (PyObject_GetOptionalAttr((PyObject *)type, name, &res) < 0) {
    PyErr_Clear();
    return NULL;
  }
  Py_XDECREF(res); /* type attributes live as long as the type */
  return res;
#else
  return _PyType_Lookup(type, name);
#endif
}

/* Takes the pending exception, normalized with its traceback attached (a new
 * reference, or NULL when none is set), and clears it. */
static inline PyObject *kp_fetch_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
  return PyErr_GetRaisedException();
#else
  PyObject *type, *exc, *tb;
  PyErr_Fetch(&type, &exc, &tb);
  if (!type) return NULL;
  PyErr_NormalizeException(&type, &exc, &tb);
  if (exc && tb) PyException_SetTraceback(exc, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  return exc;
#endif
}

/* Sets exc (stolen; NULL clears) as the pending exception: the inverse of
 * kp_fetch_exception. */
static inline void kp_restore_exception(PyObject *exc) {
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(exc);
#else
  if (!exc) {
    PyErr_Clear();
    return;
  }
  PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc, PyException_GetTraceback(exc));
#endif
}

/* Reports the pending exception as unraisable (sys.unraisablehook) and
 * clears it; what names the code Kokkos called ("the kokkos.tools
 * begin_parallel_for callback"), obj the Python callable that raised. */
static inline void kp_write_unraisable(const char *what, PyObject *obj) {
#if PY_VERSION_HEX >= 0x030D0000
  PyErr_FormatUnraisable("Exception ignored in %s %R (called by Kokkos)", what, obj);
#elif PY_VERSION_HEX >= 0x030B0000
  PyObject *exc = kp_fetch_exception();
  if (exc) {
    PyObject *note = PyUnicode_FromFormat("raised in %s (called by Kokkos)", what);
    PyObject *res = note ? PyObject_CallMethod(exc, "add_note", "O", note) : NULL;
    Py_XDECREF(res);
    Py_XDECREF(note);
    PyErr_Clear();
  }
  kp_restore_exception(exc);
  PyErr_WriteUnraisable(obj);
#else
  /* 3.10: exceptions have no notes; the hook's message names the code */
  char msg[160];
  PyOS_snprintf(msg, sizeof msg, "in %s (called by Kokkos)", what);
  _PyErr_WriteUnraisableMsg(msg, obj);
#endif
}

/* IEEE binary16 through CPython's own conversions (the struct module's 'e'):
 * round-to-nearest-even, subnormals, signed zeros, inf and nan; native byte
 * order. Public from 3.11; 3.10 has them with a leading underscore. */
static inline int kp_pack_half(double x, char *p) {
#if PY_VERSION_HEX >= 0x030B0000
  return PyFloat_Pack2(x, p, PY_LITTLE_ENDIAN);
#else
  return _PyFloat_Pack2(x, (unsigned char *)p, PY_LITTLE_ENDIAN);
#endif
}
static inline double kp_unpack_half(const char *p) {
#if PY_VERSION_HEX >= 0x030B0000
  return PyFloat_Unpack2(p, PY_LITTLE_ENDIAN);
#else
  return _PyFloat_Unpack2((const unsigned char *)p, PY_LITTLE_ENDIAN);
#endif
}

/* The module made from def that owns type or its first heap-type base from
 * that module (borrowed); NULL with TypeError if none does. */
static inline PyObject *kp_module_by_def(PyTypeObject *type, PyModuleDef *def) {
#if PY_VERSION_HEX >= 0x030B0000
  return PyType_GetModuleByDef(type, def);
#else
  PyObject *mro = type->tp_mro;
  Py_ssize_t n = mro ? PyTuple_GET_SIZE(mro) : 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
    if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE)) continue;
    PyObject *m = PyType_GetModule(t);
    if (!m) {
      PyErr_Clear(); /* a heap type of another kind (a Python subclass) */
      continue;
    }
    if (PyModule_GetDef(m) == def) return m;
  }
  PyErr_Format(PyExc_TypeError, "no superclass of '%s' belongs to kokkos._core", type->tp_name);
  return NULL;
#endif
}

/* The module slots that say what kokkos._core supports, for its slot table:
 * not sub-interpreters (3.12+: Kokkos, the C API table, the finalize
 * registry and the tuning state are per process) and not running without
 * the GIL (3.13+: the same state is guarded by the GIL). Before 3.12 no
 * slot says so, and a legacy sub-interpreter (one that does not check its
 * extensions) ignores the slot: kp_refuse_subinterpreter refuses at exec. */
#if PY_VERSION_HEX >= 0x030C0000
#define KP_SLOT_MULTIPLE_INTERPRETERS {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#else
#define KP_SLOT_MULTIPLE_INTERPRETERS
#endif
#if PY_VERSION_HEX >= 0x030D0000
#define KP_SLOT_GIL {Py_mod_gil, Py_MOD_GIL_USED},
#else
#define KP_SLOT_GIL
#endif

/* -1 with ImportError when the module is being loaded in an interpreter
 * other than the main one (from 3.12 an isolated sub-interpreter's import
 * system refuses first, by KP_SLOT_MULTIPLE_INTERPRETERS); else 0. */
static inline int kp_refuse_subinterpreter(const char *module) {
  if (PyInterpreterState_Get() != PyInterpreterState_Main()) {
    PyErr_Format(PyExc_ImportError,
                 "module %s does not support loading in subinterpreters: Kokkos and its state are per process; "
                 "import kokkos in the main interpreter only",
                 module);
    return -1;
  }
  return 0;
}

#endif /* KOKKOS_PYTHON_COMPAT_H */
