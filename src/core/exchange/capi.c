/* capi.c: the C function table exported in the capsule kokkos._core._C_API.
 *
 * Python equivalent, roughly:
 *
 *     kokkos._core._C_API = PyCapsule(&table, "kokkos._core._C_API")
 *
 * The table (include/kokkos_python/kokkos_python.h) lets users' extension
 * modules make and read Views without linking to this module. Each entry
 * is a thin, checked wrapper around the core's internal API (the layers' headers):
 * users hand in plain descriptions, never core structs.
 *
 * Ownership handed over through view_from_deleter or view_from_inline is an
 * Allocation (KP_OWNER_EXTERNAL) holding the user's deleter, its context
 * and a tag; the tag is what external_owner recognizes later, so a C++ View
 * that went to Python comes back as the same Kokkos::View. view_from_inline
 * builds the context inside the Allocation (a C++ View's reference count):
 * handing a View over then allocates the Allocation and the View, nothing
 * else.
 *
 * The hand-over is a hot path (a C++ application calls Python with its
 * Views at every step), so it makes each View with its final class and
 * layout at once, and takes its label from a small cache rather than
 * making a str per call.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "exchange.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "kokkos_python/kokkos_python.h"

/* The public numbering is the core's: both are made from the rows of
 * tables.h, the public enums from each row's number, the core's from the
 * row's place in its list (compared as ints: they are different enums). A
 * row out of its number's place fails to compile here. */
