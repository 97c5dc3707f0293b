/* tools.h: the tools layer's functions (src/core/tools/): what module.c
 * calls to add the _tools submodule, then what tools.c shares with
 * tuning.c. Included by the tools files and the top files.
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

#include "core.h"

/* ---- what module.c calls ------------------------------------------------- */

/* Adds the Kokkos Tools submodule kokkos._core._tools (tools.c): the
 * submodule (borrowed: module holds it), or NULL on error. */
PyObject *kp_tools_add(PyObject *module);
/* Adds the tuning types and calls to that submodule and registers the
 * tuning handlers with the bridge (tuning.c); -1 on error. */
int kp_tuning_add(PyObject *tools_module);
/* After Kokkos initialized: a RuntimeWarning, naming where (the call that
 * initialized it), when a Tools library was asked for (tools_libs, the
 * initialize() keyword, may be NULL; or the environment) but none is loaded,
 * saying which variable this Kokkos reads. 0, or -1 when the warning was
 * turned into an error (tools.c). */
int kp_tools_warn_unloaded(const char *where, const char *tools_libs);
/* kp_tools_warn_unloaded(where, NULL): the hook kp_runtime_after_auto_init
 * points at (tools.c). */
int kp_tools_warn_after_auto_init(const char *where);

/* ---- shared by tools.c and tuning.c -------------------------------------- */

typedef struct kp_tools_call {
  PyGILState_STATE gil;
  PyObject *fn;      /* strong reference */
  PyObject *saved;   /* exception pending on entry (kp_fetch_exception) */
  const char *outer; /* the callback this thread was inside before (kp_callback_enter) */
  int entries;       /* the entry points around it (kp_interrupt_callback_enter) */
  int foreign;       /* the thread had no Python thread state: Kokkos' own */
  int event;
} kp_tools_call;

/* Takes the GIL and a strong reference to event's callable, and counts one
 * Python call (Py_EnterRecursiveCall): 1, or 0 (holding nothing) if no
 * callable is set, Python is gone, or the recursion limit is reached (the
 * RecursionError reported). Everything the handler makes is released
 * before kp_tools_leave. */
int kp_tools_enter(int event, kp_tools_call *c);
/* Drops the callable, ends the call's count, restores the saved exception,
 * releases the GIL. */
void kp_tools_leave(kp_tools_call *c);
/* The exception set now, from c's callback or about it: a KeyboardInterrupt
 * or SystemExit is kept for the program (kp_interrupt_keep), anything else
 * reported as unraisable naming the event; none is set after. */
void kp_tools_report(const kp_tools_call *c);
/* Calls c->fn with args (new references, stolen; a NULL entry means building
 * it failed): the result (new reference), or NULL after reporting. */
PyObject *kp_tools_invoke(kp_tools_call *c, PyObject **args, Py_ssize_t nargs);
/* The same, discarding the result. */
void kp_tools_invoke_void(kp_tools_call *c, PyObject **args, Py_ssize_t nargs);

/* str (new reference) from a C string from Kokkos; NULL is "". */
PyObject *kp_tools_str(const char *s);
/* Initializes Kokkos if needed; -1 with RuntimeError after finalize. */
int kp_tools_require_runtime(const char *where);
/* Around an entry point's Kokkos calls: kp_tools_entry_begin initializes
 * Kokkos if needed (0, or -1 with an exception and nothing to end);
 * kp_tools_entry_end(where, rc, s, err), with rc the entry point's result
 * so far (0, or -1 with an exception set) and s the bridge's status (its
 * error in err), returns 0 or -1 with an exception: the bridge's error,
 * and a KeyboardInterrupt or SystemExit that a callback raised meanwhile
 * (kp_interrupt_exit). */
int kp_tools_entry_begin(const char *where);
int kp_tools_entry_end(const char *where, int rc, kp_status s, const kp_error *err);

#endif /* KOKKOS_PYTHON_CORE_TOOLS_H */
