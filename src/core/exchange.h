/* exchange.h: declarations shared by the zero-copy exchange files of the
 * core: dlpack.c (DLPack both ways, the DLPack C exchange table) and cai.c
 * (__cuda_array_interface__ both ways). Nothing else includes it; the rest
 * of the core reaches them through kp_dlpack_add and kp_view_from_exchange
 * (core.h). */
#ifndef KOKKOS_PYTHON_EXCHANGE_H
#define KOKKOS_PYTHON_EXCHANGE_H

#include "core.h"

/* 1 while the interpreter is shutting down (then deleters leak rather than
 * touch Python objects that may already be gone). */
int kp_interpreter_finalizing(void);

/* __cuda_array_interface__ getter of the View type (cai.c): a new dict for
 * Views in CUDA spaces, AttributeError for others. */
PyObject *kp_view_cuda_array_interface(PyObject *self, void *closure);

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

/* 0 if the elements of an array with these extents and element strides
 * span at most PY_SSIZE_T_MAX bytes; else BufferError naming where, -1. */
int kp_check_span(int rank, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize, const char *where);

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
