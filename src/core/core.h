/* core.h: what every layer of the kokkos._core extension shares: Python.h,
 * the bridge's C header and compat.h; the enumerations of the public
 * header's rows (dtypes, layouts, memory traits); the module state and
 * what it holds. Each layer's functions and types are in its own header,
 * beside its files: base/base.h, model/model.h, copy/copy.h,
 * exchange/exchange.h, access/access.h, tools/tools.h, and top.h for the
 * files on top.
 *
 * The files, one concern each, in layers (base, model, copy, exchange,
 * access, tools, then module.c / view_type.c / array.c on top), are listed
 * in docs/architecture.md's table of files per layer, which
 * tests/test_architecture.py compares with the tree. A layer's header is
 * on the include path of its own files and the layers above only
 * (CMakeLists.txt), and included by no file below (the test checks it).
 */
#ifndef KOKKOS_PYTHON_CORE_H
#define KOKKOS_PYTHON_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "bridge.h"
#include "compat.h"

/* Raising an exception is the exceptional path. Declared cold, the calls
 * that raise make the compiler move each branch that raises out of the hot
 * path of its function (GCC and Clang put it in the function's cold part),
 * so the instructions a call runs sit together in fewer cache lines. */
#if defined(__GNUC__) || defined(__clang__)
/* A function only the exceptional path calls, kept out of line. */
#define KP_COLD __attribute__((cold, noinline))
extern PyObject *PyErr_Format(PyObject *exception, const char *format, ...) __attribute__((cold));
extern void PyErr_SetString(PyObject *exception, const char *message) __attribute__((cold));
extern void PyErr_SetObject(PyObject *exception, PyObject *value) __attribute__((cold));
extern PyObject *PyErr_NoMemory(void) __attribute__((cold));
#else
#define KP_COLD
#endif

/* ---- dtypes, layouts, memory traits -------------------------------------- */

/* The rows are the public header's (include/kokkos_python/tables.h, which
 * bridge.h includes): a dtype, a layout or a memory trait is one row there.
 * KP_DTYPE_<id> is a row's place in its list, which capi.c checks against
 * the row's number in the C interface; the rest of a dtype's row makes
 * kp_dtypes (dtype.c), of a layout's and a trait's kp_layout_names and
 * kp_traits (space.c). */
#define KP_DTYPE_ENUM_ROW(id, ...) KP_DTYPE_##id,
enum { KOKKOS_PYTHON_DTYPE_ROWS(KP_DTYPE_ENUM_ROW) KP_DTYPE_COUNT };
#undef KP_DTYPE_ENUM_ROW

#define KP_LAYOUT_ENUM_ROW(id, ...) KP_LAYOUT_##id,
enum { KOKKOS_PYTHON_LAYOUT_ROWS(KP_LAYOUT_ENUM_ROW) KP_LAYOUT_COUNT };
#undef KP_LAYOUT_ENUM_ROW

/* Memory traits are flags, as Kokkos::MemoryTraits<...>; KP_TRAIT_ALL is
 * every flag. */
#define KP_TRAIT_ENUM_ROW(id, flag, name) KP_TRAIT_##id = flag,
#define KP_TRAIT_ALL_ROW(id, flag, name) | flag
#define KP_TRAIT_COUNT_ROW(id, flag, name) +1
enum {
  KOKKOS_PYTHON_TRAIT_ROWS(KP_TRAIT_ENUM_ROW) KP_TRAIT_ALL = 0 KOKKOS_PYTHON_TRAIT_ROWS(KP_TRAIT_ALL_ROW),
  KP_TRAIT_COUNT = 0 KOKKOS_PYTHON_TRAIT_ROWS(KP_TRAIT_COUNT_ROW)
};
#undef KP_TRAIT_ENUM_ROW
#undef KP_TRAIT_ALL_ROW
#undef KP_TRAIT_COUNT_ROW

/* ---- module state -------------------------------------------------------- */

/* The state holds one entry per keyword name, enumeration family and
 * exchange constant, and two sparse tables: those are declared here; their
 * functions are base.h's (args.c, slots.c) and exchange.h's (import.c). */

