/* tools.h: the tools layer's functions (src/core/tools/): what module.c
 * calls to add the _tools submodule, then what tools.c shares with
 * tuning.c. Included by the tools files and the top files.
 *
 * tools.c owns the process-wide table of Python callables, one per Kokkos
 * Tools event (kp_tools_event, the tuning events included), and the one way
 * a handler calls one from a Kokkos thread: kp_tools_fire, built on
 * kp_tools_enter (the GIL, a strong reference to the callable, one counted
 * Python call), kp_tools_invoke (the call; what it raises kept for the
 * program or reported) and kp_tools_leave (everything released, the
 * thread's pending exception restored, the GIL released). It also owns the
 * types' one registration (kp_tools_add_types) and the entry points' one
 * bracket around their Kokkos calls (kp_tools_entry_begin / _end).
 */
#ifndef KOKKOS_PYTHON_CORE_TOOLS_H
#define KOKKOS_PYTHON_CORE_TOOLS_H

#include "core.h"
#include "tools_bridge.h"

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
  PyObject *fn;                         /* strong reference */
  PyObject *saved;                      /* exception pending on entry (kp_fetch_exception) */
  const char *outer;                    /* the callback this thread was inside before (kp_callback_enter) */
  struct kp_interrupt_state *interrupt; /* the thread's record (kp_interrupt_here) */
  int entries;                          /* the entry points around it (kp_interrupt_callback_enter) */
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

/* Builds one argument of a callback from C values (ctx): a new reference,
 * or NULL with an exception. */
typedef PyObject *(*kp_tools_builder)(void *ctx);
/* Takes what a callback returned (res, a new reference, or NULL after the
 * error was reported) for Kokkos, into out; consumes res. With the GIL,
 * inside the callback's count (kp_tools_enter). */
typedef void (*kp_tools_taker)(kp_tools_call *c, PyObject *res, void *out);
/* One argument of a callback, as a C value and its kind: made by the
 * KP_ARG_* macros below, each of which says the C type it takes and the
 * Python object it becomes. */
typedef struct kp_tools_arg {
  char kind;
  union {
    const char *s;                  /* 's': a str (NULL is "", bad UTF-8 escaped) */
    long i;                         /* 'i': an int */
    unsigned long long u;           /* 'u': an int */
    size_t n;                       /* 'n': an int */
    const void *p;                  /* 'p': an address, as an int */
    int flag;                       /* '?': a bool */
    const kp_tools_space_handle *h; /* 'h': a SpaceHandle */
    struct {                        /* 'O': what build(ctx) returns */
      kp_tools_builder build;
      void *ctx;
    } o;
  };
} kp_tools_arg;
#define KP_ARG_STR(x) {.kind = 's', .s = (x)}
#define KP_ARG_INT(x) {.kind = 'i', .i = (x)}
#define KP_ARG_UINT(x) {.kind = 'u', .u = (x)}
#define KP_ARG_SIZE(x) {.kind = 'n', .n = (x)}
#define KP_ARG_ADDRESS(x) {.kind = 'p', .p = (x)}
#define KP_ARG_BOOL(x) {.kind = '?', .flag = (x)}
#define KP_ARG_SPACE(x) {.kind = 'h', .h = (x)}
#define KP_ARG_BUILT(fn, c)        \
  {                                \
    .kind = 'O', .o = {(fn), (c) } \
  }
#define KP_TOOLS_MAX_ARGS 8

/* A handler whole, and the one way Python is called from Kokkos: calls
 * event's callable (if set) with the Python objects of args[0..nargs) (at
 * most KP_TOOLS_MAX_ARGS), and hands what it returns to Kokkos through take
 * (NULL: as the event's row says, an id written to out, a uint64_t * or
 * uint32_t * that may be NULL, or nothing). All of it between
 * kp_tools_enter and kp_tools_leave. KP_TOOLS_FIRE(event, take, out,
 * KP_ARG_...(...), ...) counts the arguments. */
void kp_tools_fire(int event, kp_tools_taker take, void *out, const kp_tools_arg *args, Py_ssize_t nargs);
#define KP_TOOLS_FIRE(event, take, out, ...)                                 \
  kp_tools_fire((event), (take), (out), (const kp_tools_arg[]){__VA_ARGS__}, \
                (Py_ssize_t)(sizeof((kp_tools_arg[]){__VA_ARGS__}) / sizeof(kp_tools_arg)))

/* An object of kokkos.tools that holds one Python object, first after the
 * head (Region's name, VariableInfo's candidates, VariableValue's info):
 * the GC protocol of all of them. */
typedef struct kp_tools_holder {
  PyObject_HEAD
  PyObject *held;
} kp_tools_holder;
int kp_tools_holder_traverse(PyObject *self, visitproc visit, void *arg);
int kp_tools_holder_clear(PyObject *self);
void kp_tools_holder_dealloc(PyObject *self);
/* Those three as the rows of a type's slots (with Py_TPFLAGS_HAVE_GC). */
/* clang-format off */
#define KP_TOOLS_HOLDER_SLOTS \
  {Py_tp_dealloc, kp_tools_holder_dealloc}, {Py_tp_traverse, kp_tools_holder_traverse}, {Py_tp_clear, kp_tools_holder_clear}
/* clang-format on */

/* A type of kokkos.tools, said once: its name (after "kokkos.tools."), C
 * struct, flags (Py_TPFLAGS_DEFAULT added) and slots. */
#define KP_TOOLS_SPEC(NAME, STRUCT, FLAGS, SLOTS) \
  {.name = "kokkos.tools." NAME, .basicsize = sizeof(STRUCT), .flags = Py_TPFLAGS_DEFAULT | (FLAGS), .slots = (SLOTS)}
/* Makes count types from specs, adds each to the submodule sub by its name
 * and keeps a strong reference in types[i] (process-wide state, for the
 * handlers); -1 with an exception. */
int kp_tools_add_types(PyObject *sub, PyType_Spec *specs, int count, PyTypeObject **types);

/* str (new reference) from a C string from Kokkos; NULL is "". */
PyObject *kp_tools_str(const char *s);
/* Around an entry point's Kokkos calls: kp_tools_entry_begin initializes
 * Kokkos if needed: the thread's interrupt record to end with, or NULL with
 * an exception (nothing to end); kp_tools_entry_end(t, where, rc, s, err),
 * with rc the entry point's result so far (0, or -1 with an exception set)
 * and s the bridge's status (its error in err), returns 0 or -1 with an
 * exception: the bridge's error, and a KeyboardInterrupt or SystemExit that
 * a callback raised meanwhile (kp_interrupt_exit). */
struct kp_interrupt_state *kp_tools_entry_begin(const char *where);
int kp_tools_entry_end(struct kp_interrupt_state *t, const char *where, int rc, kp_status s, const kp_error *err);

#endif /* KOKKOS_PYTHON_CORE_TOOLS_H */
