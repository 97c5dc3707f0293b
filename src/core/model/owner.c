/* owner.c: Allocation, the reference-counted owner of a View's memory.
 *
 * Ownership rules:
 * - Every View holds a strong reference to the Allocation of its memory;
 *   subviews, mirror views of host Views and exported buffers share it, so
 *   the memory goes when the last of them goes.
 * - KP_OWNER_KOKKOS memory came from the space's allocate (through the
 *   bridge) and is freed with its deallocate, the same label and size. KP_OWNER_PYOBJECT memory belongs to a Python
 *   exporter that the Allocation keeps alive. KP_OWNER_EXTERNAL memory is
 *   released by a deleter given through the C API (a C++ View's reference
 *   count, kept in the Allocation's inline_ctx) or by DLPack's deleter.
 * - Only KP_OWNER_PYOBJECT Allocations reference Python objects that the
 *   cycle collector can see (the exporter, the buffer's object), so only
 *   they are tracked; a deleter's context is opaque to the collector.
 * - Kokkos aborts or throws when its memory is freed after finalize. So
 *   Kokkos-bound Allocations sit in a registry; when Kokkos finalizes (ours
 *   or the application's Kokkos::finalize, through a finalize hook) each is
 *   freed first and marked released. Memory still exported to a consumer
 *   (buffer, DLPack) at that point is left allocated rather than freed under
 *   the consumer's feet. Views of released memory raise RuntimeError.
 * - Kokkos work that other threads run without the GIL (copies, fills,
 *   allocations, fences, stream waits, Tools calls) is counted: finalize waits for it before it
 *   releases the registry, and refuses new work (kp_work_begin, model.h).
 * Kokkos is one per process, so the registry is process-wide.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "host_register.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <structmember.h>

static kp_owner *kp_registry = NULL;

#if defined(__GNUC__)
/* LeakSanitizer's interface: resolved only when a sanitizer runtime is in
 * the process (scripts/suite.py --sanitize address), NULL otherwise. */
extern void __lsan_ignore_object(const void *p) __attribute__((weak));
#endif

static void registry_add(kp_owner *o) {
  o->prev = NULL;
  o->next = kp_registry;
  if (kp_registry) kp_registry->prev = o;
  kp_registry = o;
  o->registered = 1;
}

static void registry_remove(kp_owner *o) {
  if (!o->registered) return;
  if (o->prev)
    o->prev->next = o->next;
  else
    kp_registry = o->next;
  if (o->next) o->next->prev = o->prev;
  o->prev = o->next = NULL;
  o->registered = 0;
}

/* Gives a Kokkos block back: kept for reuse when it may be (host_blocks.c),
 * else to Kokkos the way it was allocated, the same label and size. */
static kp_status owner_give_back(int space, const char *label, void *data, size_t bytes, int reusable, kp_error *err) {
  if (reusable && kp_host_block_keep(data, bytes)) return KP_OK;
  return kp_bridge_deallocate(space, label, data, bytes, err);
}

/* A label's UTF-8 text for Kokkos, or NULL with an exception. An ASCII
 * str (every default label, most given ones) is its own UTF-8: no call. */
static const char *label_text(PyObject *label) {
  if (!label) return "";
  if (PyUnicode_IS_COMPACT_ASCII(label)) return (const char *)PyUnicode_DATA(label);
  return PyUnicode_AsUTF8(label);
}

/* Returns KP_OWNER_KOKKOS memory (owner_give_back); err is set on failure. */
static kp_status owner_deallocate(kp_owner *o, kp_error *err) {
  if (o->reusable && kp_host_block_keep(o->data, o->bytes)) return KP_OK; /* no label needed */
  const char *label = label_text(o->label);
  if (!label) {
    PyErr_Clear();
    label = "";
  }
  return kp_bridge_deallocate(o->space, label, o->data, o->bytes, err);
}

/* Gives back the host pages registered for o (reach.c), if any. */
static void owner_give_back_registration(kp_owner *o) {
  kp_bridge_host_unregister(o->registration);
  o->registration = NULL;
}

/* Frees the memory of a registered Allocation now (Kokkos still alive). */
static void owner_free_memory(kp_owner *o) {
  if (o->released) return;
  o->released = 1;
  owner_give_back_registration(o);
  if (o->kind == KP_OWNER_KOKKOS && o->data) {
    kp_error err;
    err.message[0] = 0;
    if (owner_deallocate(o, &err) != KP_OK) {
      /* Never let it cross into Python as a crash; report and move on. */
      PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "kokkos: freeing View memory failed: %s", err.message);
      PyErr_Clear();
    }
  } else if (o->kind == KP_OWNER_EXTERNAL && o->deleter) {
    o->deleter(o->deleter_ctx);
  }
  o->data = NULL;
}

