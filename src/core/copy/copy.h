/* copy.h: the copy layer's functions (src/core/copy/): copies between
 * Views, fills, mirrors (copy.c), and deep_copy from any source
 * (deep_copy.c, which sits above exchange/: only files above exchange call
 * it). Included by the copy files and the layers above.
 */
#ifndef KOKKOS_PYTHON_COPY_H
#define KOKKOS_PYTHON_COPY_H

#include "core.h"
#include "model.h"

/* ---- copies between Views, fills, mirrors (copy/copy.c) ------------------------------ */

/* Copy between two Views of the same shape and dtype, any spaces and strides. */
int kp_copy_views(kp_view *dst, kp_view *src, const char *where);
/* Fills dst with one element (itemsize bytes at value); -1 with exception. */
int kp_fill_view(kp_view *dst, const char *value, const char *where);
/* 0 if dst and src have the same extents, else -1 with ValueError showing both. */
int kp_check_same_shape(const kp_view *dst, const kp_view *src, const char *where);
/* Kokkos::create_mirror (view_if_possible = 0) or create_mirror_view (1):
 * a new View in space shaped like src (copy: with its data), or src itself
 * when view_if_possible and space can use src's memory. New reference. */
PyObject *kp_mirror(kp_view *src, int space, int copy, int view_if_possible, const char *where);
PyObject *kp_view_create_mirror(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_view_create_mirror_view(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* Returns a new reference to a View in space with the contents of src (same
 * shape and dtype, contiguous in src's order), labelled label (src's label
 * when NULL); NULL with an exception. */
kp_view *kp_view_copy_to_space(kp_state *st, kp_view *src, int space, PyObject *label, const char *where);

/* ---- deep_copy from any source (copy/deep_copy.c) ---------------------------------- */

/* dst <- src (View, buffer-like object, exchange producer or scalar); -1 with exception. */
int kp_deep_copy(kp_state *st, kp_view *dst, PyObject *src, const char *where);
PyObject *kp_view_deep_copy_method(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_deep_copy_function(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif /* KOKKOS_PYTHON_COPY_H */
