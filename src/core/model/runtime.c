/* runtime.c: the Kokkos runtime as Python sees it: initialize, finalize,
 * fence, the configuration and what this Kokkos offers, and the one
 * auto-initialization rule (kp_runtime_ensure) every entry point applies.
 * Kokkos' finalize hook releases every live allocation (owner.c's registry)
 * whoever finalizes, Python or C++.
 *
 * Python equivalent, roughly:
 *
 *     def _initialize(argv, num_threads, device_id, disable_warnings,
 *                     print_configuration, tools_libs, tools_args) -> bool
 *     def finalize(); def is_initialized(); def is_finalized()
 *     def device_id(); def fence(label=None); def _configuration(detail=False) -> str
 *     def kokkos_version(); def _build_info() -> dict
 *     def _runtime_ensure(where)  # the rule below, for entry points in Python
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "exchange_bridge.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <pythread.h>

/* ---- runtime ------------------------------------------------------------------- */

/* Kokkos calls this at the start of finalize, whoever finalizes, before it
 * tears a backend down. Kokkos is one per process, so the registry it
 * releases is process-wide too. */
static void kp_on_kokkos_finalize(void) {
  if (!Py_IsInitialized()) return; /* the interpreter is gone: an embedding application finalizes */
  PyGILState_STATE g = PyGILState_Ensure();
  kp_owner_release_all();
  PyGILState_Release(g);
}

/* Whether this package initialized Kokkos (kokkos.initialize() or an
 * automatic initialization). Whoever initializes Kokkos finalizes it: the
 * exit handler finalizes only a Kokkos this package initialized, never an
 * application's (a C++ program embedding Python, a C++ library that
 * initialized it first). Kokkos is one per process, and so is this flag. */
static int kp_initialized_here = 0;

/* The thread running Kokkos::initialize (its PyThread ident), 0 otherwise;
 * that thread holds kp_initialize_lock meanwhile. While a Kokkos Tools
 * callback is set, Kokkos::initialize runs without the GIL: a host backend
 * may raise Tools events on its own threads while it starts (Kokkos 3.x's
 * OpenMP allocates each thread's scratch memory inside a parallel region),
 * and a Python callback needs the GIL while this thread waits for those
 * threads. Another Python thread that wants Kokkos meanwhile waits for the
 * lock without the GIL (kp_wait_for_initialize), then goes on with Kokkos
 * initialized; Python run by that initialization (a callback) cannot wait
 * for it and is refused. With no callback set nothing of Python runs in
 * it, and it keeps the GIL. The thread that initializes is decided by the
 * compare-and-swap, not by the GIL, and the wait is on the lock. */
static _Atomic unsigned long kp_initializer = 0;
static PyThread_type_lock kp_initialize_lock = NULL;

/* Runs Kokkos' initialize or finalize (call), without the GIL while a Tools
 * callback is set (above). */
static kp_status kp_run_lifecycle(kp_status (*call)(void *), void *arg) {
  if (!kp_bridge_tools_watching()) return call(arg);
  kp_status s;
  kp_work_lifecycle(1); /* Kokkos tests and calls Tools slots in there: none may be emptied meanwhile */
  Py_BEGIN_ALLOW_THREADS
  s = call(arg);
  Py_END_ALLOW_THREADS
  kp_work_lifecycle(0);
  return s;
}

typedef struct kp_initialize_args {
  int argc;
  char **argv;
  const kp_init_settings *settings;
  kp_error *err;
} kp_initialize_args;

static kp_status kp_call_initialize(void *arg) {
  kp_initialize_args *a = (kp_initialize_args *)arg;
  return kp_bridge_initialize(a->argc, a->argv, a->settings, a->err);
}

static kp_status kp_call_finalize(void *err) { return kp_bridge_finalize((kp_error *)err); }

/* How long one wait for the initializing thread lasts before this thread
 * looks at its signals again, in microseconds. */
#define KP_INITIALIZE_WAIT_SLICE 50000

/* With the GIL, before using, initializing or finalizing Kokkos (what:
 * "kokkos.finalize() called", ...): when another thread is initializing
 * Kokkos, waits for it without the GIL (Ctrl-C, or any signal handler that
 * raises, ends the wait with its exception); refuses Python run by that
 * initialization itself (a Tools callback, in any thread: the
 * initialization waits for it), which could never see it end. 0, or -1
 * with an exception. */
