/* module.c: the kokkos._core module: state, types, runtime functions.
 *
 * Python equivalent, roughly:
 *
 *     class View: ...                # view.c, index.c, copy.c, buffer.c
 *     class DynRankView(View): ...
 *     def _initialize(argv, num_threads, device_id, disable_warnings,
 *                     print_configuration, tools_libs, tools_args) -> bool
 *     def finalize(); def is_initialized(); def is_finalized()
 *     def fence(label=None); def _configuration(detail=False) -> str
 *     def deep_copy(dst, src)
 *
 * The kokkos package (src/kokkos) wraps these in the original
 * pykokkos-base API.
 */
#include "core.h"
#include "exchange_bridge.h"

#include <stdlib.h>
#include <string.h>

/* ---- state lookup ------------------------------------------------------------ */

kp_state *kp_state_from_type(PyTypeObject *type) {
  PyObject *mod = kp_module_by_def(type, &kp_module_def);
  if (!mod) {
    PyErr_Clear();
    return kp_state_global();
  }
  return (kp_state *)PyModule_GetState(mod);
}

kp_state *kp_state_global(void) {
  /* A multi-phase module is not in PyState: get it from sys.modules. */
  PyObject *m = PyImport_ImportModule("kokkos._core");
  if (!m) return NULL;
  kp_state *st = (kp_state *)PyModule_GetState(m);
  Py_DECREF(m); /* sys.modules keeps it */
  return st;
}

/* ---- runtime ------------------------------------------------------------------- */

/* Kokkos calls this at the start of finalize, whoever finalizes. Kokkos is
 * one per process, so the registry it releases is process-wide too. */
static void kp_on_kokkos_finalize(void) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  kp_owner_release_all();
  PyGILState_Release(g);
}

static int kp_initialize_with(int argc, char **argv, const kp_init_settings *settings) {
  kp_error err = {{0}};
  kp_status s = kp_bridge_initialize(argc, argv, settings, &err);
  if (s != KP_OK) return kp_raise_bridge(s, &err, "kokkos.initialize()");
  s = kp_bridge_set_finalize_hook(kp_on_kokkos_finalize, &err);
  if (s != KP_OK) return kp_raise_bridge(s, &err, "kokkos.initialize()");
  return 0;
}

int kp_runtime_ensure(void) {
  if (kp_bridge_is_initialized()) return 0;
  if (kp_bridge_is_finalized()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Kokkos has been finalized; it cannot be used again in this process "
                    "(Kokkos allows one initialize/finalize per process)");
    return -1;
  }
  kp_init_settings settings = {-1, -1, -1, -1, NULL, NULL};
  return kp_initialize_with(0, NULL, &settings);
}

/* Copies an optional str argument to a malloc'd UTF-8 string (NULL for None). */
static int kp_optional_utf8(PyObject *obj, const char *name, const char **out) {
  *out = NULL;
  if (obj == NULL || obj == Py_None) return 0;
  if (!PyUnicode_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "kokkos.initialize(): %s must be a str, got %.100s", name, Py_TYPE(obj)->tp_name);
    return -1;
  }
  *out = PyUnicode_AsUTF8(obj);
  return *out ? 0 : -1;
}

static int kp_optional_int(PyObject *obj, const char *name, int *out) {
  if (obj == NULL || obj == Py_None) return 0;
  long v = PyLong_AsLong(obj);
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Format(PyExc_TypeError, "kokkos.initialize(): %s must be an int", name);
    return -1;
  }
  if (v < 0 || v > 1000000) {
    PyErr_Format(PyExc_ValueError, "kokkos.initialize(): %s must be >= 0, got %ld", name, v);
    return -1;
  }
  *out = (int)v;
  return 0;
}

static int kp_optional_bool(PyObject *obj, int *out) {
  if (obj == NULL || obj == Py_None) return 0;
  int v = PyObject_IsTrue(obj);
  if (v < 0) return -1;
  *out = v;
  return 0;
}

