/* core.h: declarations shared by the files of the kokkos._core extension.
 *
 * One concern per file:
 *   module.c   module definition, state, runtime functions (initialize, ...)
 *   errors.c   bridge status -> Python exception, argument helpers
 *   dtype.c    the dtype table and conversions of Python objects to dtypes
 *   space.c    the memory-space table
 *   owner.c    Allocation: the reference-counted owner of a View's memory,
 *              and the registry released at Kokkos finalize
 *   view.c     the View type: construction, properties, repr
 *   index.c    indexing, slicing, element get/set, iteration
 *   copy.c     deep_copy, fills, mirrors
 *   buffer.c   buffer protocol, __array_interface__ and wrapping foreign
 *              host memory as Unmanaged Views
 */
#ifndef KOKKOS_PYTHON_CORE_H
#define KOKKOS_PYTHON_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "bridge.h"

/* ---- dtypes ---------------------------------------------------------------- */

typedef enum kp_dtype_kind { KP_KIND_BOOL, KP_KIND_INT, KP_KIND_UINT, KP_KIND_FLOAT, KP_KIND_COMPLEX } kp_dtype_kind;

typedef struct kp_dtype {
  const char *name;       /* canonical name: "float64" */
  const char *aliases[4]; /* the original package's aliases: "double", ... */
  kp_dtype_kind kind;
  Py_ssize_t itemsize;
  const char *format;  /* PEP 3118 format */
  const char *typestr; /* __array_interface__ typestr (little-endian host) */
  uint8_t dlpack_code; /* kDLInt 0, kDLUInt 1, kDLFloat 2, kDLComplex 5, kDLBool 6 */
  uint8_t dlpack_bits;
  /* Reads one element at p as a new Python object. */
  PyObject *(*get)(const char *p);
  /* Converts obj and stores it at p; -1 with an exception on failure. */
  int (*set)(char *p, PyObject *obj);
} kp_dtype;

enum {
  KP_DTYPE_INT8 = 0,
  KP_DTYPE_INT16,
  KP_DTYPE_INT32,
  KP_DTYPE_INT64,
  KP_DTYPE_UINT8,
  KP_DTYPE_UINT16,
  KP_DTYPE_UINT32,
  KP_DTYPE_UINT64,
  KP_DTYPE_FLOAT32,
  KP_DTYPE_FLOAT64,
  KP_DTYPE_COMPLEX64,
  KP_DTYPE_COMPLEX128,
  KP_DTYPE_BOOL,
  KP_DTYPE_FLOAT16, /* IEEE binary16; appended after bool: the numbers are the C ABI's */
  KP_DTYPE_COUNT
};

extern const kp_dtype kp_dtypes[KP_DTYPE_COUNT];

/* Index of the dtype named by obj (a kokkos.dtype member or int, a name,
 * a numpy dtype or scalar type, or anything with a .dtype / .str); -1 with
 * TypeError / ValueError naming `where` otherwise. */
int kp_dtype_from_object(PyObject *obj, const char *where);
/* Index of the dtype with this PEP 3118 format / typestr, or -1 (no error set). */
int kp_dtype_from_format(const char *format, Py_ssize_t itemsize);
int kp_dtype_from_typestr(const char *typestr);

/* ---- memory spaces, layouts, traits -------------------------------------- */

typedef struct kp_space_info {
  const char *name;       /* "HostSpace" */
  const char *aliases[4]; /* "Host", "Cuda", ... */
  int dlpack_device;      /* DLPack device type */
} kp_space_info;

extern const kp_space_info kp_spaces[KP_SPACE_COUNT];

enum { KP_LAYOUT_RIGHT = 0, KP_LAYOUT_LEFT = 1, KP_LAYOUT_STRIDE = 2, KP_LAYOUT_COUNT };
extern const char *const kp_layout_names[KP_LAYOUT_COUNT];