/* ---- Kokkos work in flight, Python that Kokkos runs (model.h) ---- */

/* What one thread is doing: its counted Kokkos calls (kp_work_begin) and the
 * Kokkos Tools callbacks it is inside (kp_callback_enter), the innermost
 * named. A thread is listed while either is above zero; both end before the
 * thread can, so a listed record is alive. Read and written with the GIL. */
typedef struct kp_thread_work {
  int work;
  int callbacks;
  const char *callback;
  int listed;
  struct kp_thread_work *prev, *next;
} kp_thread_work;

static _Thread_local kp_thread_work t_self;
static kp_thread_work *kp_busy_threads;
static unsigned long kp_work_finalizer; /* the thread finalizing; 0 before Kokkos' finalize starts */
static void (*kp_work_idle_hook)(void); /* kp_work_on_idle */
static int kp_lifecycle_running;        /* Kokkos' initialize or finalize without the GIL (kp_work_lifecycle) */

static void thread_update(void) {
  kp_thread_work *t = &t_self;
  int busy = t->work > 0 || t->callbacks > 0;
  if (busy && !t->listed) {
    t->prev = NULL;
    t->next = kp_busy_threads;
    if (kp_busy_threads) kp_busy_threads->prev = t;
    kp_busy_threads = t;
    t->listed = 1;
  } else if (!busy && t->listed) {
    if (t->prev)
      t->prev->next = t->next;
    else
      kp_busy_threads = t->next;
    if (t->next) t->next->prev = t->prev;
    t->prev = t->next = NULL;
    t->listed = 0;
  }
}

int kp_work_begin(const char *where) {
  /* Once finalize is over (Kokkos no longer initialized), the bridge call
   * itself says Kokkos has been finalized: nothing is left to wait for. */
  if (kp_work_finalizer && kp_bridge_is_initialized()) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s: Kokkos is being finalized (by another thread, the exit handler or the application) and "
                 "cannot be used any more in this process",
                 where);
    return -1;
  }
  ++t_self.work;
  thread_update();
  return 0;
}

int kp_work_idle(void) { return kp_busy_threads == NULL && kp_lifecycle_running == 0; }

static void work_maybe_idle(void) {
  if (kp_work_idle_hook && kp_work_idle()) kp_work_idle_hook();
}

void kp_work_end(void) {
  --t_self.work;
  thread_update();
  work_maybe_idle();
}

void kp_work_lifecycle(int running) {
  kp_lifecycle_running += running ? 1 : -1;
  work_maybe_idle();
}

void kp_work_on_idle(void (*hook)(void)) { kp_work_idle_hook = hook; }

const char *kp_callback_enter(const char *event) {
  const char *outer = t_self.callback;
  t_self.callback = event;
  ++t_self.callbacks;
  thread_update();
  return outer;
}

void kp_callback_leave(const char *outer) {
  t_self.callback = outer;
  --t_self.callbacks;
  thread_update();
}

const char *kp_callback_running(void) { return t_self.callbacks > 0 ? t_self.callback : NULL; }

int kp_work_running_here(void) { return t_self.work > 0 || t_self.callbacks > 0; }

int kp_work_finalizing_elsewhere(void) { return kp_work_finalizer && PyThread_get_thread_ident() != kp_work_finalizer; }

/* The longest finalize waits for other threads' Tools callbacks, in seconds:
 * KOKKOS_PYTHON_FINALIZE_WAIT, or 30. */
static double work_wait_limit(void) {
  const char *env = getenv("KOKKOS_PYTHON_FINALIZE_WAIT");
  if (env && *env) {
    char *end = NULL;
    double v = strtod(env, &end);
    if (end && *end == '\0' && v >= 0) return v;
  }
  return 30.0;
}