/* _initialize(argv, num_threads, device_id, disable_warnings,
 *             print_configuration, tools_libs, tools_args) -> bool
 * True if this call initialized Kokkos, False if it already was. */
static PyObject *kp_py_initialize(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 7) {
    PyErr_SetString(PyExc_TypeError, "_initialize() takes 7 arguments");
    return NULL;
  }
  if (kp_bridge_is_finalized()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "kokkos.initialize(): Kokkos was finalized and cannot be initialized again in "
                    "this process (Kokkos allows one initialize/finalize per process)");
    return NULL;
  }
  kp_init_settings settings = {-1, -1, -1, -1, NULL, NULL};
  if (kp_optional_int(args[1], "num_threads", &settings.num_threads) < 0 ||
      kp_optional_int(args[2], "device_id", &settings.device_id) < 0 ||
      kp_optional_bool(args[3], &settings.disable_warnings) < 0 ||
      kp_optional_bool(args[4], &settings.print_configuration) < 0 ||
      kp_optional_utf8(args[5], "tools_libs", &settings.tools_libs) < 0 ||
      kp_optional_utf8(args[6], "tools_args", &settings.tools_args) < 0)
    return NULL;

  PyObject *seq = NULL;
  char **argv = NULL;
  Py_ssize_t argc = 0;
  int rc = -1, already = 0;
  if (args[0] != Py_None) {
    seq = PySequence_Fast(args[0], "kokkos.initialize(): argv must be a sequence of str");
    if (!seq) return NULL;
    argc = PySequence_Fast_GET_SIZE(seq);
    argv = (char **)PyMem_Calloc((size_t)argc + 1, sizeof(char *));
    if (!argv) {
      PyErr_NoMemory();
      goto done;
    }
    for (Py_ssize_t i = 0; i < argc; ++i) {
      PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
      if (!PyUnicode_Check(item)) {
        PyErr_Format(PyExc_TypeError, "kokkos.initialize(): argv[%zd] must be a str, got %.100s", i,
                     Py_TYPE(item)->tp_name);
        goto done;
      }
      argv[i] = (char *)PyUnicode_AsUTF8(item);
      if (!argv[i]) goto done;
    }
  }
  already = kp_bridge_is_initialized();
  rc = already ? 0 : kp_initialize_with((int)argc, argv, &settings);
done:
  PyMem_Free(argv);
  Py_XDECREF(seq);
  if (rc < 0) return NULL;
  return PyBool_FromLong(!already);
}

static PyObject *kp_py_finalize(PyObject *module, PyObject *unused) {
  if (!kp_bridge_is_initialized()) Py_RETURN_NONE;
  kp_error err = {{0}};
  kp_status s = kp_bridge_finalize(&err);
  if (s != KP_OK) return kp_raise_bridge(s, &err, "kokkos.finalize()") < 0 ? NULL : NULL;
  Py_RETURN_NONE;
}

static PyObject *kp_py_is_initialized(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(kp_bridge_is_initialized());
}

static PyObject *kp_py_is_finalized(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(kp_bridge_is_finalized());
}

/* device_id(): the GPU Kokkos' device execution space runs on (initializing
 * Kokkos first, as View creation does), or None without a GPU backend. */
static PyObject *kp_py_device_id(PyObject *module, PyObject *unused) {
  int space = kp_bridge_space_available(KP_SPACE_CUDA)  ? KP_SPACE_CUDA
              : kp_bridge_space_available(KP_SPACE_HIP) ? KP_SPACE_HIP
                                                        : -1;
  if (space < 0) Py_RETURN_NONE;
  if (kp_runtime_ensure() < 0) return NULL;
  return PyLong_FromLong(kp_bridge_device_id(space));
}

