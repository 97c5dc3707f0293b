/* exchange.h: the exchange layer's functions and types (src/core/exchange/):
 * first what the layers above call (kp_view_from_exchange, the View
 * methods, the Python entry points), then what the zero-copy exchange files
 * share. Included by the exchange files and the layers above
 * (copy/deep_copy.c up).
 *
 * The files, each calling only those listed below it (no circle):
 *   import.c      which protocol an import takes (kp_view_from_exchange)
 *   dlpack_api.c  the View type's DLPack C exchange table
 *   dlpack_import.c  DLPack import: capsules, exchange tables, from_dlpack
 *   dlpack.c      DLPack export (__dlpack__) and the device and dtype mappings
 *   cai.c         __cuda_array_interface__ both ways
 *   buffer.c      the buffer protocol and __array_interface__ both ways
 *   interface.c   the one reader of the interface dictionaries
 *   stream.c      ordering exchanged memory between Kokkos' and foreign streams
 * capi.c (the C API) and pickling.c use the first part only. */
#ifndef KOKKOS_PYTHON_EXCHANGE_H
#define KOKKOS_PYTHON_EXCHANGE_H

#include "core.h"
#include "base.h"
#include "dlpack.h"
#include "model.h"

/* ---- what the layers above call ------------------------------------------ */

/* ---- buffers (buffer.c) ------------------------------------------------------------ */

int kp_view_getbuffer(PyObject *self, Py_buffer *view, int flags);
void kp_view_releasebuffer(PyObject *self, Py_buffer *view);
PyObject *kp_view_array_interface(kp_view *self, void *closure);
/* New View over obj's memory (buffer protocol or __array_interface__),
 * keeping obj alive; NULL with an exception naming where (TypeError if obj
 * exposes neither). */
kp_view *kp_view_from_buffer_object(kp_state *st, PyObject *obj, int writable, PyObject *label, int dynamic,
                                    const char *where);

