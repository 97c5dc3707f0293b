/* kokkos_python.h: the C interface of the kokkos Python package.
 *
 * kokkos._core exports a table of C functions in a capsule named
 * "kokkos._core._C_API" (the pattern NumPy uses for its C API). An
 * extension module that includes this header calls kokkos_python_import()
 * once, then reaches the core only through that table: it needs no link to
 * the core and no Kokkos headers. Plain C is enough to make a kokkos.View
 * over memory the module owns, read the description of a View it was given,
 * and check types. C++ users want kokkos_python.hpp, which builds
 * to_python / from_python for Kokkos::View and Kokkos::DynRankView on top.
 *
 * Versioning: KOKKOS_PYTHON_API_VERSION grows by one whenever entries are
 * appended to kokkos_python_api (entries are never removed or reordered).
 * A module built against version N runs against a core of version >= N.
 *
 * Threads: every function needs the GIL unless it says otherwise.
 */
#ifndef KOKKOS_PYTHON_H
#define KOKKOS_PYTHON_H

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>
#include <stdint.h>

#include "tables.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the table layout this header describes.
 *   1: the first table, up to check_runtime.
 *   2: inline_capacity and view_from_inline appended. */
#define KOKKOS_PYTHON_API_VERSION 2
/* The capsule: attribute _C_API of kokkos._core, with this name. */
#define KOKKOS_PYTHON_API_CAPSULE "kokkos._core._C_API"

/* Kokkos' largest View rank (DynRankView stops at 7). */
#define KOKKOS_PYTHON_MAX_RANK 8
#define KOKKOS_PYTHON_MAX_DYN_RANK 7

/* The enumerations, made from tables.h's rows (each row's number; the
 * C++ header and the kokkos package read the same rows). */
#define KOKKOS_PYTHON_DETAIL_DTYPE(id, number, ...) KOKKOS_PYTHON_##id = number,
#define KOKKOS_PYTHON_DETAIL_SPACE(id, number, ...) KOKKOS_PYTHON_##id##_SPACE = number,
#define KOKKOS_PYTHON_DETAIL_LAYOUT(id, number, ...) KOKKOS_PYTHON_LAYOUT_##id = number,
#define KOKKOS_PYTHON_DETAIL_TRAIT(id, flag, ...) KOKKOS_PYTHON_##id = flag,
#define KOKKOS_PYTHON_DETAIL_COUNT(...) +1

/* Element types, as kokkos.dtype numbers them (KOKKOS_PYTHON_INT8 ...
 * KOKKOS_PYTHON_FLOAT16). New numbers are only ever appended: code that
 * indexes a table by dtype checks dtype < the KOKKOS_PYTHON_DTYPE_COUNT it
 * was built with (a newer core may describe Views of dtypes added since; a
 * core older than a dtype rejects it as unknown, ValueError). */
enum kokkos_python_dtype {
  KOKKOS_PYTHON_DTYPE_ROWS(KOKKOS_PYTHON_DETAIL_DTYPE) KOKKOS_PYTHON_DTYPE_COUNT =
      0 KOKKOS_PYTHON_DTYPE_ROWS(KOKKOS_PYTHON_DETAIL_COUNT)
};

/* Memory spaces, as kokkos.memory_space numbers them
 * (KOKKOS_PYTHON_HOST_SPACE, KOKKOS_PYTHON_CUDA_SPACE, ...). */
enum kokkos_python_space {
  KOKKOS_PYTHON_SPACE_ROWS(KOKKOS_PYTHON_DETAIL_SPACE) KOKKOS_PYTHON_SPACE_COUNT =
      0 KOKKOS_PYTHON_SPACE_ROWS(KOKKOS_PYTHON_DETAIL_COUNT)
};

/* Layouts, as kokkos.layout numbers them (KOKKOS_PYTHON_LAYOUT_RIGHT, ...). */
enum kokkos_python_layout {
  KOKKOS_PYTHON_LAYOUT_ROWS(KOKKOS_PYTHON_DETAIL_LAYOUT) KOKKOS_PYTHON_LAYOUT_COUNT =
      0 KOKKOS_PYTHON_LAYOUT_ROWS(KOKKOS_PYTHON_DETAIL_COUNT)
};

/* Memory traits: flags, as Kokkos::MemoryTraits<...> (KOKKOS_PYTHON_MANAGED
 * is 0, KOKKOS_PYTHON_UNMANAGED 1, ...). */
enum kokkos_python_trait { KOKKOS_PYTHON_TRAIT_ROWS(KOKKOS_PYTHON_DETAIL_TRAIT) };