/* Memory traits are flags, as Kokkos::MemoryTraits<...> */
enum {
  KP_TRAIT_MANAGED = 0,
  KP_TRAIT_UNMANAGED = 1,
  KP_TRAIT_RANDOM_ACCESS = 2,
  KP_TRAIT_ATOMIC = 4,
  KP_TRAIT_RESTRICT = 8,
  KP_TRAIT_ALIGNED = 16,
  KP_TRAIT_ALL = 31
};

/* Parse a memory space / layout / trait argument (enum member, int or
 * name); -1 with an exception naming `where` on failure. */
int kp_space_from_object(PyObject *obj, const char *where);
int kp_layout_from_object(PyObject *obj, const char *where);
int kp_trait_from_object(PyObject *obj, const char *where);
/* Raises RuntimeError unless space is enabled in this Kokkos. */
int kp_space_check_available(int space, const char *where);

/* ---- module state ------------------------------------------------------------ */

typedef struct kp_state {
  PyTypeObject *view_type;
  PyTypeObject *dyn_rank_view_type;
  PyTypeObject *allocation_type;
  /* Members of the Python enums registered by the kokkos package, indexed
   * by value (tuples); NULL until registered, then properties use them. */
  PyObject *dtype_members;
  PyObject *space_members;
  PyObject *layout_members;
  PyObject *trait_enum; /* memory_trait IntFlag class */
  PyObject *shape_type; /* kokkos' Shape (a tuple subclass) */
  /* Raised when host code touches memory the host cannot access; a
   * subclass of both BufferError and RuntimeError. */
  PyObject *host_access_error;
  /* The per-combination View classes (view_class.c): a list of (class,
   * name bytes) holding them, and a table of borrowed pointers indexed by
   * the combination, allocated on first use. */
  PyObject *view_classes;
  PyTypeObject **view_class_table;
  PyObject *module; /* borrowed: the module owning this state */
} kp_state;

extern PyModuleDef kp_module_def;
/* The state of the kokkos._core module that defined type (borrowed, never NULL
 * for our types). */
kp_state *kp_state_from_type(PyTypeObject *type);
/* The state of the imported kokkos._core module (borrowed), or NULL with an
 * exception set. */
kp_state *kp_state_global(void);

/* ---- errors ------------------------------------------------------------------------ */

/* Sets the Python exception for a failed bridge call; returns -1. */
int kp_raise_bridge(kp_status status, const kp_error *err, const char *where);

/* ---- runtime (module.c) ------------------------------------------------------------ */

/* Initializes Kokkos with defaults unless it is initialized; -1 with
 * RuntimeError if it was finalized. */
int kp_runtime_ensure(void);

/* ---- Allocation (owner.c) ---------------------------------------------------------- */

typedef enum kp_owner_kind {
  KP_OWNER_KOKKOS,   /* kp_bridge_allocate'd; freed through the bridge */
  KP_OWNER_PYOBJECT, /* foreign memory kept alive by a Python object */
  KP_OWNER_EXTERNAL  /* a deleter supplied through the C API */
} kp_owner_kind;

typedef struct kp_owner {
  PyObject_HEAD kp_owner_kind kind;
  int space;
  void *data;
  PyObject *label;    /* str */
  PyObject *exporter; /* KP_OWNER_PYOBJECT: the object owning the memory */
  Py_buffer buffer;   /* held when has_buffer */
  int has_buffer;
  void (*deleter)(void *); /* KP_OWNER_EXTERNAL */
  void *deleter_ctx;
  int released;           /* memory is gone (Kokkos finalized) */
  int registered;         /* in the finalize registry */
  Py_ssize_t exports;     /* buffers / capsules handed out of this memory */
  int interface_exported; /* its address went out through __array_interface__ (never released) */
  struct kp_owner *prev, *next;
  PyObject *weakreflist;
} kp_owner;

extern PyType_Spec kp_owner_spec;

/* New reference to an Allocation of bytes in space (zeroed unless
 * !zero), or NULL with an exception. */
kp_owner *kp_owner_allocate(kp_state *st, int space, PyObject *label, size_t bytes, int zero);
/* New reference to an Allocation that keeps exporter alive (and releases
 * buffer, when given, at the end; the Py_buffer is moved in). */
