/* module.c: the kokkos._core module, on top of every layer: its definition
 * and state, the exec function that makes the types (the View types are
 * declared in view_type.c) and adds each layer's functions, and the tables
 * handed to the Python package (_tables: every enum family's names, read
 * from the core's tables; _register_enums: the members handed back).
 *
 * Python equivalent, roughly:
 *
 *     class View: ...; class DynRankView(View): ...      # view_type.c
 *     def array(...); def asarray(...); ...               # array.c
 *     def deep_copy(dst, src)                             # copy/deep_copy.c
 *     def initialize(...); def finalize(); ...            # model/runtime.c
 *     def from_dlpack(x, ...)                             # exchange/dlpack.c
 *     def _view_from_object(obj, label=None)              # exchange/import.c
 *     _tools                                              # tools/tools.c
 *
 * The kokkos package (src/kokkos) wraps these in the original
 * pykokkos-base API.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "copy.h"
#include "exchange.h"
#include "tools.h"
#include "top.h"
#include "host_register.h"

#include <stdlib.h>
#include <string.h>

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

/* A list of the C strings names[0..) up to count or the first NULL (new
 * reference), or NULL with an exception. */
static PyObject *name_list(const char *const *names, int count) {
  PyObject *list = PyList_New(0);
  for (int i = 0; list && i < count && names[i]; ++i) {
    PyObject *s = PyUnicode_FromString(names[i]);
    if (!s || PyList_Append(list, s) < 0) Py_CLEAR(list);
    Py_XDECREF(s);
  }
  return list;
}

/* Adds key: value (stolen; NULL means building it failed) to dict; -1 on error. */
static int set_stolen(PyObject *dict, const char *key, PyObject *value) {
  if (!value) return -1;
  int rc = PyDict_SetItemString(dict, key, value);
  Py_DECREF(value);
  return rc;
}

/* _tables() -> dict: the core's enum tables, the one source of every name
 * the kokkos package spells (src/kokkos/_types.py builds its enumerations
 * from them):
 *   dtypes         (name, aliases, itemsize, format, typestr) per dtype
 *   space_names    memory-space names, by number
 *   space_aliases  (alias, space number) pairs
 *   space_rows     (backend, memory kind) per space, by number: "cuda",
 *                  "hip", ...; "host", "device" (device-only), "managed",
 *                  "pinned"
 *   layout_names   layout names, by number
 *   exec_names     execution-space (backend) names, by number
 *   traits         (name, flag) per memory trait, Managed (0) first
 *   dtype_supported  "bool, int8, ...": the list messages show */
static PyObject *dtype_rows(void) {
  PyObject *rows = PyTuple_New(KP_DTYPE_COUNT);
  for (int i = 0; rows && i < KP_DTYPE_COUNT; ++i) {
    const kp_dtype *t = &kp_dtypes[i];
    PyObject *row = Py_BuildValue("(sNnss)", t->name, name_list(t->aliases, 4), t->itemsize, t->format, t->typestr);
    if (!row)
      Py_CLEAR(rows);
    else
      PyTuple_SET_ITEM(rows, i, row);
  }
  return rows;
}

static PyObject *space_names(void) {
  PyObject *names = PyTuple_New(KP_SPACE_COUNT);
  for (int i = 0; names && i < KP_SPACE_COUNT; ++i) {
    PyObject *name = PyUnicode_FromString(kp_spaces[i].name);
    if (!name)
      Py_CLEAR(names);
    else
      PyTuple_SET_ITEM(names, i, name);
  }
  return names;
}

static PyObject *space_aliases(void) {
  PyObject *pairs = PyList_New(0);
  for (int i = 0; pairs && i < KP_SPACE_COUNT; ++i) {
    for (int a = 0; pairs && a < 6 && kp_spaces[i].aliases[a]; ++a) {
      PyObject *row = Py_BuildValue("(si)", kp_spaces[i].aliases[a], i);
      if (!row || PyList_Append(pairs, row) < 0) Py_CLEAR(pairs);
      Py_XDECREF(row);
    }
  }
  return pairs;
}

static PyObject *space_rows(void) {
  PyObject *rows = PyTuple_New(KP_SPACE_COUNT);
  for (int i = 0; rows && i < KP_SPACE_COUNT; ++i) {
    PyObject *row =
        Py_BuildValue("(ss)", kp_backend_names[kp_spaces[i].backend], kp_memory_kind_names[kp_spaces[i].kind]);
    if (!row)
      Py_CLEAR(rows);
    else
      PyTuple_SET_ITEM(rows, i, row);
  }
  return rows;
}

static PyObject *trait_rows(void) {
  PyObject *rows = PyTuple_New(KP_TRAIT_COUNT);
  for (int i = 0; rows && i < KP_TRAIT_COUNT; ++i) {
    PyObject *row = Py_BuildValue("(sI)", kp_traits[i].name, kp_traits[i].flag);
    if (!row)
      Py_CLEAR(rows);
    else
      PyTuple_SET_ITEM(rows, i, row);
  }
  return rows;
}