static int kp_wait_for_initialize(const char *what) {
  const unsigned long self = PyThread_get_thread_ident();
  unsigned long owner;
  while ((owner = atomic_load(&kp_initializer)) != 0) {
    const char *event = kp_callback_running();
    if (event) {
      PyErr_Format(PyExc_RuntimeError,
                   "%s from inside a kokkos.tools %s callback while Kokkos is being initialized (by the call that "
                   "raised the event): use Kokkos after kokkos.initialize() returns",
                   what, event);
      return -1;
    }
    if (owner == self) {
      PyErr_Format(PyExc_RuntimeError,
                   "%s while this thread is initializing Kokkos: use Kokkos after kokkos.initialize() returns", what);
      return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    if (PyThread_acquire_lock_timed(kp_initialize_lock, KP_INITIALIZE_WAIT_SLICE, 0) == PY_LOCK_ACQUIRED)
      PyThread_release_lock(kp_initialize_lock);
    Py_END_ALLOW_THREADS
    if (PyErr_CheckSignals() < 0) return -1;
  }
  return 0;
}

/* Initializes Kokkos unless another thread took the initialization first
 * (then waits for it) or it is initialized or finalized already: 1 when
 * this call initialized it, 0 when it did not, -1 with an exception. */
static int kp_initialize_with(int argc, char **argv, const kp_init_settings *settings) {
  unsigned long none = 0;
  if (!atomic_compare_exchange_strong(&kp_initializer, &none, PyThread_get_thread_ident()))
    return kp_wait_for_initialize("Kokkos used");
  PyThread_acquire_lock(kp_initialize_lock, WAIT_LOCK); /* waiters hold it for an instant only */
  kp_error err;
  err.message[0] = 0;
  kp_status s = KP_OK;
  /* Taken while another thread initialized or finalized it (the check
   * before the compare-and-swap is not atomic with it). */
  int ran = !kp_bridge_is_initialized() && !kp_bridge_is_finalized();
  if (ran) {
    kp_initialize_args args = {argc, argv, settings, &err};
    s = kp_run_lifecycle(kp_call_initialize, &args);
  }
  atomic_store(&kp_initializer, 0);
  PyThread_release_lock(kp_initialize_lock);
  if (!ran) return 0;
  if (s != KP_OK) return kp_raise_bridge(s, &err, "kokkos.initialize()");
  kp_initialized_here = 1;
  s = kp_bridge_set_finalize_hook(kp_on_kokkos_finalize, &err);
  if (s != KP_OK) return kp_raise_bridge(s, &err, "kokkos.initialize()");
  return 1;
}

/* Kokkos initialized with defaults, by this thread or (while this one
 * waited) another: 0, or -1 with an exception. */
static int kp_runtime_initialize_default(void) {
  for (;;) {
    if (kp_bridge_is_initialized()) return 0;
    if (kp_bridge_is_finalized()) {
      PyErr_SetString(PyExc_RuntimeError,
                      "Kokkos has been finalized; it cannot be used again in this process "
                      "(Kokkos allows one initialize/finalize per process)");
      return -1;
    }
    kp_init_settings settings = {-1, -1, -1, -1, NULL, NULL};
    int ran = kp_initialize_with(0, NULL, &settings);
    if (ran < 0) return -1;
    if (!ran) continue; /* another thread's initialization ended: look again */
    /* What a higher layer wants said after an automatic initialization (the
     * Tools layer: a library named in the environment that did not load). A
     * warning turned error is dropped: Kokkos is initialized, and the
     * operation goes on. */
    if (kp_runtime_after_auto_init && kp_runtime_after_auto_init("Kokkos initialized on first use") < 0) PyErr_Clear();
    return 0;
  }
}

int kp_runtime_ensure(void) {
  if (atomic_load(&kp_initializer) != 0 && kp_wait_for_initialize("Kokkos used") < 0) return -1;
  if (kp_bridge_is_initialized()) return 0;
  return kp_runtime_initialize_default();
}

int (*kp_runtime_after_auto_init)(const char *where) = NULL;

/* ---- KeyboardInterrupt and SystemExit raised by Python that Kokkos runs ---- */

/* What one thread keeps for its program (kp_interrupt_state, model.h). Per
 * thread, so no lock guards it. */
static _Thread_local kp_interrupt_state t_interrupt;

kp_interrupt_state *kp_interrupt_here(void) { return &t_interrupt; }

/* The main thread's pending call (Py_AddPendingCall runs it at the main
 * thread's next bytecode, where CPython raises Ctrl-C's KeyboardInterrupt):
 * raises what that thread keeps, unless Python run by Kokkos is running
 * (a callback, which raises it at its end instead). */
static int kp_interrupt_pending(void *unused) {
  kp_interrupt_state *t = &t_interrupt;
  t->armed = 0;
  if (!t->kept || t->entries > 0 || kp_callback_running()) return 0;
  PyObject *kept = t->kept;
  t->kept = NULL;
  kp_restore_exception(kept);
  return -1;
}

int kp_interrupt_keep(kp_interrupt_state *t) {
  if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) && !PyErr_ExceptionMatches(PyExc_SystemExit)) return 0;
  if (!PyEval_GetFrame()) {
    /* No Python code of this thread's below the callback: a thread Python
     * did not start (a C++ thread, Kokkos' own), whose thread state goes
     * with the callback. Ctrl-C's KeyboardInterrupt goes to the main thread
     * as a SIGINT does; a SystemExit is reported. */
    if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) return 0;
    PyErr_Clear();
    PyErr_SetInterrupt();
    return 1;
  }
  if (t->kept) return 0; /* the first one is raised, later ones reported */
  t->kept = kp_fetch_exception();
  return 1;
}

