/* access.h: the access layer's functions (src/core/access/): indexing,
 * slicing and slice assignment (index.c), a View of one element as a Python
 * number (scalar.c). Included by the access files and the layers above.
 */
#ifndef KOKKOS_PYTHON_ACCESS_H
#define KOKKOS_PYTHON_ACCESS_H

#include "core.h"
#include "model.h"

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

#endif /* KOKKOS_PYTHON_ACCESS_H */