static PyObject *kp_py_fence(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  const char *label = "kokkos.fence";
  if (nargs > 1) {
    PyErr_SetString(PyExc_TypeError, "kokkos.fence() takes at most 1 argument (label)");
    return NULL;
  }
  if (nargs == 1 && args[0] != Py_None) {
    if (!PyUnicode_Check(args[0])) {
      PyErr_SetString(PyExc_TypeError, "kokkos.fence(): label must be a str");
      return NULL;
    }
    label = PyUnicode_AsUTF8(args[0]);
    if (!label) return NULL;
  }
  if (kp_runtime_ensure() < 0) return NULL;
  kp_error err = {{0}};
  kp_status s;
  Py_BEGIN_ALLOW_THREADS s = kp_bridge_fence(label, &err);
  Py_END_ALLOW_THREADS if (s != KP_OK) {
    kp_raise_bridge(s, &err, "kokkos.fence()");
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject *kp_py_configuration(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  int detail = nargs > 0 ? PyObject_IsTrue(args[0]) : 0;
  if (detail < 0) return NULL;
  if (kp_runtime_ensure() < 0) return NULL;
  char *text = NULL;
  kp_error err = {{0}};
  kp_status s = kp_bridge_print_configuration(detail, &text, &err);
  if (s != KP_OK) {
    kp_raise_bridge(s, &err, "kokkos.print_configuration()");
    return NULL;
  }
  PyObject *res = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
  free(text);
  return res;
}

static PyObject *kp_py_kokkos_version(PyObject *module, PyObject *unused) {
  int v = kp_bridge_kokkos_version();
  return Py_BuildValue("(iii)", v / 10000, (v / 100) % 100, v % 100);
}

/* _build_info() -> dict of what this Kokkos offers: spaces, backends, defaults. */
static PyObject *kp_py_build_info(PyObject *module, PyObject *unused) {
  PyObject *spaces = PyTuple_New(KP_SPACE_COUNT);
  PyObject *host = PyTuple_New(KP_SPACE_COUNT);
  PyObject *execs = PyTuple_New(KP_EXEC_COUNT);
  if (!spaces || !host || !execs) goto fail;
  for (int i = 0; i < KP_SPACE_COUNT; ++i) {
    PyTuple_SET_ITEM(spaces, i, PyBool_FromLong(kp_bridge_space_available(i)));
    PyTuple_SET_ITEM(host, i, PyBool_FromLong(kp_bridge_space_host_accessible(i)));
  }
  for (int i = 0; i < KP_EXEC_COUNT; ++i)
    PyTuple_SET_ITEM(execs, i, PyBool_FromLong(kp_bridge_execution_space_available(i)));
  return Py_BuildValue("{sNsNsNsisisisi}", "space_available", spaces, "space_host_accessible", host, "exec_available",
                       execs, "default_memory_space", kp_bridge_default_memory_space(), "default_host_memory_space",
                       kp_bridge_default_host_memory_space(), "default_execution_space",
                       kp_bridge_default_execution_space(), "default_host_execution_space",
                       kp_bridge_default_host_execution_space());
fail:
  Py_XDECREF(spaces);
  Py_XDECREF(host);
  Py_XDECREF(execs);
  return NULL;
}

/* _register_enums(dtypes, spaces, layouts, trait_enum, shape_type): the
 * kokkos package hands over its enum members and Shape type so View
 * properties can return them. */
static PyObject *kp_py_register_enums(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < 5 || nargs > 6 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != KP_DTYPE_COUNT ||
      !PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) != KP_SPACE_COUNT || !PyTuple_Check(args[2]) ||
      PyTuple_GET_SIZE(args[2]) != KP_LAYOUT_COUNT) {
    PyErr_SetString(PyExc_TypeError,
                    "_register_enums(dtypes, spaces, layouts, trait_enum, shape_type): wrong arguments");
    return NULL;
  }
  kp_state *st = (kp_state *)PyModule_GetState(module);
  Py_XSETREF(st->dtype_members, Py_NewRef(args[0]));
  Py_XSETREF(st->space_members, Py_NewRef(args[1]));
  Py_XSETREF(st->layout_members, Py_NewRef(args[2]));
  Py_XSETREF(st->trait_enum, Py_NewRef(args[3]));
  Py_XSETREF(st->shape_type, Py_NewRef(args[4]));
  if (nargs > 5 && PyType_Check(args[5])) Py_XSETREF(st->enum_types[KP_FAMILY_DEVICE], Py_NewRef(args[5]));
  kp_args_register_enum_types(st);
  Py_RETURN_NONE;
}