/* What the thread keeps is raised: at the end of an entry point of the
 * package when one runs (kp_interrupt_exit); else by the main thread's
 * pending call, or, in another thread, as an exception of its class at
 * that thread's next bytecode (PyThreadState_SetAsyncExc takes a class,
 * not an object). */
void kp_interrupt_arm(kp_interrupt_state *t) {
  if (!t->kept || t->entries > 0) return;
  if (kp_is_main_thread()) {
    if (!t->armed && Py_AddPendingCall(kp_interrupt_pending, NULL) == 0) t->armed = 1;
    return;
  }
  PyObject *kept = t->kept;
  t->kept = NULL;
  PyThreadState_SetAsyncExc(PyThread_get_thread_ident(), (PyObject *)Py_TYPE(kept));
  Py_DECREF(kept);
}

int kp_interrupt_raise(kp_interrupt_state *t, int rc) {
  if (!t->kept) return rc;
  PyObject *kept = t->kept, *raised = kp_fetch_exception();
  t->kept = NULL;
  /* the entry point's own error, if any, is what happened meanwhile */
  PyObject *context = raised && raised != kept ? PyException_GetContext(kept) : NULL;
  if (raised && raised != kept && !context)
    PyException_SetContext(kept, raised); /* steals raised */
  else
    Py_XDECREF(raised);
  Py_XDECREF(context);
  kp_restore_exception(kept);
  return -1;
}

/* ---- the one rule for the text Kokkos sees ------------------------------------------- */

const char *kp_kokkos_text(PyObject *obj, const char *where, const char *what) {
  /* an exact str of ASCII characters is its own UTF-8 */
  if (PyUnicode_CheckExact(obj) && PyUnicode_IS_COMPACT_ASCII(obj)) {
    const char *s = (const char *)PyUnicode_DATA(obj);
    if (!kp_has_nul(s, (size_t)PyUnicode_GET_LENGTH(obj))) return s;
  }
  if (!PyUnicode_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be a str, got %.100s", where, what, Py_TYPE(obj)->tp_name);
    return NULL;
  }
  Py_ssize_t n = 0;
  const char *s = PyUnicode_AsUTF8AndSize(obj, &n);
  if (!s) {
    if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError,
                 "%s: %s must be text that UTF-8 can encode (Kokkos reads UTF-8), got %.80R, which holds a lone "
                 "surrogate (U+D800 to U+DFFF)",
                 where, what, obj);
    return NULL;
  }
  if (memchr(s, 0, (size_t)n)) {
    PyErr_Format(PyExc_ValueError,
                 "%s: %s must not contain NUL characters (Kokkos reads it as a C string, which ends at the first), "
                 "got %.80R",
                 where, what, obj);
    return NULL;
  }
  return s;
}

/* An optional str argument of initialize() as UTF-8 (owned by obj; NULL for None). */
static int kp_optional_utf8(PyObject *obj, const char *name, const char **out) {
  *out = NULL;
  if (obj == NULL || obj == Py_None) return 0;
  *out = kp_kokkos_text(obj, "kokkos.initialize()", name);
  return *out ? 0 : -1;
}