PyObject *kp_py_wrap(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* ---- C API (capi.c) ------------------------------------------------------------------ */

/* Publishes the C function table as kokkos._core._C_API; -1 with exception. */
int kp_capi_add(PyObject *module);
/* Drops the C API's label cache (module clear). */
void kp_capi_clear(kp_state *st);
/* Makes the exchange protocols' names and constants (st->dl) (import.c); -1
 * with an exception. */
int kp_exchange_init(kp_state *st);
/* A new capsule holding the View type's DLPack C exchange table, the value
 * of its class attribute __dlpack_c_exchange_api__ (dlpack_api.c). */
PyObject *kp_dlpack_exchange_api_capsule(void);
/* from_dlpack(x, /, *, device=None, copy=None, label=None) (dlpack_import.c). */
PyObject *kp_py_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* _view_from_object(obj, label=None): kokkos.asarray's zero-copy step, and
 * _from_cuda_array_interface(obj, label=None): the CAI import alone, for
 * objects that also speak DLPack (import.c). */
PyObject *kp_py_view_from_object(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_py_from_cuda_array_interface(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* View methods whose bodies live with their protocol; view_type.c lists them in
 * the View type's one method and getset table. */
/* __dlpack__(*, stream, max_version, dl_device, copy) (dlpack.c). */
PyObject *kp_view_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* __dlpack_device__() (dlpack.c). */
PyObject *kp_view_dlpack_device(PyObject *self, PyObject *unused);
/* __cuda_array_interface__ getter (cai.c): a new dict for Views in CUDA
 * spaces, AttributeError for others. */
PyObject *kp_view_cuda_array_interface(PyObject *self, void *closure);
/* __reduce_ex__(protocol) (pickling.c): calls kokkos.pickling's reducer. */
PyObject *kp_view_reduce_ex(PyObject *self, PyObject *protocol);
/* New View sharing obj's memory through DLPack, __cuda_array_interface__,
 * __array_interface__ or the buffer protocol (obj itself if a View); NULL
 * with an exception naming where, the caller ("kokkos.deep_copy()")
 * (import.c). */
kp_view *kp_view_from_exchange(kp_state *st, PyObject *obj, PyObject *label, const char *where);

/* _view_from_bytes(buf, dtype, shape, layout, label, dynamic, traits): an
 * Unmanaged View over a contiguous buffer, for unpickling (pickling.c). */
PyObject *kp_py_view_from_bytes(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* ---- shared by the exchange files ---------------------------------------- */

/* Whether a DLPack device type is one of a CUDA space's (device, pinned
 * host, managed) or a HIP space's (ROCm device, pinned host): read from the
 * memory-space rows. */
static inline int kp_dl_is_cuda_device(int32_t t) { return kp_dlpack_device_backend(t) == KP_BACKEND_CUDA; }
static inline int kp_dl_is_rocm_device(int32_t t) { return kp_dlpack_device_backend(t) == KP_BACKEND_HIP; }

/* ---- interface dicts (interface.c) -------------------------------------------- */

/* What kp_interface_read is reading, for its messages and limits. */
typedef struct kp_interface_ctx {
  const char *where; /* the entry point: "kokkos.asarray()" */
  const char *name;  /* "__array_interface__" or "__cuda_array_interface__" */
  int max_rank;      /* KP_MAX_RANK, one less for a DynRankView */
  int cuda;          /* 1: version is required and stream is read */
} kp_interface_ctx;

/* An interface dict, read and checked. */
typedef struct kp_interface {
  int dtype;
  int rank;
  Py_ssize_t shape[KP_MAX_RANK];
  Py_ssize_t strides[KP_MAX_RANK]; /* in elements */
  void *data;
  int readonly;
  size_t bytes; /* size * itemsize */
  int has_stream;
  long long stream; /* when has_stream: never 0 */
} kp_interface;

/* Reads an interface dict into out; -1 with the exception interface.c's
 * policy names (TypeError, ValueError, OverflowError, BufferError). */
int kp_interface_read(PyObject *dict, const kp_interface_ctx *ctx, kp_interface *out);

/* ---- __cuda_array_interface__ (cai.c) ------------------------------------------ */

/* Reads a __cuda_array_interface__ dict (interface.c's policy). -1 with exception. */
int kp_cai_read(PyObject *dict, const char *where, kp_interface *out);
/* New Unmanaged View over the memory in (read from obj's interface),
 * keeping obj alive; Kokkos waits for the stream the interface names.
 * NULL with BufferError / RuntimeError. */
kp_view *kp_view_from_cai_interface(kp_state *st, PyObject *obj, const kp_interface *in, PyObject *label,
                                    const char *where);
/* Both: obj.__cuda_array_interface__ read and wrapped. NULL with an exception
 * (AttributeError when obj has no interface). */
kp_view *kp_view_from_cai(kp_state *st, PyObject *obj, PyObject *label, const char *where);

/* ---- stream ordering (stream.c) ----------------------------------------------- */

/* Blocks until Kokkos' queued work is done (a fence named label, for Kokkos
 * Tools), GIL released; -1 with an exception naming where. */
int kp_fence_kokkos(const char *label, const char *where);

/* Orders imported device memory after its producer's stream (a protocol
 * integer): Kokkos' stream waits for it through an event, and the host
 * waits too when it can reach the memory. Initializes Kokkos. -1 with
 * exception. */
int kp_order_import(int space, uintptr_t producer, const char *where);
/* Orders a consumer's use of exported memory in space, seen from DLPack
 * device_type, after the work Kokkos queued so far: on a CUDA or ROCm
 * device the consumer's stream (a protocol integer) waits for Kokkos'
 * stream through an event (the host does not block); a host consumer of
 * device-backed memory waits for all of Kokkos' work. Nothing for HostSpace
 * or before Kokkos is initialized. -1 with exception. */
int kp_order_export(int space, int32_t device_type, uintptr_t consumer, const char *where);

/* ---- DLPack (dlpack.c: export and the mappings; dlpack_import.c: import) ------ */

/* Parses copy=None/True/False into -1/1/0 in *out; -1 with TypeError. */
int kp_dl_parse_copy(PyObject *obj, const char *where, int *out);
/* Parses what (a tuple of two ints, such as a DLPack device or version)
 * into *a and *b; -1 with TypeError or OverflowError. */
int kp_dl_parse_int_pair(PyObject *obj, const char *what, const char *where, long *a, long *b);
/* The name of a DLPack device type ("CUDA"), "unknown" for others. */
const char *kp_dl_device_name(int32_t device_type);
/* The memory space for a DLPack device type, or -1 (no error set). */
int kp_space_from_dlpack_device(int32_t device_type);
/* The (device type, device ordinal) a View in space reports to DLPack. */
void kp_dlpack_device_of(int space, int32_t *device_type, int32_t *device_id);

/* Storage for a described tensor's shape and strides. */
typedef struct kp_dl_shape {
  int64_t shape[KP_MAX_RANK];
  int64_t strides[KP_MAX_RANK]; /* in elements */
} kp_dl_shape;

/* The one description of a View as a DLTensor: fills *t with v's memory as
 * seen from DLPack device (device_type, device_id), its dtype, and its shape
 * and strides (always filled, as DLPack 1.2 requires). copy: where the
 * shape and strides are written and t points; NULL makes t point into the
 * View itself, where Py_ssize_t is int64_t (SIZEOF_SIZE_T == 8 only). */
void kp_dl_describe(const kp_view *v, int32_t device_type, int32_t device_id, kp_dl_shape *copy, kp_dl_tensor *t);

/* An export of a View's memory: the managed tensor a consumer receives, its
 * shape and strides, and a counted strong reference to the Allocation. */
typedef struct kp_dl_export {
  union {
    kp_dl_managed_tensor_versioned versioned;
    kp_dl_managed_tensor legacy;
  } managed;         /* first: the managed tensor's address is the export's */
  kp_owner *owner;   /* strong reference, counted in owner->exports; NULL for empty Views */
  kp_dl_shape shape; /* what the tensor's shape and strides point at */
} kp_dl_export;

/* A new export of v's memory as seen from device (dev_type, dev_id): the
 * versioned struct (with minor and flags) or the legacy one; its deleter
 * calls kp_dl_export_release. NULL with MemoryError. */
kp_dl_export *kp_dl_export_new(kp_view *v, int versioned, uint32_t minor, int32_t dev_type, int32_t dev_id,
                               uint64_t flags);
/* Drops an export: uncounts and releases the Allocation, frees the block.
 * Any thread, GIL held or not; leaks at interpreter shutdown. */
void kp_dl_export_release(kp_dl_export *e);

/* The dtype index of a DLPack data type, or -1 (no error set). */
int kp_dl_dtype_index(kp_dl_data_type dt);
/* BufferError naming where: dt has no View dtype. */
void kp_dl_raise_dtype(const char *where, kp_dl_data_type dt);
/* A new Unmanaged View over the tensor of managed (versioned or legacy),
 * whose ownership this call takes: on failure it calls the deleter. */
kp_view *kp_view_from_dl_managed(kp_state *st, void *managed, int versioned, PyObject *label, const char *where);
/* 1 if type has a DLPack C exchange table of a version this project reads,
 * 0 if not, -1 with BufferError if its prev_api chain loops or is too long. */
int kp_dl_has_exchange_api(kp_state *st, PyTypeObject *type);
/* New Unmanaged View over the memory of a DLPack producer: a capsule, an
 * object whose type has __dlpack_c_exchange_api__, or an object with
 * __dlpack__. NULL with an exception (TypeError when obj speaks no DLPack,
 * BufferError when its tensor cannot be a View). */
kp_view *kp_view_from_dlpack(kp_state *st, PyObject *obj, PyObject *label, const char *where);

#endif /* KOKKOS_PYTHON_EXCHANGE_H */