/* Keyword names of the module's functions, interned in the module state. */
enum {
  KP_KW_SHAPE,
  KP_KW_DTYPE,
  KP_KW_LABEL,
  KP_KW_SPACE,
  KP_KW_LAYOUT,
  KP_KW_TRAIT,
  KP_KW_INITIALIZE,
  KP_KW_ARRAY,
  KP_KW_DYNAMIC,
  KP_KW_ORDER,
  KP_KW_COPY,
  KP_KW_SRC,
  KP_KW_OBJ,
  KP_KW_FIRST, /* shape_label_or_array */
  KP_KW_DST,
  KP_KW_STREAM,
  KP_KW_MAX_VERSION,
  KP_KW_DL_DEVICE,
  KP_KW_X,
  KP_KW_DEVICE,
  KP_KW_COUNT
};

/* Enumeration families of the kokkos package (kokkos.dtype, ...). */
enum { KP_FAMILY_DTYPE, KP_FAMILY_SPACE, KP_FAMILY_LAYOUT, KP_FAMILY_TRAIT, KP_FAMILY_DEVICE, KP_FAMILY_COUNT };

/* Names and constants of the exchange protocols, made once per module
 * (import.c, kp_exchange_init): attribute names, the version and device tuples
 * passed to producers' __dlpack__, and the keyword-name tuples of those calls. */
enum {
  KP_DL_STR_DLPACK,            /* "__dlpack__" */
  KP_DL_STR_DLPACK_DEVICE,     /* "__dlpack_device__" */
  KP_DL_STR_EXCHANGE_API,      /* "__dlpack_c_exchange_api__" */
  KP_DL_STR_CAI,               /* "__cuda_array_interface__" */
  KP_DL_MAX_VERSION,           /* (1, 3): the DLPack version this project reads */
  KP_DL_CPU_DEVICE,            /* (1, 0): DLPack's CPU device */
  KP_DL_KW_MAX_VERSION,        /* ("max_version",) */
  KP_DL_KW_STREAM_MAX_VERSION, /* ("stream", "max_version") */
  KP_DL_KW_STREAM,             /* ("stream",) */
  KP_DL_KW_HOST_COPY,          /* ("max_version", "dl_device", "copy") */
  KP_DL_CONST_COUNT
};

/* A sparse table of count pointers, stored in blocks allocated on first
 * write; every entry NULL until set (its functions: base.h, slots.c). */
enum { KP_SLOTS_BLOCK = 128 };
typedef struct kp_slots {
  size_t count;
  size_t nblocks;
  void ***blocks; /* the block index (kp_slots_init); a block is NULL until written */
} kp_slots;

/* Entries of the C API's label cache (a power of two). */
#define KP_CAPI_LABELS 64

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
  /* Raised when a kernel, a device copy or a device consumer would be given
   * memory the device cannot read (KP_REACH_NO_DEVICE); a subclass of
   * ValueError, BufferError and RuntimeError. */
  PyObject *device_access_error;
  /* kokkos.pickling's _reduce_ex, imported by the first View.__reduce_ex__
   * (pickling.c); NULL until then. */
  PyObject *reducer;
  PyObject *empty_str;                   /* "": the label of a View made without one */
  PyObject *label_passed;                /* the exact str that last passed the label door (view.c) */
  PyObject *kw[KP_KW_COUNT];             /* interned keyword names (args.c) */
  PyObject *dl[KP_DL_CONST_COUNT];       /* the exchange protocols' names and constants (import.c) */
  PyObject *enum_types[KP_FAMILY_COUNT]; /* the enumeration classes, once registered */
  kp_slots label_cache;                  /* default labels of kokkos.array (strong), by kind/dtype/rank/layout/space */
  PyObject *capi_labels[KP_CAPI_LABELS]; /* labels of Views handed over through the C API (strong; capi.c) */
  /* The per-combination View classes (view_class.c): a list of (class,
   * name bytes, combination) holding them, and a table of borrowed pointers indexed by
   * the combination, allocated on first use. */
  PyObject *view_classes;
  PyObject *view_class_namespace; /* the kokkos package's globals, where the classes are published; or NULL */
  kp_slots view_class_table;      /* borrowed, indexed by combination */
  PyType_Slot *view_class_slots;  /* the classes' slots (view.c's kp_view_class_slots) */
  PyObject *module;               /* borrowed: the module owning this state */
} kp_state;

#endif /* KOKKOS_PYTHON_CORE_H */
