/* tools.h: what tools.c shares with tuning.c (core-internal).
 *
 * tools.c owns the process-wide table of Python callables, one per Kokkos
 * Tools event (kp_tools_event, the tuning events included), and the way a
 * handler calls one from a Kokkos thread: kp_tools_enter takes the GIL and
 * a strong reference to the event's callable, kp_tools_invoke calls it and
 * reports what it raises through the unraisable hook, kp_tools_leave
 * restores the thread's pending exception and releases the GIL.
 */
#ifndef KOKKOS_PYTHON_CORE_TOOLS_H
#define KOKKOS_PYTHON_CORE_TOOLS_H

#include <Python.h>

typedef struct kp_tools_call {
  PyGILState_STATE gil;
  PyObject *fn;      /* strong reference */
  PyObject *saved;   /* exception pending on entry (kp_fetch_exception) */
  const char *outer; /* the callback this thread was inside before (kp_callback_enter) */
} kp_tools_call;

/* Takes the GIL and a strong reference to event's callable: 1, or 0
 * (holding nothing) if no callable is set or Python is gone. */
int kp_tools_enter(int event, kp_tools_call *c);
/* Drops the callable, restores the saved exception, releases the GIL. */
void kp_tools_leave(kp_tools_call *c);
/* Reports the exception set now as unraisable, naming the event; clears it. */
void kp_tools_report(int event, PyObject *fn);
/* Calls c->fn with args (new references, stolen; a NULL entry means building
 * it failed): the result (new reference), or NULL after reporting. */
PyObject *kp_tools_invoke(int event, kp_tools_call *c, PyObject **args, Py_ssize_t nargs);
/* The same, discarding the result. */
void kp_tools_invoke_void(int event, kp_tools_call *c, PyObject **args, Py_ssize_t nargs);

/* str (new reference) from a C string from Kokkos; NULL is "". */
PyObject *kp_tools_str(const char *s);
/* UTF-8 of a str argument without NUL characters (owned by obj); NULL with
 * TypeError / ValueError naming where and what. */
const char *kp_tools_cstr(PyObject *obj, const char *where, const char *what);
/* Initializes Kokkos if needed; -1 with RuntimeError after finalize. */
int kp_tools_require_runtime(const char *where);

#endif /* KOKKOS_PYTHON_CORE_TOOLS_H */