/* _dtype_info() -> tuple of (name, aliases, itemsize, format, typestr) per dtype. */
static PyObject *kp_py_dtype_info(PyObject *module, PyObject *unused) {
  PyObject *res = PyTuple_New(KP_DTYPE_COUNT);
  if (!res) return NULL;
  for (int i = 0; i < KP_DTYPE_COUNT; ++i) {
    const kp_dtype *d = &kp_dtypes[i];
    PyObject *aliases = PyList_New(0);
    if (!aliases) goto fail;
    for (int a = 0; a < 4 && d->aliases[a]; ++a) {
      PyObject *s = PyUnicode_FromString(d->aliases[a]);
      if (!s || PyList_Append(aliases, s) < 0) {
        Py_XDECREF(s);
        Py_DECREF(aliases);
        goto fail;
      }
      Py_DECREF(s);
    }
    PyObject *t = Py_BuildValue("(sNnss)", d->name, aliases, d->itemsize, d->format, d->typestr);
    if (!t) goto fail;
    PyTuple_SET_ITEM(res, i, t);
  }
  return res;
fail:
  Py_DECREF(res);
  return NULL;
}

/* Argument parsers exposed for the Python layer (one source of truth for
 * accepted spellings). */
static PyObject *kp_py_dtype_index(PyObject *m, PyObject *obj) {
  int i = kp_dtype_from_object(obj, "kokkos");
  return i < 0 ? NULL : PyLong_FromLong(i);
}
static PyObject *kp_py_space_index(PyObject *m, PyObject *obj) {
  int i = kp_space_from_object(obj, "kokkos");
  return i < 0 ? NULL : PyLong_FromLong(i);
}
static PyObject *kp_py_layout_index(PyObject *m, PyObject *obj) {
  int i = kp_layout_from_object(obj, "kokkos");
  return i < 0 ? NULL : PyLong_FromLong(i);
}
static PyObject *kp_py_trait_value(PyObject *m, PyObject *obj) {
  int i = kp_trait_from_object(obj, "kokkos");
  return i < 0 ? NULL : PyLong_FromLong(i);
}

