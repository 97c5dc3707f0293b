/* capi.c: the C function table exported in the capsule kokkos._core._C_API.
 *
 * Python equivalent, roughly:
 *
 *     kokkos._core._C_API = PyCapsule(&table, "kokkos._core._C_API")
 *
 * The table (include/kokkos_python/kokkos_python.h) lets users' extension
 * modules make and read Views without linking to this module. Each entry
 * is a thin, checked wrapper around the core's internal API (core.h):
 * users hand in plain descriptions, never core structs.
 *
 * Ownership handed over through view_from_deleter goes through a small
 * heap record (capi_external) that remembers the user's deleter, its
 * context and a tag; it is what external_owner recognizes later, so a C++
 * View that went to Python comes back as the same Kokkos::View.
 */
#include "core.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "kokkos_python/kokkos_python.h"

/* The public numbering is the core's numbering, row by row of the core's
 * tables (compared as ints: they are different enums). A new row in the
 * core without its public number fails to compile here. */
#define SAME(a, b) ((int)(a) == (int)(b))
#define CHECK_DTYPE(id) \
  _Static_assert(SAME(KOKKOS_PYTHON_##id, KP_DTYPE_##id), "KOKKOS_PYTHON_" #id " != KP_DTYPE_" #id);
#define CHECK_SPACE(id) \
  _Static_assert(SAME(KOKKOS_PYTHON_##id##_SPACE, KP_SPACE_##id), "KOKKOS_PYTHON_" #id "_SPACE != KP_SPACE_" #id);
#define CHECK_LAYOUT(id) \
  _Static_assert(SAME(KOKKOS_PYTHON_LAYOUT_##id, KP_LAYOUT_##id), "KOKKOS_PYTHON_LAYOUT_" #id " != KP_LAYOUT_" #id);
#define CHECK_TRAIT(id, flag) \
  _Static_assert(SAME(KOKKOS_PYTHON_##id, KP_TRAIT_##id), "KOKKOS_PYTHON_" #id " != KP_TRAIT_" #id);
KP_DTYPE_ROWS(CHECK_DTYPE)
KP_SPACE_ROWS(CHECK_SPACE)
KP_LAYOUT_ROWS(CHECK_LAYOUT)
KP_TRAIT_ROWS(CHECK_TRAIT)
_Static_assert(SAME(KOKKOS_PYTHON_DTYPE_COUNT, KP_DTYPE_COUNT), "public dtype count must match the core's");
_Static_assert(SAME(KOKKOS_PYTHON_SPACE_COUNT, KP_SPACE_COUNT), "public memory-space count must match the core's");
_Static_assert(SAME(KOKKOS_PYTHON_MAX_RANK, KP_MAX_RANK), "public maximum rank must match the core's");
#undef CHECK_DTYPE
#undef CHECK_SPACE
#undef CHECK_LAYOUT
#undef CHECK_TRAIT
#undef SAME

/* The module state of kokkos._core, set when the table is published. The
 * module lives in sys.modules for the life of the process. */
static kp_state *capi_state = NULL;

/* ---- memory handed over with a deleter -------------------------------------------- */

typedef struct capi_external {
  kokkos_python_deleter deleter;
  void *ctx;
  const char *tag;
  int armed; /* 0 until the View exists: a failed hand-over never calls deleter */
} capi_external;

static void capi_external_release(void *arg) {
  capi_external *ext = (capi_external *)arg;
  if (ext->armed && ext->deleter) ext->deleter(ext->ctx);
  PyMem_Free(ext); /* the core calls deleters with the GIL held */
}

/* ---- checks --------------------------------------------------------------------------- */

static int capi_is_view(PyObject *obj) { return capi_state && PyObject_TypeCheck(obj, capi_state->view_type); }

static int capi_is_dyn_rank_view(PyObject *obj) {
  return capi_state && PyObject_TypeCheck(obj, capi_state->dyn_rank_view_type);
}

static int capi_require_view(PyObject *obj, const char *where) {
  if (capi_is_view(obj)) return 0;
  PyErr_Format(PyExc_TypeError, "%s: expected a kokkos.View, got %.100s", where, Py_TYPE(obj)->tp_name);
  return -1;
}

/* Validates a description handed in by a user module; fills shape and
 * strides as Py_ssize_t. */
static int capi_check_desc(const kokkos_python_view_desc *d, Py_ssize_t *shape, Py_ssize_t *strides,
                           const char *where) {
  if (!d) {
    PyErr_Format(PyExc_ValueError, "%s: no View description given", where);
    return -1;
  }
  int max_rank = d->dynamic ? KP_MAX_RANK - 1 : KP_MAX_RANK;
  if (d->rank < 0 || d->rank > max_rank) {
    PyErr_Format(PyExc_ValueError, "%s: rank %d is outside 0..%d for a %s", where, (int)d->rank, max_rank,
                 d->dynamic ? "DynRankView" : "View");
    return -1;
  }
  if (d->dtype < 0 || d->dtype >= KP_DTYPE_COUNT) {
    PyErr_Format(PyExc_ValueError, "%s: %d is not a kokkos dtype (0..%d)", where, (int)d->dtype, KP_DTYPE_COUNT - 1);
    return -1;
  }
  if (d->space < 0 || d->space >= KP_SPACE_COUNT) {
    PyErr_Format(PyExc_ValueError, "%s: %d is not a kokkos memory space (0..%d)", where, (int)d->space,
                 KP_SPACE_COUNT - 1);
    return -1;
  }
  if (kp_space_check_available(d->space, where) < 0) return -1;
  if (d->traits & ~(uint32_t)KP_TRAIT_ALL) {
    PyErr_Format(PyExc_ValueError, "%s: traits 0x%x are not a combination of kokkos memory traits", where,
                 (unsigned)d->traits);
    return -1;
  }
  for (int r = 0; r < d->rank; ++r) {
    if (d->extents[r] < 0 || d->extents[r] > PY_SSIZE_T_MAX) {
      PyErr_Format(PyExc_ValueError, "%s: extent %d is %lld; extents must be >= 0", where, r, (long long)d->extents[r]);
      return -1;
    }
    shape[r] = (Py_ssize_t)d->extents[r];
    strides[r] = (Py_ssize_t)d->strides[r];
  }
  size_t bytes;
  if (kp_checked_bytes(d->rank, shape, kp_dtypes[d->dtype].itemsize, &bytes, where) < 0) return -1;
  if (bytes > 0 && !d->data) {
    PyErr_Format(PyExc_ValueError, "%s: data is NULL but the View has %zu bytes", where, bytes);
    return -1;
  }
  return 0;
}

/* New View over d->data held by owner; keeps a C++ layout the strides agree with. */
static PyObject *capi_wrap(const kokkos_python_view_desc *d, kp_owner *owner, const Py_ssize_t *shape,
                           const Py_ssize_t *strides) {
  PyObject *label = PyUnicode_FromString(d->label ? d->label : "");
  if (!label) return NULL;
  kp_view *v =
      kp_view_wrap(capi_state, d->dynamic ? capi_state->dyn_rank_view_type : capi_state->view_type, owner,
                   (char *)d->data, d->rank, shape, strides, d->dtype, d->space, d->traits, d->readonly != 0, label);
  Py_DECREF(label);
  if (!v) return NULL;
  /* The strides say LayoutRight for a rank-1 LayoutLeft View too; keep the
   * layout the C++ View has whenever the strides allow it. */
  if (d->layout == KP_LAYOUT_STRIDE) {
    v->layout = KP_LAYOUT_STRIDE;
  } else if (d->layout == KP_LAYOUT_LEFT || d->layout == KP_LAYOUT_RIGHT) {
    Py_ssize_t expect[KP_MAX_RANK];
    int ok = 1;
    kp_contiguous_strides(d->rank, shape, d->layout, expect);
    for (int r = 0; r < d->rank; ++r) {
      if (shape[r] == 0) break;
      if (shape[r] != 1 && strides[r] != expect[r]) ok = 0;
    }
    if (ok) v->layout = d->layout;
  }
  if (kp_view_retype(v) < 0) Py_CLEAR(v);
  return (PyObject *)v;
}

/* ---- table entries -------------------------------------------------------------------- */

static int capi_describe(PyObject *obj, kokkos_python_view_desc *out) {
  if (capi_require_view(obj, "kokkos_python describe()") < 0) return -1;
  kp_view *v = (kp_view *)obj;
  if (kp_view_check_released(v)) return -1;
  const char *label = PyUnicode_AsUTF8(v->label);
  if (!label) return -1;
  memset(out, 0, sizeof *out);
  out->data = v->data;
  out->rank = v->rank;
  out->dtype = v->dtype;
  out->space = v->space;
  out->layout = v->layout;
  out->traits = v->traits;
  out->readonly = v->readonly;
  out->dynamic = capi_is_dyn_rank_view(obj);
  for (int r = 0; r < v->rank; ++r) {
    out->extents[r] = v->shape[r];
    out->strides[r] = v->strides[r];
  }
  out->label = label;
  return 0;
}

static PyObject *capi_owner(PyObject *obj) {
  if (capi_require_view(obj, "kokkos_python owner()") < 0) return NULL;
  kp_view *v = (kp_view *)obj;
  return Py_NewRef(v->owner ? (PyObject *)v->owner : Py_None);
}

static int capi_is_released(PyObject *obj) {
  if (!capi_state || !obj) return 0;
  if (capi_is_view(obj)) {
    kp_view *v = (kp_view *)obj;
    return v->owner && v->owner->released;
  }
  if (PyObject_TypeCheck(obj, capi_state->allocation_type)) return ((kp_owner *)obj)->released;
  return 0;
}

static PyObject *capi_view_from_owner(const kokkos_python_view_desc *d, PyObject *owner) {
  static const char *where = "kokkos_python view_from_owner()";
  Py_ssize_t shape[KP_MAX_RANK], strides[KP_MAX_RANK];
  if (capi_check_desc(d, shape, strides, where) < 0) return NULL;
  if (!owner) {
    PyErr_Format(PyExc_ValueError, "%s: an owner object is required (it keeps the memory alive)", where);
    return NULL;
  }
  kp_owner *o;
  if (PyObject_TypeCheck(owner, capi_state->allocation_type)) {
    o = (kp_owner *)Py_NewRef(owner);
  } else if (capi_is_view(owner) && ((kp_view *)owner)->owner) {
    o = (kp_owner *)Py_NewRef((PyObject *)((kp_view *)owner)->owner);
  } else {
    o = kp_owner_from_pyobject(capi_state, d->space, d->data, owner, NULL);
    if (!o) return NULL;
  }
  PyObject *v = capi_wrap(d, o, shape, strides);
  Py_DECREF(o);
  return v;
}

static PyObject *capi_view_from_deleter(const kokkos_python_view_desc *d, kokkos_python_deleter deleter, void *ctx,
                                        int kokkos_bound, const char *tag) {
  static const char *where = "kokkos_python view_from_deleter()";
  Py_ssize_t shape[KP_MAX_RANK], strides[KP_MAX_RANK];
  if (capi_check_desc(d, shape, strides, where) < 0) return NULL;
  /* Memory bound to Kokkos is released at finalize, so Kokkos must run: it
   * is initialized with defaults as View creation does, and refused once
   * finalized. */
  if (kokkos_bound && !kp_bridge_is_initialized()) {
    if (kp_bridge_is_finalized()) {
      PyErr_Format(PyExc_RuntimeError,
                   "%s: Kokkos has been finalized; Kokkos-owned memory can only be handed to Python while Kokkos "
                   "runs",
                   where);
      return NULL;
    }
    if (kp_runtime_ensure() < 0) return NULL;
  }
  capi_external *ext = (capi_external *)PyMem_Malloc(sizeof *ext);
  if (!ext) return PyErr_NoMemory();
  ext->deleter = deleter;
  ext->ctx = ctx;
  ext->tag = tag;
  ext->armed = 0;
  kp_owner *o = kp_owner_from_deleter(capi_state, d->space, d->data, capi_external_release, ext, kokkos_bound);
  if (!o) return NULL; /* ext freed, deleter not called */
  PyObject *v = capi_wrap(d, o, shape, strides);
  if (v) ext->armed = 1; /* from here the View owns the memory */
  Py_DECREF(o);
  return v;
}

static int capi_external_owner(PyObject *obj, const char *tag, void **ctx) {
  if (capi_require_view(obj, "kokkos_python external_owner()") < 0) return -1;
  kp_owner *o = ((kp_view *)obj)->owner;
  if (!o || o->kind != KP_OWNER_EXTERNAL || o->released || o->deleter != capi_external_release) return 0;
  capi_external *ext = (capi_external *)o->deleter_ctx;
  if (!ext->tag || !tag || strcmp(ext->tag, tag) != 0) return 0;
  *ctx = ext->ctx;
  return 1;
}

static PyObject *capi_view_from_object(PyObject *obj, int writable, int dynamic) {
  if (capi_is_view(obj)) {
    kp_view *v = (kp_view *)obj;
    if (kp_view_check_released(v)) return NULL;
    if (writable && v->readonly) {
      PyErr_Format(PyExc_BufferError, "View '%U' is read-only; a writable View was requested", v->label);
      return NULL;
    }
    return Py_NewRef(obj);
  }
  return (PyObject *)kp_view_from_buffer_object(capi_state, obj, writable, NULL, dynamic,
                                                "kokkos_python view_from_object()");
}

static int capi_runtime_ensure(void) { return kp_runtime_ensure(); }
static int capi_is_initialized(void) { return kp_bridge_is_initialized(); }
static int capi_is_finalized(void) { return kp_bridge_is_finalized(); }

/* Path of the shared object holding addr, or NULL. */
static const char *capi_library_of(const void *addr) {
  Dl_info info;
  if (addr && dladdr(addr, &info) && info.dli_fname && info.dli_fname[0]) return info.dli_fname;
  return NULL;
}

static kokkos_python_api capi_table;

static int capi_check_runtime(const void *user_runtime, int32_t user_version, const char *module) {
  if (user_runtime && user_runtime == capi_table.kokkos_runtime) return 0;
  const char *user_lib = capi_library_of(user_runtime);
  const char *core_lib = capi_table.kokkos_library;
  PyErr_Format(PyExc_ImportError,
               "%s uses a different Kokkos library than the kokkos package: the module was built against Kokkos "
               "%d.%d.%d (%s), kokkos._core runs Kokkos %d.%d.%d (%s). Two Kokkos runtimes in one process cannot "
               "share Views; rebuild the module against the package's Kokkos (CMake: "
               "find_package(kokkos_python) with kokkos_python_DIR from `python -m kokkos --cmake-dir`).",
               module ? module : "this module", (int)(user_version / 10000), (int)(user_version / 100 % 100),
               (int)(user_version % 100), user_lib ? user_lib : "linked statically or unknown",
               (int)(capi_table.kokkos_version / 10000), (int)(capi_table.kokkos_version / 100 % 100),
               (int)(capi_table.kokkos_version % 100), core_lib ? core_lib : "unknown");
  return -1;
}

/* ---- publication ----------------------------------------------------------------------- */

int kp_capi_add(PyObject *module) {
  capi_state = (kp_state *)PyModule_GetState(module);
  capi_table.version = KOKKOS_PYTHON_API_VERSION;
  capi_table.size = (uint32_t)sizeof(kokkos_python_api);
  capi_table.kokkos_version = kp_bridge_kokkos_version();
  capi_table.max_rank = KP_MAX_RANK;
  capi_table.kokkos_runtime = kp_bridge_kokkos_runtime();
  capi_table.kokkos_library = capi_library_of(capi_table.kokkos_runtime);
  capi_table.is_view = capi_is_view;
  capi_table.is_dyn_rank_view = capi_is_dyn_rank_view;
  capi_table.describe = capi_describe;
  capi_table.owner = capi_owner;
  capi_table.is_released = capi_is_released;
  capi_table.view_from_owner = capi_view_from_owner;
  capi_table.view_from_deleter = capi_view_from_deleter;
  capi_table.external_owner = capi_external_owner;
  capi_table.view_from_object = capi_view_from_object;
  capi_table.runtime_ensure = capi_runtime_ensure;
  capi_table.is_initialized = capi_is_initialized;
  capi_table.is_finalized = capi_is_finalized;
  capi_table.check_runtime = capi_check_runtime;
  PyObject *capsule = PyCapsule_New(&capi_table, KOKKOS_PYTHON_API_CAPSULE, NULL);
  if (!capsule) return -1;
  int rc = PyModule_AddObjectRef(module, "_C_API", capsule);
  Py_DECREF(capsule);
  return rc;
}