static PyObject *kp_py_tables(PyObject *module, PyObject *unused) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (set_stolen(d, "dtypes", dtype_rows()) < 0 || set_stolen(d, "space_names", space_names()) < 0 ||
      set_stolen(d, "space_aliases", space_aliases()) < 0 || set_stolen(d, "space_rows", space_rows()) < 0 ||
      set_stolen(d, "layout_names", name_list(kp_layout_names, KP_LAYOUT_COUNT)) < 0 ||
      set_stolen(d, "exec_names", name_list(kp_exec_names, KP_EXEC_COUNT)) < 0 ||
      set_stolen(d, "traits", trait_rows()) < 0 ||
      set_stolen(d, "dtype_supported", PyUnicode_FromString(kp_dtype_supported())) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
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

/* Bytes of host pages registered with the device runtime for Views over host
 * memory (reach.c), still held: 0 once every such View has gone. */
static PyObject *kp_py_registered_host_bytes(PyObject *m, PyObject *unused) {
  return PyLong_FromSize_t(kp_bridge_host_registered_bytes());
}

static PyMethodDef kp_module_methods[] = {
    {"_registered_host_bytes", kp_py_registered_host_bytes, METH_NOARGS,
     "_registered_host_bytes() -> int: bytes of host pages registered with the GPU runtime for Views over host "
     "memory and still held (docs/views.md, \"Host memory in a device space\")."},
    {"_dtype_index", kp_py_dtype_index, METH_O, NULL},
    {"_space_index", kp_py_space_index, METH_O, NULL},
    {"_layout_index", kp_py_layout_index, METH_O, NULL},
    {"_trait_value", kp_py_trait_value, METH_O, NULL},
    {"_register_enums", (PyCFunction)(void (*)(void))kp_py_register_enums, METH_FASTCALL, NULL},
    {"_tables", kp_py_tables, METH_NOARGS,
     "_tables() -> dict: the core's tables of dtypes, memory spaces, layouts, execution spaces and memory traits."},
    {"_wrap", (PyCFunction)(void (*)(void))kp_py_wrap, METH_FASTCALL,
     "_wrap(obj, writable=False, label=None, dynamic=False): an Unmanaged View over obj's host memory."},
    {"_publish_view_classes", kp_py_publish_view_classes, METH_O,
     "_publish_view_classes(namespace): the View classes become attributes of the kokkos package (view_class.c)."},
    {"_host_blocks_held", kp_py_host_blocks_held, METH_NOARGS,
     "_host_blocks_held(): how many small host blocks are kept for reuse (host_blocks.c)."},
    {"_host_blocks_release", kp_py_host_blocks_release, METH_NOARGS,
     "_host_blocks_release(): gives the kept blocks back to Kokkos (host_blocks.c; for tests)."},
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
    {"from_dlpack", (PyCFunction)(void (*)(void))kp_py_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None, label=None) -> View\n\n"
     "A View of the memory of x (anything with __dlpack__, or a DLPack capsule), without copying: the View keeps the "
     "producer's memory alive and is read-only when the producer says so. device (a memory space, or a DLPack "
     "(device_type, device_id) tuple) asks for a View in that space, copying when it differs; copy=True always "
     "copies into a new Kokkos allocation, copy=False raises BufferError rather than copy."},
    {"_view_from_object", (PyCFunction)(void (*)(void))kp_py_view_from_object, METH_FASTCALL | METH_KEYWORDS,
     "_view_from_object(obj, label=None): a View sharing obj's memory through DLPack, __cuda_array_interface__, "
     "__array_interface__ or the buffer protocol (kokkos.asarray's zero-copy step)."},
    {"_from_cuda_array_interface", (PyCFunction)(void (*)(void))kp_py_from_cuda_array_interface,
     METH_FASTCALL | METH_KEYWORDS,
     "_from_cuda_array_interface(obj, label=None): a View over the memory obj describes with "
     "__cuda_array_interface__, keeping obj alive."},
    {NULL, NULL, 0, NULL}};

/* ---- module lifecycle ------------------------------------------------------------ */

extern PyType_Spec kp_view_type_spec;
extern PyType_Spec kp_dyn_rank_view_type_spec;

/* kokkos.<name>, an exception class with bases (a new tuple, stolen; NULL
 * with an exception set), added to the module; a new reference, or NULL. */
static PyObject *add_error(PyObject *module, const char *name, const char *doc, PyObject *bases) {
  if (!bases) return NULL;
  char qualified[64];
  snprintf(qualified, sizeof qualified, "kokkos.%s", name);
  PyObject *cls = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
  Py_DECREF(bases);
  if (cls && PyModule_AddObjectRef(module, name, cls) < 0) Py_CLEAR(cls);
  return cls;
}