#undef KOKKOS_PYTHON_DETAIL_DTYPE
#undef KOKKOS_PYTHON_DETAIL_SPACE
#undef KOKKOS_PYTHON_DETAIL_LAYOUT
#undef KOKKOS_PYTHON_DETAIL_TRAIT
#undef KOKKOS_PYTHON_DETAIL_COUNT

/* The description of a View: what it points at and how it is laid out.
 * Filled by the caller for view_from_owner / view_from_deleter, filled by
 * the core for describe. */
typedef struct kokkos_python_view_desc {
  void *data;                              /* first element; may be NULL when the View is empty */
  int32_t rank;                            /* 0 .. KOKKOS_PYTHON_MAX_RANK */
  int32_t dtype;                           /* enum kokkos_python_dtype */
  int32_t space;                           /* enum kokkos_python_space */
  int32_t layout;                          /* enum kokkos_python_layout; on input, a hint that is
                                              kept only when the strides agree with it */
  uint32_t traits;                         /* enum kokkos_python_trait flags */
  int32_t readonly;                        /* 1: the memory must not be written (a const View) */
  int32_t dynamic;                         /* 1: a kokkos.DynRankView (rank <= 7) */
  int32_t reserved;                        /* 0 */
  int64_t extents[KOKKOS_PYTHON_MAX_RANK]; /* only the first rank are used */
  int64_t strides[KOKKOS_PYTHON_MAX_RANK]; /* in elements, not bytes */
  /* The View's label, UTF-8. Input: may be NULL (empty label). Output:
   * borrowed from the View, valid while the View lives. */
  const char *label;
} kokkos_python_view_desc;

/* Releases memory handed to view_from_deleter; called exactly once, with
 * the GIL held, when the last Python reference to the memory goes or (when
 * registered kokkos_bound) at the start of Kokkos::finalize, whichever comes
 * first. Must not raise or call back into the View. */
typedef void (*kokkos_python_deleter)(void *ctx);

/* Builds a context in storage (at least as many bytes as were asked for,
 * aligned to 16) from src, e.g. copy-constructs a C++ object there. Called
 * once, with the GIL held; must not fail, raise or call into the core.
 * (Version 2.) */
typedef void (*kokkos_python_construct)(void *storage, const void *src);