static double monotonic_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* With the GIL: refuses new work, then waits until no other thread is busy
 * (inside a counted Kokkos call or a Tools callback), giving the GIL up
 * meanwhile (the work needs it to end, and so does a Python callback inside
 * it). This thread's own work is not waited for: it cannot end while this
 * thread waits. Kokkos work alone always ends; a Python callback may wait
 * for this very thread, so once one has been running past the limit the
 * wait gives up. Once the interpreter shuts down, a daemon thread never gets
 * the GIL back: then it does not wait either (the process is ending).
 * Returns 1 when no other thread is busy; 0 when it gave up, with *stuck the
 * event of the callback another thread is inside (NULL: shutdown); when
 * interruptible (Python's finalize), -1 with the exception a signal
 * handler raised (Ctrl-C's KeyboardInterrupt), checked between waits. */
static int work_drain(const char **stuck, double *limit, int interruptible) {
  kp_work_finalizer = PyThread_get_thread_ident();
  *limit = work_wait_limit();
  *stuck = NULL;
  const double start = monotonic_seconds();
  for (;;) {
    /* (a daemon thread may end inside a callback then: the list is not read) */
    if (kp_is_finalizing()) return kp_busy_threads == NULL;
    const kp_thread_work *other = NULL, *in_callback = NULL;
    for (const kp_thread_work *t = kp_busy_threads; t; t = t->next) {
      if (t == &t_self) continue;
      other = t;
      if (t->callbacks > 0) in_callback = t;
    }
    if (!other) return 1;
    if (in_callback && monotonic_seconds() - start >= *limit) {
      *stuck = in_callback->callback;
      return 0;
    }
    Py_BEGIN_ALLOW_THREADS
    struct timespec pause = {0, 100000}; /* 0.1 ms */
    nanosleep(&pause, NULL);
    Py_END_ALLOW_THREADS
    if (interruptible && PyErr_CheckSignals() < 0) return -1;
  }
}

int kp_work_drain_before_finalize(const char *where) {
  const char *stuck;
  double limit;
  /* At interpreter shutdown, Kokkos' finalize hook leaves the memory of the
   * work that cannot end to it. */
  int drained = work_drain(&stuck, &limit, 1);
  if (drained < 0) {
    kp_work_finalizer = 0; /* interrupted: work may go on */
    return -1;
  }
  if (drained || !stuck) return 0;
  kp_work_finalizer = 0; /* not finalizing after all: work may go on */
  char seconds[32];      /* PyErr_Format has no %g */
  snprintf(seconds, sizeof seconds, "%g", limit);
  PyErr_Format(PyExc_RuntimeError,
               "%s: another thread is still inside a kokkos.tools %s callback after %s s of waiting for it "
               "(KOKKOS_PYTHON_FINALIZE_WAIT sets how long), perhaps waiting for this thread; Kokkos is still "
               "initialized: finalize again once that callback has returned",
               where, stuck, seconds);
  return -1;
}

void kp_work_finalize_abandoned(void) {
  if (kp_bridge_is_initialized()) kp_work_finalizer = 0;
}

void kp_owner_release_all(void) {
  const char *stuck;
  double limit;
  /* Memory that work still running may use (this thread's own, when the
   * application's Kokkos::finalize runs inside a callback of it, or another
   * thread's that the wait gave up on) stays allocated: it is marked
   * released but never freed, like memory a consumer holds. */
  int keep = !work_drain(&stuck, &limit, 0) || t_self.work > 0;
  if (stuck) {
    char seconds[32]; /* PySys_WriteStderr has no %g */
    snprintf(seconds, sizeof seconds, "%g", limit);
    PySys_WriteStderr(
        "kokkos: Kokkos is being finalized while another thread is still inside a kokkos.tools %s "
        "callback after %s s (KOKKOS_PYTHON_FINALIZE_WAIT); the memory of Views is left allocated\n",
        stuck, seconds);
  }
  while (kp_registry) {
    kp_owner *o = kp_registry;
    registry_remove(o);
    if (keep || o->exports > 0 || o->interface_exported) {
      /* A consumer still reads this memory, or work still running may:
       * leave it allocated. Kokkos cannot free it after finalize, so it is
       * never freed: by design. */
      o->released = 1;
#if defined(__GNUC__)
      if (__lsan_ignore_object && o->data) __lsan_ignore_object(o->data);
#endif
      continue;
    }
    owner_free_memory(o);
  }
  /* the blocks kept for reuse, those just freed among them */
  kp_host_blocks_release();
}

static kp_owner *owner_new(kp_state *st, kp_owner_kind kind, int space, void *data) {
  kp_owner *o = PyObject_GC_New(kp_owner, st->allocation_type);
  if (!o) return NULL;
  o->kind = kind;
  o->space = space;
  o->data = data;
  o->label = NULL;
  o->exporter = NULL;
  o->has_buffer = 0;
  o->bytes = 0;
  o->deleter = NULL;
  o->deleter_ctx = NULL;
  o->tag = NULL;
  o->released = 0;
  o->registered = 0;
  o->exports = 0;
  o->interface_exported = 0;
  o->reach = 0;
  o->registration = NULL;
  o->queued = 0;
  o->reusable = 0;
  o->prev = o->next = NULL;
  o->weakreflist = NULL;
  /* tracked by the GC only where it references other objects: the callers */
  return o;
}

kp_owner *kp_owner_allocate(kp_state *st, int space, PyObject *label, size_t bytes, int zero) {
  const char *clabel = label_text(label);
  if (!clabel) return NULL;
  void *p = NULL;
  kp_error err;
  err.message[0] = 0;
  kp_status s = KP_OK;
  int in_flight = 0;
  /* A small host block is kept for reuse when no Tools library watches
   * allocations (host_blocks.c); while one does, each goes through Kokkos. */
  int reusable = space == KP_SPACE_HOST && bytes <= KP_HOST_BLOCK_MAX && !kp_bridge_tools_watching();
  /* Set while Kokkos allocates: what its Tools callbacks raise to end the
   * program (KeyboardInterrupt, SystemExit) is raised below, the memory
   * given back. A block kept for reuse calls no Kokkos. */
  kp_interrupt_state *t = NULL;
  if (reusable && (p = kp_host_block_take(bytes)) != NULL) {
    if (zero) memset(p, 0, bytes);
  } else if (space == KP_SPACE_HOST && bytes < ((size_t)1 << 16)) {
    /* small host allocations: taking the GIL back costs more than they do */
    t = kp_interrupt_enter();
    s = kp_bridge_allocate(space, clabel, bytes, zero, &p, &err);
  } else {
    /* work in flight until the owner is registered, so that a finalize
     * waiting for it releases this memory too */
    if (kp_work_begin("kokkos.View") < 0) return NULL;
    in_flight = 1;
    t = kp_interrupt_enter();
    Py_BEGIN_ALLOW_THREADS
    s = kp_bridge_allocate(space, clabel, bytes, zero, &p, &err);
    Py_END_ALLOW_THREADS
  }
  kp_owner *o = NULL;
  if (s != KP_OK) {
    kp_raise_bridge(s, &err, "kokkos.View");
  } else if (t && kp_bridge_is_finalized()) {
    /* The application's Kokkos::finalize ran inside a Tools callback of this
     * allocation: Kokkos cannot free the memory any more; it is left. */
#if defined(__GNUC__)
    if (__lsan_ignore_object && p) __lsan_ignore_object(p);
#endif
    PyErr_Format(PyExc_RuntimeError,
                 "kokkos.View: Kokkos was finalized while the View '%s' was being allocated (from a Kokkos Tools "
                 "callback of the allocation)",
                 clabel);
  } else if (!(o = owner_new(st, KP_OWNER_KOKKOS, space, p))) {
    owner_give_back(space, clabel, p, bytes, reusable, &err);
  } else {
    o->bytes = bytes;
    o->reusable = reusable;
    o->queued = zero && space != KP_SPACE_HOST && !kp_bridge_space_host_accessible(space);
    o->label = Py_XNewRef(label);
    registry_add(o);
    /* It references only its str label: no cycle can pass through it, so
     * the GC never tracks it. */
  }
  if (in_flight) kp_work_end();
  if (t && kp_interrupt_exit(t, o ? 0 : -1) < 0) {
    Py_XDECREF(o);
    return NULL;
  }
  return o;
}

kp_owner *kp_owner_from_pyobject(kp_state *st, int space, void *data, PyObject *exporter, Py_buffer *buffer) {
  kp_owner *o = owner_new(st, KP_OWNER_PYOBJECT, space, data);
  if (!o) {
    if (buffer) PyBuffer_Release(buffer);
    return NULL;
  }
  o->exporter = Py_XNewRef(exporter);
  if (buffer) {
    o->buffer = *buffer; /* moved in: released in dealloc */
    o->has_buffer = 1;
  }
  PyObject_GC_Track(o);
  return o;
}

void kp_owner_hold_registration(kp_owner *o, struct kp_host_registration *registration) {
  o->registration = registration;
  if (registration && !o->registered) registry_add(o);
}

kp_owner *kp_owner_from_deleter(kp_state *st, int space, void *data, void (*deleter)(void *), void *ctx,
                                int kokkos_bound) {
  kp_owner *o = owner_new(st, KP_OWNER_EXTERNAL, space, data);
  if (!o) {
    if (deleter) {
      /* The deleter may run Python code: keep the MemoryError aside. */
      PyObject *exc = kp_fetch_exception();
      deleter(ctx);
      kp_restore_exception(exc);
    }
    return NULL;
  }
  o->deleter = deleter;
  o->deleter_ctx = ctx;
  if (kokkos_bound) registry_add(o);
  /* It references no Python object the collector could see: not tracked. */
  return o;
}

/* Calls an external owner's deleter from a dealloc. A deleter may run
 * Python code (a DLPack producer's): an exception being raised (a View that
 * failed to wrap this memory) is kept aside, and one the deleter leaves
 * behind is dropped (deleters must not raise). An inline context's destroy
 * (the C API's view_from_inline) calls nothing: no check after it. */
static void owner_call_deleter(kp_owner *o) {
  if (PyErr_Occurred()) {
    PyObject *exc = kp_fetch_exception();
    o->deleter(o->deleter_ctx);
    kp_restore_exception(exc);
  } else {
    o->deleter(o->deleter_ctx);
    if (o->deleter_ctx != (void *)o->inline_ctx && PyErr_Occurred()) PyErr_Clear();
  }
}

static int owner_traverse(kp_owner *o, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(o));
  Py_VISIT(o->exporter);
  if (o->has_buffer) Py_VISIT(o->buffer.obj);
  return 0;
}

static int owner_clear(kp_owner *o) {
  Py_CLEAR(o->exporter);
  if (o->has_buffer) {
    o->has_buffer = 0;
    PyBuffer_Release(&o->buffer);
  }
  return 0;
}

static void owner_dealloc(kp_owner *o) {
  PyTypeObject *tp = Py_TYPE(o);
  PyObject_GC_UnTrack(o);
  if (o->weakreflist) PyObject_ClearWeakRefs((PyObject *)o);
  registry_remove(o);
  owner_give_back_registration(o);
  if (!o->released) {
    if (o->kind == KP_OWNER_KOKKOS && o->data) {
      if (kp_bridge_is_initialized()) {
        kp_error err;
        err.message[0] = 0;
        owner_deallocate(o, &err);
      }
    } else if (o->kind == KP_OWNER_EXTERNAL && o->deleter) {
      owner_call_deleter(o);
    }
  }
  owner_clear(o);
  Py_CLEAR(o->label);
  tp->tp_free((PyObject *)o);
  Py_DECREF(tp);
}

static PyObject *owner_repr(kp_owner *o) {
  static const char *kinds[] = {"kokkos", "python", "external"};
  return PyUnicode_FromFormat("<kokkos Allocation %s in %s%s, %zd exports>", kinds[o->kind], kp_spaces[o->space].name,
                              o->released ? " (released)" : "", o->exports);
}

static PyObject *owner_get_released(kp_owner *o, void *c) { return PyBool_FromLong(o->released); }
static PyObject *owner_get_exports(kp_owner *o, void *c) { return PyLong_FromSsize_t(o->exports); }
static PyObject *owner_get_exporter(kp_owner *o, void *c) { return Py_NewRef(o->exporter ? o->exporter : Py_None); }

static PyGetSetDef owner_getset[] = {
    {"released", (getter)owner_get_released, NULL, "True once the memory is gone (Kokkos finalized).", NULL},
    {"exports", (getter)owner_get_exports, NULL, "Buffers and capsules handed out of this memory and still alive.",
     NULL},
    {"exporter", (getter)owner_get_exporter, NULL, "The Python object that owns foreign memory, or None.", NULL},
    {NULL}};

static PyMemberDef owner_members[] = {{"__weaklistoffset__", T_PYSSIZET, offsetof(kp_owner, weakreflist), READONLY},
                                      {NULL}};

static PyType_Slot owner_slots[] = {
    {Py_tp_members, owner_members},
    {Py_tp_dealloc, owner_dealloc},
    {Py_tp_traverse, owner_traverse},
    {Py_tp_clear, owner_clear},
    {Py_tp_repr, owner_repr},
    {Py_tp_getset, owner_getset},
    {Py_tp_doc, "The owner of a View's memory, shared by every View, subview and export of it."},
    {0, NULL}};

PyType_Spec kp_owner_spec = {"kokkos._core.Allocation", sizeof(kp_owner), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION, owner_slots};