#define SAME(a, b) ((int)(a) == (int)(b))
#define CHECK_DTYPE(id, number, ...) \
  _Static_assert(SAME(KOKKOS_PYTHON_##id, KP_DTYPE_##id), "dtype row " #id " is not in its place " #number);
#define CHECK_SPACE(id, number, ...)                              \
  _Static_assert(SAME(KOKKOS_PYTHON_##id##_SPACE, KP_SPACE_##id), \
                 "memory-space row " #id " is not in its place " #number);
#define CHECK_LAYOUT(id, number, ...) \
  _Static_assert(SAME(KOKKOS_PYTHON_LAYOUT_##id, KP_LAYOUT_##id), "layout row " #id " is not in its place " #number);
KOKKOS_PYTHON_DTYPE_ROWS(CHECK_DTYPE)
KOKKOS_PYTHON_SPACE_ROWS(CHECK_SPACE)
KOKKOS_PYTHON_LAYOUT_ROWS(CHECK_LAYOUT)
_Static_assert(SAME(KOKKOS_PYTHON_DTYPE_COUNT, KP_DTYPE_COUNT), "public dtype count must match the core's");
_Static_assert(SAME(KOKKOS_PYTHON_SPACE_COUNT, KP_SPACE_COUNT), "public memory-space count must match the core's");
_Static_assert(SAME(KOKKOS_PYTHON_LAYOUT_COUNT, KP_LAYOUT_COUNT), "public layout count must match the core's");
_Static_assert(SAME(KOKKOS_PYTHON_MAX_RANK, KP_MAX_RANK), "public maximum rank must match the core's");
#undef CHECK_DTYPE
#undef CHECK_SPACE
#undef CHECK_LAYOUT
#undef SAME

/* The module state of kokkos._core, set when the table is published. The
 * module lives in sys.modules for the life of the process. */
static kp_state *capi_state = NULL;

_Static_assert(KP_OWNER_INLINE_BYTES >= 64 && KP_OWNER_INLINE_BYTES % 16 == 0,
               "kokkos_python.h promises at least 64 inline bytes, aligned to 16");

/* ---- labels ------------------------------------------------------------------------- */

/* Labels up to this many bytes are cached. */
enum { CAPI_LABEL_MAX = 64 };

/* New reference to the str of a View's label (NULL: ""). C++ hands the same
 * few labels over again and again (one per allocation), so ASCII labels are
 * kept in a small direct-mapped cache keyed by their bytes (FNV-1a): a hit
 * costs a hash and a comparison instead of decoding a new str, and every
 * View of one label shares one str. NULL with UnicodeDecodeError. */
static PyObject *capi_label(const char *label) {
  if (!label) label = "";
  uint32_t h = 2166136261u;
  size_t n = 0;
  for (; label[n] && n <= CAPI_LABEL_MAX; ++n) h = (h ^ (unsigned char)label[n]) * 16777619u;
  if (n > CAPI_LABEL_MAX) return PyUnicode_FromString(label);
  PyObject **slot = &capi_state->capi_labels[h & (KP_CAPI_LABELS - 1)];
  PyObject *s = *slot;
  if (s && (size_t)PyUnicode_GET_LENGTH(s) == n) {
    const char *cached = (const char *)PyUnicode_DATA(s);
    size_t i = 0;
    while (i < n && cached[i] == label[i]) ++i; /* labels are short: no call to memcmp */
    if (i == n) return Py_NewRef(s);
  }
  s = PyUnicode_DecodeUTF8(label, (Py_ssize_t)n, NULL);
  if (s && PyUnicode_IS_COMPACT_ASCII(s)) Py_XSETREF(*slot, Py_NewRef(s)); /* only ASCII: one byte per character */
  return s;
}

void kp_capi_clear(kp_state *st) {
  for (int i = 0; i < KP_CAPI_LABELS; ++i) Py_CLEAR(st->capi_labels[i]);
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
  if (d->space != KP_SPACE_HOST && kp_space_check_available(d->space, where) < 0) return -1; /* Host: always */
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

/* The layout of a View described by d: the C++ View's own whenever the
 * strides allow it (they say LayoutRight for a rank-1 LayoutLeft View too),
 * else the one the strides describe. */
static int capi_layout(const kokkos_python_view_desc *d, const Py_ssize_t *shape, const Py_ssize_t *strides) {
  if (d->layout == KP_LAYOUT_STRIDE) return KP_LAYOUT_STRIDE;
  if (d->layout == KP_LAYOUT_LEFT || d->layout == KP_LAYOUT_RIGHT) {
    Py_ssize_t expect[KP_MAX_RANK];
    int ok = 1;
    kp_contiguous_strides(d->rank, shape, d->layout, expect);
    for (int r = 0; r < d->rank; ++r) {
      if (shape[r] == 0) break;
      if (shape[r] != 1 && strides[r] != expect[r]) ok = 0;
    }
    if (ok) return d->layout;
  }
  return kp_layout_of(d->rank, shape, strides);
}

/* New View over d->data held by owner, made with its final class and layout. */
static PyObject *capi_wrap(const kokkos_python_view_desc *d, kp_owner *owner, const Py_ssize_t *shape,
                           const Py_ssize_t *strides) {
  const int layout = capi_layout(d, shape, strides);
  /* Contiguous strides span the bytes capi_check_desc counted; others may lie. */
  if (layout == KP_LAYOUT_STRIDE &&
      kp_check_span_at((const char *)d->data, d->rank, shape, strides, kp_dtypes[d->dtype].itemsize, "kokkos") < 0)
    return NULL;
  PyObject *label = capi_label(d->label);
  if (!label) return NULL;
  kp_view *v = kp_view_wrap_as(capi_state, d->dynamic ? capi_state->dyn_rank_view_type : capi_state->view_type, owner,
                               (char *)d->data, d->rank, shape, strides, d->dtype, d->space, layout, d->traits,
                               d->readonly != 0, label);
  Py_DECREF(label);
  return (PyObject *)v;
}

/* Memory bound to Kokkos is released at finalize, so Kokkos must run: it is
 * initialized with defaults as View creation does, and refused once
 * finalized. 0, or -1 with an exception. */
static int capi_require_kokkos(const char *where) {
  if (kp_bridge_is_initialized()) return 0;
  if (kp_bridge_is_finalized()) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s: Kokkos has been finalized; Kokkos-owned memory can only be handed to Python while Kokkos runs",
                 where);
    return -1;
  }
  return kp_runtime_ensure();
}

/* A new device View's zero fill is queued on Kokkos' default instance (the
 * exchange protocols order their consumers after that stream); C++ code
 * may run on any instance, so the first hand-over to C++ waits for it. */
static int capi_fence_queued(kp_owner *o) {
  if (kp_fence_kokkos("kokkos_python::from_python: a new View's initialization", "kokkos_python::from_python") < 0)
    return -1;
  o->queued = 0;
  return 0;
}

/* ---- table entries -------------------------------------------------------------------- */

static int capi_describe(PyObject *obj, kokkos_python_view_desc *out) {
  if (capi_require_view(obj, "kokkos_python describe()") < 0) return -1;
  kp_view *v = (kp_view *)obj;
  if (kp_view_check_released(v)) return -1;
  if (kp_view_require_device_reach(v, PyExc_ValueError, "kokkos_python::from_python") < 0) return -1;
  if (v->owner && v->owner->queued && capi_fence_queued(v->owner) < 0) return -1;
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
  if (kokkos_bound && capi_require_kokkos(where) < 0) return NULL;
  /* No deleter yet: a failed hand-over never calls it (the memory stays the caller's). */
  kp_owner *o = kp_owner_from_deleter(capi_state, d->space, d->data, NULL, NULL, kokkos_bound);
  if (!o) return NULL;
  PyObject *v = capi_wrap(d, o, shape, strides);
  if (v) {
    o->deleter = deleter; /* from here the View owns the memory */
    o->deleter_ctx = ctx;
    o->tag = tag;
  }
  Py_DECREF(o);
  return v;
}

static PyObject *capi_view_from_inline(const kokkos_python_view_desc *d, size_t size, kokkos_python_construct construct,
                                       const void *src, kokkos_python_deleter destroy, int kokkos_bound,
                                       const char *tag) {
  static const char *where = "kokkos_python view_from_inline()";
  if (size > KP_OWNER_INLINE_BYTES) {
    PyErr_Format(PyExc_ValueError,
                 "%s: a context of %zu bytes does not fit the %d bytes an owner holds (inline_capacity)", where, size,
                 KP_OWNER_INLINE_BYTES);
    return NULL;
  }
  if (!construct || !destroy) {
    PyErr_Format(PyExc_ValueError, "%s: construct and destroy functions are required", where);
    return NULL;
  }
  Py_ssize_t shape[KP_MAX_RANK], strides[KP_MAX_RANK];
  if (capi_check_desc(d, shape, strides, where) < 0) return NULL;
  if (kokkos_bound && capi_require_kokkos(where) < 0) return NULL;
  kp_owner *o = kp_owner_from_deleter(capi_state, d->space, d->data, NULL, NULL, kokkos_bound);
  if (!o) return NULL;
  construct(o->inline_ctx, src);
  /* Armed at once: if the View cannot be made, dropping o destroys what construct built. */
  o->deleter = destroy;
  o->deleter_ctx = o->inline_ctx;
  o->tag = tag;
  PyObject *v = capi_wrap(d, o, shape, strides);
  Py_DECREF(o);
  return v;
}

static int capi_external_owner(PyObject *obj, const char *tag, void **ctx) {
  if (capi_require_view(obj, "kokkos_python external_owner()") < 0) return -1;
  kp_owner *o = ((kp_view *)obj)->owner;
  /* Only C API hand-overs carry a tag (DLPack imports are external owners too). */
  if (!o || o->kind != KP_OWNER_EXTERNAL || o->released || !o->tag || !tag || strcmp(o->tag, tag) != 0) return 0;
  *ctx = o->deleter_ctx;
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
  capi_table.inline_capacity = KP_OWNER_INLINE_BYTES;
  capi_table.view_from_inline = capi_view_from_inline;
  PyObject *capsule = PyCapsule_New(&capi_table, KOKKOS_PYTHON_API_CAPSULE, NULL);
  if (!capsule) return -1;
  int rc = PyModule_AddObjectRef(module, "_C_API", capsule);
  Py_DECREF(capsule);
  return rc;
}