static int kp_optional_int(PyObject *obj, const char *name, int *out) {
  if (obj == NULL || obj == Py_None) return 0;
  long v = PyLong_AsLong(obj);
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Format(PyExc_TypeError, "kokkos.initialize(): %s must be an int", name);
    return -1;
  }
  if (v < 0 || v > 1000000) {
    PyErr_Format(PyExc_ValueError, "kokkos.initialize(): %s must be >= 0, got %ld", name, v);
    return -1;
  }
  *out = (int)v;
  return 0;
}

static int kp_optional_bool(PyObject *obj, int *out) {
  if (obj == NULL || obj == Py_None) return 0;
  int v = PyObject_IsTrue(obj);
  if (v < 0) return -1;
  *out = v;
  return 0;
}

/* _initialize(argv, num_threads, device_id, disable_warnings,
 *             print_configuration, tools_libs, tools_args) -> bool
 * True if this call initialized Kokkos, False if it already was. */
static PyObject *kp_py_initialize(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 7) {
    PyErr_SetString(PyExc_TypeError, "_initialize() takes 7 arguments");
    return NULL;
  }
  if (kp_wait_for_initialize("kokkos.initialize() called") < 0) return NULL;
  if (kp_bridge_is_finalized()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "kokkos.initialize(): Kokkos was finalized and cannot be initialized again in "
                    "this process (Kokkos allows one initialize/finalize per process)");
    return NULL;
  }
  kp_init_settings settings = {-1, -1, -1, -1, NULL, NULL};
  if (kp_optional_int(args[1], "num_threads", &settings.num_threads) < 0 ||
      kp_optional_int(args[2], "device_id", &settings.device_id) < 0 ||
      kp_optional_bool(args[3], &settings.disable_warnings) < 0 ||
      kp_optional_bool(args[4], &settings.print_configuration) < 0 ||
      kp_optional_utf8(args[5], "tools_libs", &settings.tools_libs) < 0 ||
      kp_optional_utf8(args[6], "tools_args", &settings.tools_args) < 0)
    return NULL;

  PyObject *seq = NULL;
  char **argv = NULL;
  Py_ssize_t argc = 0;
  int rc = -1;
  if (args[0] != Py_None) {
    seq = PySequence_Fast(args[0], "kokkos.initialize(): argv must be a sequence of str");
    if (!seq) return NULL;
    argc = PySequence_Fast_GET_SIZE(seq);
    argv = (char **)PyMem_Calloc((size_t)argc + 1, sizeof(char *));
    if (!argv) {
      PyErr_NoMemory();
      goto done;
    }
    for (Py_ssize_t i = 0; i < argc; ++i) {
      char what[32];
      PyOS_snprintf(what, sizeof what, "argv[%zd]", i);
      argv[i] = (char *)kp_kokkos_text(PySequence_Fast_GET_ITEM(seq, i), "kokkos.initialize()", what);
      if (!argv[i]) goto done;
    }
  }
  kp_interrupt_state *t = kp_interrupt_enter();
  rc = kp_interrupt_exit(t, kp_initialize_with((int)argc, argv, &settings));
done:
  PyMem_Free(argv);
  Py_XDECREF(seq);
  if (rc < 0) return NULL;
  return PyBool_FromLong(rc);
}