static int kp_module_exec(PyObject *module) {
  if (kp_refuse_subinterpreter("kokkos._core") < 0) return -1;
  kp_state *st = (kp_state *)PyModule_GetState(module);
  if (kp_args_init(st) < 0 || kp_exchange_init(st) < 0) return -1;
  st->empty_str = PyUnicode_FromStringAndSize("", 0);
  if (!st->empty_str) return -1;
  st->allocation_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &kp_owner_spec, NULL);
  if (!st->allocation_type) return -1;
  st->module = module;
  st->view_classes = PyList_New(0);
  if (!st->view_classes || kp_view_classes_init(st, kp_view_class_slots) < 0 || kp_array_init(st) < 0) return -1;
  st->view_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &kp_view_type_spec, NULL);
  if (!st->view_type) return -1;
  st->dyn_rank_view_type =
      (PyTypeObject *)PyType_FromModuleAndSpec(module, &kp_dyn_rank_view_type_spec, (PyObject *)st->view_type);
  if (!st->dyn_rank_view_type) return -1;
  kp_view_type_set_vectorcall(st->view_type);
  if (kp_view_type_add_class_attributes(st->view_type) < 0) return -1;
  kp_view_type_set_vectorcall(st->dyn_rank_view_type);
  st->host_access_error = add_error(module, "HostAccessError",
                                    "Host code tried to read or export memory of a space the host cannot access (a "
                                    "device View). Use view.create_mirror_view() to get a host copy.",
                                    PyTuple_Pack(2, PyExc_BufferError, PyExc_RuntimeError));
  if (!st->host_access_error) return -1;
  /* ValueError and BufferError: what each refusing call raised before the
   * class existed; RuntimeError: the casters raise it rather than trying the
   * next overload (no View type could take the memory). */
  st->device_access_error =
      add_error(module, "DeviceAccessError",
                "Device code (a kernel taking the View, a device copy, a GPU consumer) was given memory the device "
                "cannot read: a View over pageable host memory on a GPU without pageable memory access. Pass pinned "
                "or managed memory, or copy the data to the device.",
                PyTuple_Pack(3, PyExc_ValueError, PyExc_BufferError, PyExc_RuntimeError));
  if (!st->device_access_error) return -1;
  if (PyModule_AddObjectRef(module, "View", (PyObject *)st->view_type) < 0) return -1;
  if (PyModule_AddObjectRef(module, "DynRankView", (PyObject *)st->dyn_rank_view_type) < 0) return -1;
  if (PyModule_AddObjectRef(module, "Allocation", (PyObject *)st->allocation_type) < 0) return -1;
  if (PyModule_AddIntConstant(module, "max_rank", KP_MAX_RANK) < 0) return -1;
  if (kp_capi_add(module) < 0) return -1;
  PyObject *tools = kp_tools_add(module);
  if (!tools || kp_tuning_add(tools) < 0) return -1;
  kp_runtime_after_auto_init = kp_tools_warn_after_auto_init;
  if (kp_runtime_add(module) < 0) return -1;
  return 0;
}

static int kp_module_traverse(PyObject *module, visitproc visit, void *arg) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  Py_VISIT(st->allocation_type);
  Py_VISIT(st->view_type);
  Py_VISIT(st->dyn_rank_view_type);
  Py_VISIT(st->shape_type);
  Py_VISIT(st->host_access_error);
  Py_VISIT(st->device_access_error);
  Py_VISIT(st->dtype_members);
  Py_VISIT(st->space_members);
  Py_VISIT(st->layout_members);
  Py_VISIT(st->trait_enum);
  Py_VISIT(st->reducer);
  Py_VISIT(st->empty_str);
  Py_VISIT(st->label_passed);
  for (int f = 0; f < KP_FAMILY_COUNT; ++f) Py_VISIT(st->enum_types[f]);
  for (int i = 0; i < KP_DL_CONST_COUNT; ++i) Py_VISIT(st->dl[i]);
  Py_VISIT(st->view_classes);
  Py_VISIT(st->view_class_namespace);
  return 0;
}

static int kp_module_clear(PyObject *module) {
  kp_state *st = (kp_state *)PyModule_GetState(module);
  Py_CLEAR(st->allocation_type);
  Py_CLEAR(st->view_type);
  Py_CLEAR(st->dyn_rank_view_type);
  Py_CLEAR(st->shape_type);
  Py_CLEAR(st->host_access_error);
  Py_CLEAR(st->device_access_error);
  Py_CLEAR(st->dtype_members);
  Py_CLEAR(st->space_members);
  Py_CLEAR(st->layout_members);
  Py_CLEAR(st->trait_enum);
  Py_CLEAR(st->reducer);
  Py_CLEAR(st->empty_str);
  Py_CLEAR(st->label_passed);
  for (int f = 0; f < KP_FAMILY_COUNT; ++f) Py_CLEAR(st->enum_types[f]);
  for (int i = 0; i < KP_DL_CONST_COUNT; ++i) Py_CLEAR(st->dl[i]);
  kp_args_clear(st);
  kp_array_clear(st);
  kp_capi_clear(st);
  kp_view_classes_free(st);
  Py_CLEAR(st->view_classes);
  Py_CLEAR(st->view_class_namespace);
  return 0;
}

static void kp_module_free(void *module) { kp_module_clear((PyObject *)module); }

static PyModuleDef_Slot kp_module_slots[] = {{Py_mod_exec, kp_module_exec},
                                             KP_SLOT_MULTIPLE_INTERPRETERS KP_SLOT_GIL{0, NULL}};

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
