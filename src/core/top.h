/* top.h: what the files on top of the core (array.c, view_type.c) hand
 * module.c. Included by the top files only (array.c, view_type.c,
 * module.c).
 */
#ifndef KOKKOS_PYTHON_TOP_H
#define KOKKOS_PYTHON_TOP_H

#include "core.h"

/* kokkos.array, unmanaged_array, asarray and the mirror functions (array.c). */
PyObject *kp_py_array(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_py_unmanaged_array(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_py_asarray(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_py_create_mirror(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_py_create_mirror_view(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_py_create_mirror_view_and_copy(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                            PyObject *kwnames);
/* Makes (module exec; -1 with MemoryError) / frees (module clear) the default-label cache. */
int kp_array_init(kp_state *st);
void kp_array_clear(kp_state *st);
extern const char kp_doc_array[], kp_doc_unmanaged_array[], kp_doc_asarray[], kp_doc_create_mirror[],
    kp_doc_create_mirror_view[], kp_doc_create_mirror_view_and_copy[];

/* Sets the View type's class attributes that no slot declares (view_type.c);
 * -1 with an exception. */
int kp_view_type_add_class_attributes(PyTypeObject *view_type);

#endif /* KOKKOS_PYTHON_TOP_H */