static PyMethodDef kp_module_methods[] = {
    {"_dtype_index", kp_py_dtype_index, METH_O, NULL},
    {"_space_index", kp_py_space_index, METH_O, NULL},
    {"_layout_index", kp_py_layout_index, METH_O, NULL},
    {"_trait_value", kp_py_trait_value, METH_O, NULL},
    {"_initialize", (PyCFunction)(void (*)(void))kp_py_initialize, METH_FASTCALL,
     "Initialize Kokkos (see kokkos.initialize)."},
    {"finalize", kp_py_finalize, METH_NOARGS,
     "Finalize Kokkos. Views still alive are released first; using them afterwards raises RuntimeError."},
    {"is_initialized", kp_py_is_initialized, METH_NOARGS, "True while Kokkos is initialized."},
    {"is_finalized", kp_py_is_finalized, METH_NOARGS, "True once Kokkos has been finalized."},
    {"device_id", kp_py_device_id, METH_NOARGS,
     "device_id() -> int or None: the GPU (CUDA or HIP device number) Kokkos' device execution space uses, as chosen "
     "by kokkos.initialize(device_id=...), --kokkos-device-id or --kokkos-map-device-id-by=mpi_rank; initializes "
     "Kokkos if needed. None when this Kokkos has no GPU backend."},
    {"fence", (PyCFunction)(void (*)(void))kp_py_fence, METH_FASTCALL, "fence(label=None): wait for all Kokkos work."},
    {"_configuration", (PyCFunction)(void (*)(void))kp_py_configuration, METH_FASTCALL,
     "Kokkos' configuration as printed by Kokkos::print_configuration."},
    {"kokkos_version", kp_py_kokkos_version, METH_NOARGS, "(major, minor, patch) of the Kokkos in use."},
    {"_build_info", kp_py_build_info, METH_NOARGS, "Spaces and backends of the Kokkos in use."},
    {"_register_enums", (PyCFunction)(void (*)(void))kp_py_register_enums, METH_FASTCALL, NULL},
    {"_dtype_info", kp_py_dtype_info, METH_NOARGS, NULL},
    {"_wrap", (PyCFunction)(void (*)(void))kp_py_wrap, METH_FASTCALL,
     "_wrap(obj, writable=False, label=None, dynamic=False): an Unmanaged View over obj's host memory."},
    {"_view_class", (PyCFunction)(void (*)(void))kp_py_view_class, METH_FASTCALL,
     "_view_class(dynamic, dtype, space, layout, traits, rank): a View class by combination (view_class.c)."},
    {"_view_from_bytes", (PyCFunction)(void (*)(void))kp_py_view_from_bytes, METH_FASTCALL,
     "_view_from_bytes(buf, dtype, shape, layout, label, dynamic, traits): unpickling's zero-copy View (pickling.c)."},
    {"array", (PyCFunction)(void (*)(void))kp_py_array, METH_FASTCALL | METH_KEYWORDS, kp_doc_array},
    {"unmanaged_array", (PyCFunction)(void (*)(void))kp_py_unmanaged_array, METH_FASTCALL | METH_KEYWORDS,
     kp_doc_unmanaged_array},
    {"asarray", (PyCFunction)(void (*)(void))kp_py_asarray, METH_FASTCALL | METH_KEYWORDS, kp_doc_asarray},
    {"create_mirror", (PyCFunction)(void (*)(void))kp_py_create_mirror, METH_FASTCALL | METH_KEYWORDS,
     kp_doc_create_mirror},
    {"create_mirror_view", (PyCFunction)(void (*)(void))kp_py_create_mirror_view, METH_FASTCALL | METH_KEYWORDS,
     kp_doc_create_mirror_view},
    {"create_mirror_view_and_copy", (PyCFunction)(void (*)(void))kp_py_create_mirror_view_and_copy,
     METH_FASTCALL | METH_KEYWORDS, kp_doc_create_mirror_view_and_copy},
    {"deep_copy", (PyCFunction)(void (*)(void))kp_deep_copy_function, METH_FASTCALL | METH_KEYWORDS,
     "deep_copy(dst, src): copy src (a View, an array or buffer of the same shape, or a scalar) into the View dst."},
    {NULL, NULL, 0, NULL}};

/* ---- module lifecycle ------------------------------------------------------------ */

extern PyType_Spec kp_view_type_spec;
extern PyType_Spec kp_dyn_rank_view_type_spec;

