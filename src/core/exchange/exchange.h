/* exchange.h: declarations shared by the zero-copy exchange files of the
 * core: buffer.c (the buffer protocol and __array_interface__), interface.c
 * (the one reader of the array-interface dictionaries), cai.c
 * (__cuda_array_interface__ both ways) and dlpack.c (DLPack both ways, the
 * DLPack C exchange table). Only they include it; the rest of the core
 * reaches them through kp_dlpack_add and kp_view_from_exchange (core.h). */
#ifndef KOKKOS_PYTHON_EXCHANGE_H
#define KOKKOS_PYTHON_EXCHANGE_H

#include "core.h"

/* New Unmanaged View over the memory an object describes with
 * __cuda_array_interface__ (cai.c), keeping obj alive; waits on the stream
 * the object names. NULL with an exception: AttributeError when obj has no
 * interface, BufferError / TypeError / ValueError when it cannot be
 * wrapped. */
kp_view *kp_view_from_cai(kp_state *st, PyObject *obj, PyObject *label, const char *where);

/* New Unmanaged View over the memory of a DLPack producer (dlpack.c): a
 * capsule, an object whose type has __dlpack_c_exchange_api__, or an
 * object with __dlpack__. NULL with an exception (TypeError when obj speaks
 * no DLPack, BufferError when its tensor cannot be a View). */
kp_view *kp_view_from_dlpack(kp_state *st, PyObject *obj, PyObject *label, const char *where);

/* Returns a new reference to a View in space with the contents of src (same
 * shape and dtype, contiguous in src's order), labelled label (src's label
 * when NULL); NULL with an exception. */
kp_view *kp_view_copy_to_space(kp_state *st, kp_view *src, int space, PyObject *label, const char *where);

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

/* Orders imported device memory after its producer's stream (a protocol
 * integer): Kokkos' stream waits for it through an event, and the host
 * waits too when it can reach the memory. Initializes Kokkos. -1 with
 * exception (dlpack.c). */
int kp_order_import(int space, uintptr_t producer, const char *where);

/* The memory space for a DLPack device type, or -1 (no error set). */
int kp_space_from_dlpack_device(int32_t device_type);

/* The (device type, device ordinal) a View in space reports to DLPack. */
void kp_dlpack_device_of(int space, int32_t *device_type, int32_t *device_id);

#endif /* KOKKOS_PYTHON_EXCHANGE_H */