typedef struct kokkos_python_api {
  /* KOKKOS_PYTHON_API_VERSION of the core; first, and never moved. */
  uint32_t version;
  /* sizeof(kokkos_python_api) in the core. */
  uint32_t size;
  /* KOKKOS_VERSION the core was built with (major*10000 + minor*100 + patch). */
  int32_t kokkos_version;
  int32_t max_rank;
  /* The address of Kokkos::is_initialized in the Kokkos library the core
   * uses: identifies that Kokkos runtime in this process. */
  const void *kokkos_runtime;
  /* Path of the Kokkos library the core uses, or NULL when unknown. */
  const char *kokkos_library;

  /* 1 if obj is a kokkos.View (DynRankView included), else 0. Never fails. */
  int (*is_view)(PyObject *obj);
  /* 1 if obj is a kokkos.DynRankView, else 0. Never fails. */
  int (*is_dyn_rank_view)(PyObject *obj);

  /* Fills *out with the description of view. Returns 0, or -1 with
   * TypeError (not a View) or RuntimeError (its memory was released when
   * Kokkos finalized). out->label is borrowed from view. */
  int (*describe)(PyObject *view, kokkos_python_view_desc *out);

  /* New reference to the kokkos.Allocation that owns view's memory, or to
   * None for an empty View; NULL with TypeError if view is not a View. A
   * reference to it keeps the memory alive (until Kokkos finalizes, for
   * memory that Kokkos allocated). */
  PyObject *(*owner)(PyObject *view);

  /* 1 if owner (an Allocation from owner(), or a View) has had its memory
   * released at Kokkos finalize, else 0. Never fails. */
  int (*is_released)(PyObject *owner_or_view);

  /* New reference to a View over desc->data whose memory is kept alive by
   * owner (a new reference is taken; any object: an Allocation, a NumPy
   * array, a capsule). NULL with an exception on bad input (dtype, rank,
   * space, negative extents, a space this Kokkos lacks). */
  PyObject *(*view_from_owner)(const kokkos_python_view_desc *desc, PyObject *owner);

  /* New reference to a View over desc->data that owns it: deleter(ctx)
   * releases it (see kokkos_python_deleter). kokkos_bound: 1 when the
   * memory must go before Kokkos finalizes (it belongs to Kokkos, e.g. a
   * heap copy of a Kokkos::View); the View then reads as released. With
   * kokkos_bound, Kokkos is initialized with defaults first if nothing has
   * (as creating a View does), and RuntimeError is raised once Kokkos was
   * finalized. tag: a static string the creator chooses, returned by
   * external_owner; may be NULL. On failure returns NULL with an exception
   * and does NOT call deleter: the memory still belongs to the caller. */
  PyObject *(*view_from_deleter)(const kokkos_python_view_desc *desc, kokkos_python_deleter deleter, void *ctx,
                                 int kokkos_bound, const char *tag);

  /* When view's memory was handed over through view_from_deleter with this
   * exact tag (compared as strings), stores its ctx in *ctx and returns 1;
   * otherwise returns 0. -1 with an exception only if view is not a View. */
  int (*external_owner)(PyObject *view, const char *tag, void **ctx);

  /* New reference to a View over the memory of obj (buffer protocol or
   * __array_interface__), without copying, keeping obj alive; obj itself
   * when it is already a View. writable: 1 to require writable memory.
   * dynamic: 1 for a DynRankView. NULL with TypeError / BufferError. */
  PyObject *(*view_from_object)(PyObject *obj, int writable, int dynamic);

  /* Initializes Kokkos with defaults unless it is initialized. 0, or -1
   * with RuntimeError when Kokkos was already finalized. */
  int (*runtime_ensure)(void);
  /* Kokkos::is_initialized() / finalized, as the core sees them. */
  int (*is_initialized)(void);
  int (*is_finalized)(void);

  /* 0 when user_runtime (the caller's &Kokkos::is_initialized) is the
   * kokkos_runtime above, i.e. the caller and the core share one Kokkos
   * library. Otherwise -1 with ImportError naming both libraries and
   * versions; module names the caller in the message. */
  int (*check_runtime)(const void *user_runtime, int32_t user_kokkos_version, const char *module);

  /* ---- version 2 ---- */

  /* Bytes of context view_from_inline keeps in a View's owner (at least 64). */
  uint32_t inline_capacity;

  /* As view_from_deleter, with the context kept inside the View's owner
   * instead of on the caller's heap: the core calls construct(storage, src)
   * once, with storage of size bytes (size <= inline_capacity, aligned to
   * 16) that lives with the owner, and later destroy(storage), exactly once
   * and under the same rules as a deleter (the last Python reference goes,
   * or Kokkos finalizes first when kokkos_bound). external_owner with this
   * tag then stores storage in *ctx. Handing a C++ View's reference count
   * over this way costs no heap allocation (kokkos_python.hpp's to_python).
   * On failure returns NULL with an exception (ValueError: size above
   * inline_capacity, construct or destroy NULL, a bad description; the
   * errors of view_from_deleter), having called destroy for anything
   * construct built: nothing is left to release, and src still belongs to
   * the caller. */
  PyObject *(*view_from_inline)(const kokkos_python_view_desc *desc, size_t size, kokkos_python_construct construct,
                                const void *src, kokkos_python_deleter destroy, int kokkos_bound, const char *tag);
} kokkos_python_api;

/* ---- import -------------------------------------------------------------- */

/* One table pointer per translation unit, like NumPy's PyArray_API. Define
 * KOKKOS_PYTHON_API_STORAGE before including this header to share one
 * across files (e.g. `extern const kokkos_python_api *` in all but one). */
#ifndef KOKKOS_PYTHON_API_STORAGE
#define KOKKOS_PYTHON_API_STORAGE static
#endif
KOKKOS_PYTHON_API_STORAGE const kokkos_python_api *kokkos_python_api_table;

/* Imports kokkos (running its Python package) and fetches the table.
 * Returns 0, or -1 with ImportError when kokkos is missing or older than
 * this header. Call from the module's exec / init function. */
static inline int kokkos_python_import(void) {
  const kokkos_python_api *api;
  if (kokkos_python_api_table) return 0;
  api = (const kokkos_python_api *)PyCapsule_Import(KOKKOS_PYTHON_API_CAPSULE, 0);
  if (!api) return -1;
  if (api->version < KOKKOS_PYTHON_API_VERSION) {
    PyErr_Format(PyExc_ImportError,
                 "kokkos._core provides C API version %u, but this module was built against version %d: "
                 "upgrade the kokkos package",
                 (unsigned)api->version, KOKKOS_PYTHON_API_VERSION);
    return -1;
  }
  kokkos_python_api_table = api;
  return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* KOKKOS_PYTHON_H */