static PyObject *kp_py_finalize(PyObject *module, PyObject *unused) {
  /* Python that Kokkos runs in the middle of one of its calls (a Tools
   * callback, or a __del__ or weakref callback run inside one): Kokkos
   * cannot finalize under the call, and waiting for it would wait for this
   * very thread. */
  if (kp_work_running_here()) {
    const char *event = kp_callback_running();
    if (event)
      PyErr_Format(PyExc_RuntimeError,
                   "kokkos.finalize() called from inside a kokkos.tools %s callback: Kokkos cannot finalize inside "
                   "a Kokkos operation (the call that raised the event is still running): finalize after it returns",
                   event);
    else
      PyErr_SetString(PyExc_RuntimeError,
                      "kokkos.finalize() called from inside a Kokkos operation of this thread: finalize after it "
                      "returns");
    return NULL;
  }
  if (kp_wait_for_initialize("kokkos.finalize() called") < 0) return NULL;
  if (!kp_bridge_is_initialized()) Py_RETURN_NONE;
  /* Under way in another thread, which gave the GIL up to wait for the work
   * in flight: that call finalizes. */
  if (kp_work_finalizing_elsewhere()) Py_RETURN_NONE;
  /* Other threads' work and callbacks end first (Kokkos' finalize hook
   * would wait for them too, but could not refuse to finalize). */
  if (kp_work_drain_before_finalize("kokkos.finalize()") < 0) return NULL;
  kp_error err;
  err.message[0] = 0;
  kp_status s;
  /* Without the GIL while a Tools callback is set, as initialize: the host
   * backend's threads may raise Tools events (deallocations) while it stops.
   * Other threads' work is refused from here (kp_work_drain_before_finalize). */
  kp_interrupt_state *t = kp_interrupt_enter();
  s = kp_run_lifecycle(kp_call_finalize, &err);
  int rc = 0;
  if (s != KP_OK) {
    kp_work_finalize_abandoned();
    rc = kp_raise_bridge(s, &err, "kokkos.finalize()");
  }
  if (kp_interrupt_exit(t, rc) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *kp_py_is_initialized(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(kp_bridge_is_initialized());
}

static PyObject *kp_py_is_finalized(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(kp_bridge_is_finalized());
}

static PyObject *kp_py_initialized_here(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(kp_initialized_here);
}

/* _runtime_ensure(where): the auto-initialization rule for an entry point
 * written in Python (an execution-space instance's constructor): Kokkos is
 * initialized with defaults when nothing has; RuntimeError naming where once
 * it was finalized. */
static PyObject *kp_py_runtime_ensure(PyObject *module, PyObject *where) {
  if (!PyUnicode_Check(where)) {
    PyErr_Format(PyExc_TypeError, "_runtime_ensure(): where must be a str, got %.100s", Py_TYPE(where)->tp_name);
    return NULL;
  }
  if (kp_bridge_is_finalized() && !kp_bridge_is_initialized()) {
    PyErr_Format(PyExc_RuntimeError,
                 "%U: Kokkos has been finalized; an execution-space instance exists only between "
                 "kokkos.initialize() and kokkos.finalize() (Kokkos allows one initialize/finalize per process)",
                 where);
    return NULL;
  }
  if (kp_runtime_ensure() < 0) return NULL;
  Py_RETURN_NONE;
}

/* device_id(): the GPU Kokkos' device execution space runs on (initializing
 * Kokkos first, as View creation does), or None without a GPU backend. */
static PyObject *kp_py_device_id(PyObject *module, PyObject *unused) {
  int space = kp_bridge_space_available(KP_SPACE_CUDA)  ? KP_SPACE_CUDA
              : kp_bridge_space_available(KP_SPACE_HIP) ? KP_SPACE_HIP
                                                        : -1;
  if (space < 0) Py_RETURN_NONE;
  if (kp_runtime_ensure() < 0) return NULL;
  return PyLong_FromLong(kp_bridge_device_id(space));
}

static PyObject *kp_py_fence(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  const char *label = "kokkos.fence";
  if (nargs > 1) {
    PyErr_SetString(PyExc_TypeError, "kokkos.fence() takes at most 1 argument (label)");
    return NULL;
  }
  if (nargs == 1 && args[0] != Py_None && !(label = kp_kokkos_text(args[0], "kokkos.fence()", "label"))) return NULL;
  kp_interrupt_state *t = kp_interrupt_enter();
  int rc = kp_runtime_ensure();
  if (rc == 0) {
    kp_error err;
    err.message[0] = 0;
    kp_status s = KP_OK;
    KP_KOKKOS_WORK("kokkos.fence()", rc = -1, s = kp_bridge_fence(label, &err));
    if (rc == 0 && s != KP_OK) rc = kp_raise_bridge(s, &err, "kokkos.fence()");
  }
  if (kp_interrupt_exit(t, rc) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *kp_py_configuration(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  int detail = nargs > 0 ? PyObject_IsTrue(args[0]) : 0;
  if (detail < 0) return NULL;
  if (kp_runtime_ensure() < 0) return NULL;
  char *text = NULL;
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_bridge_print_configuration(detail, &text, &err);
  if (s != KP_OK) {
    kp_raise_bridge(s, &err, "kokkos.print_configuration()");
    return NULL;
  }
  PyObject *res = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
  free(text);
  return res;
}

static PyObject *kp_py_kokkos_version(PyObject *module, PyObject *unused) {
  int v = kp_bridge_kokkos_version();
  return Py_BuildValue("(iii)", v / 10000, (v / 100) % 100, v % 100);
}

/* _build_info() -> dict: what this Kokkos offers: the memory spaces and
 * backends it has (tuples indexed like the core's tables, which _tables()
 * in module.c hands over), which spaces the host can reach, its defaults. */
static PyObject *kp_py_build_info(PyObject *module, PyObject *unused) {
  PyObject *spaces = PyTuple_New(KP_SPACE_COUNT), *host = PyTuple_New(KP_SPACE_COUNT);
  PyObject *execs = PyTuple_New(KP_EXEC_COUNT);
  if (!spaces || !host || !execs) goto fail;
  for (int i = 0; i < KP_SPACE_COUNT; ++i) {
    PyTuple_SET_ITEM(spaces, i, PyBool_FromLong(kp_bridge_space_available(i)));
    PyTuple_SET_ITEM(host, i, PyBool_FromLong(kp_bridge_space_host_accessible(i)));
  }
  for (int i = 0; i < KP_EXEC_COUNT; ++i)
    PyTuple_SET_ITEM(execs, i, PyBool_FromLong(kp_bridge_execution_space_available(i)));
  return Py_BuildValue("{sNsNsNsisisisi}", "space_available", spaces, "space_host_accessible", host, "exec_available",
                       execs, "default_memory_space", kp_bridge_default_memory_space(), "default_host_memory_space",
                       kp_bridge_default_host_memory_space(), "default_execution_space",
                       kp_bridge_default_execution_space(), "default_host_execution_space",
                       kp_bridge_default_host_execution_space());
fail:
  Py_XDECREF(spaces);
  Py_XDECREF(host);
  Py_XDECREF(execs);
  return NULL;
}

static PyMethodDef kp_runtime_functions[] = {
    {"_initialize", (PyCFunction)(void (*)(void))kp_py_initialize, METH_FASTCALL,
     "Initialize Kokkos (see kokkos.initialize)."},
    {"finalize", kp_py_finalize, METH_NOARGS,
     "Finalize Kokkos. Views still alive are released first; using them afterwards raises RuntimeError."},
    {"is_initialized", kp_py_is_initialized, METH_NOARGS, "True while Kokkos is initialized."},
    {"is_finalized", kp_py_is_finalized, METH_NOARGS, "True once Kokkos has been finalized."},
    {"_initialized_here", kp_py_initialized_here, METH_NOARGS,
     "True if this package initialized Kokkos (then its exit handler finalizes it)."},
    {"device_id", kp_py_device_id, METH_NOARGS,
     "device_id() -> int or None: the GPU (CUDA or HIP device number) Kokkos' device execution space uses, as chosen "
     "by kokkos.initialize(device_id=...), --kokkos-device-id or --kokkos-map-device-id-by=mpi_rank; initializes "
     "Kokkos if needed. None when this Kokkos has no GPU backend."},
    {"fence", (PyCFunction)(void (*)(void))kp_py_fence, METH_FASTCALL, "fence(label=None): wait for all Kokkos work."},
    {"_runtime_ensure", kp_py_runtime_ensure, METH_O,
     "_runtime_ensure(where): initialize Kokkos if nothing has; RuntimeError naming where once finalized."},
    {"_configuration", (PyCFunction)(void (*)(void))kp_py_configuration, METH_FASTCALL,
     "Kokkos' configuration as printed by Kokkos::print_configuration."},
    {"kokkos_version", kp_py_kokkos_version, METH_NOARGS, "(major, minor, patch) of the Kokkos in use."},
    {"_build_info", kp_py_build_info, METH_NOARGS, "Spaces and backends of the Kokkos in use."},
    {NULL, NULL, 0, NULL}};

int kp_runtime_add(PyObject *module) {
  if (!kp_initialize_lock && !(kp_initialize_lock = PyThread_allocate_lock())) {
    PyErr_NoMemory();
    return -1;
  }
  if (PyModule_AddFunctions(module, kp_runtime_functions) < 0) return -1;
  /* Kokkos runs the hook at finalize even if C++ code finalizes. */
  kp_error err;
  err.message[0] = 0;
  if (kp_bridge_set_finalize_hook(kp_on_kokkos_finalize, &err) != KP_OK)
    return kp_raise_bridge(KP_E_KOKKOS, &err, "import kokkos");
  return 0;
}