kp_owner *kp_owner_from_pyobject(kp_state *st, int space, void *data, PyObject *exporter, Py_buffer *buffer);
/* New reference to an Allocation whose memory is released by calling
 * deleter(ctx); registered for Kokkos finalize when kokkos_bound. */
kp_owner *kp_owner_from_deleter(kp_state *st, int space, void *data, void (*deleter)(void *), void *ctx,
                                int kokkos_bound);
/* Called from Kokkos' finalize hook: releases every registered Allocation. */
void kp_owner_release_all(void);

/* ---- View (view.c) ----------------------------------------------------------------- */

/* ---- per-combination View classes (view_class.c) --------------------------------- */

struct kp_view;
/* The class of Views of this combination (borrowed), made on first use;
 * NULL with an exception. Unmanaged does not take part; a DynRankView's
 * class ignores rank. */
PyTypeObject *kp_view_class(kp_state *st, int dynamic, int dtype, int space, int layout, unsigned traits, int rank);
/* Whether type is one of those classes (not View, DynRankView or a Python subclass). */
int kp_view_class_is_combination(kp_state *st, PyTypeObject *type);
/* Moves v to the class of its current fields after a caller changed its
 * layout or traits; Views of other classes keep theirs. -1 with an exception. */
int kp_view_retype(struct kp_view *v);
void kp_view_classes_free(kp_state *st);
/* _view_class(dynamic, dtype, space, layout, traits, rank): the class (new reference). */
PyObject *kp_py_view_class(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

typedef struct kp_view {
  PyObject_HEAD char *data; /* first element (may be a dummy for empty Views) */
  kp_owner *owner;          /* strong reference; NULL only for empty Views */
  int rank;
  int dtype;
  int space;
  int layout;
  unsigned traits;
  int readonly;
  Py_ssize_t shape[KP_MAX_RANK];
  Py_ssize_t strides[KP_MAX_RANK]; /* in elements, may be negative */
  Py_ssize_t byte_strides[KP_MAX_RANK];
  PyObject *label;    /* str */
  Py_ssize_t exports; /* live buffer exports of this object */
  PyObject *cai;      /* __cuda_array_interface__, built once (NULL until then) */
  PyObject *weakreflist;
} kp_view;

int kp_view_check(PyObject *obj);

/* Describes a View to create. */
typedef struct kp_view_spec {
  int rank;
  Py_ssize_t shape[KP_MAX_RANK];
  int dtype;
  int space;
  int layout; /* RIGHT or LEFT for new allocations */
  unsigned traits;
  int dynamic;
  int zero;           /* zero-fill (Kokkos' default); 0 = WithoutInitializing */
  PyTypeObject *type; /* a Python subclass to instantiate; NULL: View or DynRankView (dynamic) */
} kp_view_spec;

/* New View with fresh memory; NULL with exception. */
kp_view *kp_view_allocate(kp_state *st, const kp_view_spec *spec, PyObject *label);
/* New View over existing memory held by owner (a new reference is taken).
 * strides in elements; layout is derived from them. */
kp_view *kp_view_wrap(kp_state *st, PyTypeObject *type, kp_owner *owner, char *data, int rank, const Py_ssize_t *shape,
                      const Py_ssize_t *strides, int dtype, int space, unsigned traits, int readonly, PyObject *label);
/* 1 if released (and sets RuntimeError naming the label), else 0. */
int kp_view_check_released(kp_view *v);
/* 1 if host code may touch this View's memory; else sets an error saying to
 * mirror (exc: the exception type) and returns 0. */
int kp_view_require_host(kp_view *v, PyObject *exc, const char *what);
Py_ssize_t kp_view_size(const kp_view *v);
int kp_view_is_c_contiguous(const kp_view *v);
int kp_view_is_f_contiguous(const kp_view *v);
/* LAYOUT_RIGHT / LEFT / STRIDE that describes these strides. */
int kp_layout_of(int rank, const Py_ssize_t *shape, const Py_ssize_t *strides);
/* Overflow-checked product of extents, times itemsize; -1 with exception. */
int kp_checked_bytes(int rank, const Py_ssize_t *shape, Py_ssize_t itemsize, size_t *out, const char *where);
/* Contiguous element strides for a layout. */
void kp_contiguous_strides(int rank, const Py_ssize_t *shape, int layout, Py_ssize_t *strides);

/* ---- indexing (index.c) ---------------------------------------------------------- */

/* mp_subscript, mp_ass_subscript, sq_length, sq_item (iteration) */
PyObject *kp_view_subscript(PyObject *self, PyObject *key);
int kp_view_ass_subscript(PyObject *self, PyObject *key, PyObject *value);
Py_ssize_t kp_view_length(PyObject *self);
PyObject *kp_view_item(PyObject *self, Py_ssize_t i);

/* nb_float, nb_int, nb_index, nb_bool and __complex__ (scalar.c): a View of
 * one element as a Python number. */
PyObject *kp_view_float(PyObject *self);
PyObject *kp_view_int(PyObject *self);
PyObject *kp_view_index(PyObject *self);
int kp_view_bool(PyObject *self);
PyObject *kp_view_complex(PyObject *self, PyObject *unused);
/* The element of a View of one element (any rank), read on the host, as a
 * new reference; NULL with TypeError (more elements), HostAccessError or
 * RuntimeError (released). what names the operation in the messages. */
PyObject *kp_view_one_element(kp_view *v, const char *what);

/* ---- copies (copy.c) ------------------------------------------------------------------ */

/* dst <- src (View, buffer-like object or scalar); -1 with exception. */
int kp_deep_copy(kp_state *st, kp_view *dst, PyObject *src, const char *where);
/* Copy between two Views of the same shape and dtype, any spaces and strides. */
int kp_copy_views(kp_view *dst, kp_view *src, const char *where);
PyObject *kp_view_create_mirror(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_view_create_mirror_view(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_view_deep_copy_method(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_deep_copy_function(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* ---- buffers (buffer.c) ------------------------------------------------------------ */

int kp_view_getbuffer(PyObject *self, Py_buffer *view, int flags);
void kp_view_releasebuffer(PyObject *self, Py_buffer *view);
PyObject *kp_view_array_interface(kp_view *self, void *closure);
/* New View over obj's memory (buffer protocol or __array_interface__),
 * keeping obj alive; NULL with an exception (TypeError if obj exposes
 * neither). */
kp_view *kp_view_from_buffer_object(kp_state *st, PyObject *obj, int writable, PyObject *label, int dynamic);

PyObject *kp_py_wrap(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* Looks up an optional attribute: 1 and a new reference in *out if present,
 * 0 and *out = NULL if absent (AttributeError), -1 on other errors. */
static inline int PyObject_GetOptionalAttrString_compat(PyObject *obj, const char *name, PyObject **out) {
  *out = PyObject_GetAttrString(obj, name);
  if (*out) return 1;
  if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    return 0;
  }
  return -1;
}

/* ---- C API (capi.c) ------------------------------------------------------------------ */

/* Publishes the C function table as kokkos._core._C_API; -1 with exception. */
int kp_capi_add(PyObject *module);
/* Adds the Kokkos Tools submodule kokkos._core._tools (tools.c); -1 on error. */
int kp_tools_add(PyObject *module);
/* Adds __dlpack__, __dlpack_device__, __dlpack_c_exchange_api__ and
 * __cuda_array_interface__ to the View type and from_dlpack to the module
 * (dlpack.c, cai.c); -1 on error. */
int kp_dlpack_add(PyObject *module, kp_state *st);
/* New View sharing obj's memory through DLPack, __cuda_array_interface__,
 * __array_interface__ or the buffer protocol (obj itself if a View); NULL
 * with an exception (dlpack.c). */
kp_view *kp_view_from_exchange(kp_state *st, PyObject *obj, PyObject *label);

/* _view_from_bytes(buf, dtype, shape, layout, label, dynamic, traits): an
 * Unmanaged View over a contiguous buffer, for unpickling (pickling.c). */
PyObject *kp_py_view_from_bytes(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif /* KOKKOS_PYTHON_CORE_H */