static int kp_module_exec(PyObject *module) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  if (kp_args_init(st) < 0) return -1;
  st->allocation_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &kp_owner_spec, NULL);
  if (!st->allocation_type) return -1;
  st->module = module;
  st->view_classes = PyList_New(0);
  if (!st->view_classes) return -1;
  st->view_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &kp_view_type_spec, NULL);
  if (!st->view_type) return -1;
  st->dyn_rank_view_type =
      (PyTypeObject *)PyType_FromModuleAndSpec(module, &kp_dyn_rank_view_type_spec, (PyObject *)st->view_type);
  if (!st->dyn_rank_view_type) return -1;
  kp_view_type_set_vectorcall(st->view_type);
  kp_view_type_set_vectorcall(st->dyn_rank_view_type);
  PyObject *bases = PyTuple_Pack(2, PyExc_BufferError, PyExc_RuntimeError);
  if (!bases) return -1;
  st->host_access_error = PyErr_NewExceptionWithDoc(
      "kokkos.HostAccessError",
      "Host code tried to read or export memory of a space the host cannot access (a device View). "
      "Use view.create_mirror_view() to get a host copy.",
      bases, NULL);
  Py_DECREF(bases);
  if (!st->host_access_error) return -1;
  if (PyModule_AddObjectRef(module, "HostAccessError", st->host_access_error) < 0) return -1;
  if (PyModule_AddObjectRef(module, "View", (PyObject *)st->view_type) < 0) return -1;
  if (PyModule_AddObjectRef(module, "DynRankView", (PyObject *)st->dyn_rank_view_type) < 0) return -1;
  if (PyModule_AddObjectRef(module, "Allocation", (PyObject *)st->allocation_type) < 0) return -1;
  if (PyModule_AddIntConstant(module, "max_rank", KP_MAX_RANK) < 0) return -1;
  if (kp_capi_add(module) < 0) return -1;
  if (kp_tools_add(module) < 0) return -1;
  if (kp_dlpack_add(module, st) < 0) return -1;
  /* Kokkos runs the hook at finalize even if C++ code finalizes. */
  kp_error err = {{0}};
  if (kp_bridge_set_finalize_hook(kp_on_kokkos_finalize, &err) != KP_OK)
    return kp_raise_bridge(KP_E_KOKKOS, &err, "import kokkos");
  return 0;
}

static int kp_module_traverse(PyObject *module, visitproc visit, void *arg) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  Py_VISIT(st->allocation_type);
  Py_VISIT(st->view_type);
  Py_VISIT(st->dyn_rank_view_type);
  Py_VISIT(st->shape_type);
  Py_VISIT(st->host_access_error);
  Py_VISIT(st->dtype_members);
  Py_VISIT(st->space_members);
  Py_VISIT(st->layout_members);
  Py_VISIT(st->trait_enum);
  Py_VISIT(st->reducer);
  for (int f = 0; f < KP_FAMILY_COUNT; ++f) Py_VISIT(st->enum_types[f]);
  for (int i = 0; i < KP_DL_CONST_COUNT; ++i) Py_VISIT(st->dl[i]);
  Py_VISIT(st->view_classes);
  return 0;
}

static int kp_module_clear(PyObject *module) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  Py_CLEAR(st->allocation_type);
  Py_CLEAR(st->view_type);
  Py_CLEAR(st->dyn_rank_view_type);
  Py_CLEAR(st->shape_type);
  Py_CLEAR(st->host_access_error);
  Py_CLEAR(st->dtype_members);
  Py_CLEAR(st->space_members);
  Py_CLEAR(st->layout_members);
  Py_CLEAR(st->trait_enum);
  Py_CLEAR(st->reducer);
  for (int f = 0; f < KP_FAMILY_COUNT; ++f) Py_CLEAR(st->enum_types[f]);
  for (int i = 0; i < KP_DL_CONST_COUNT; ++i) Py_CLEAR(st->dl[i]);
  kp_args_clear(st);
  kp_array_clear(st);
  kp_view_classes_free(st);
  Py_CLEAR(st->view_classes);
  return 0;
}

static void kp_module_free(void *module) { kp_module_clear((PyObject *)module); }

static PyModuleDef_Slot kp_module_slots[] = {{Py_mod_exec, kp_module_exec}, {0, NULL}};

PyModuleDef kp_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kokkos._core",
    .m_doc = "The C core of the kokkos package: the View type and the Kokkos runtime.",
    .m_size = sizeof(kp_state),
    .m_methods = kp_module_methods,
    .m_slots = kp_module_slots,
    .m_traverse = kp_module_traverse,
    .m_clear = kp_module_clear,
    .m_free = kp_module_free,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModuleDef_Init(&kp_module_def); }
