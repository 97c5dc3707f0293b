/* model.h: the model layer's functions and types (src/core/model/): the
 * runtime (initialize / finalize, auto-initialization), the Allocation and
 * the finalize registry with the Kokkos work in flight, the per-combination
 * View classes, and the View: its struct, construction, strides and span.
 * Included by the model files and the layers above.
 */
#ifndef KOKKOS_PYTHON_MODEL_H
#define KOKKOS_PYTHON_MODEL_H

#include "core.h"

/* ---- runtime (model/runtime.c) ----------------------------------------------------- */

/* Initializes Kokkos with defaults unless it is initialized; -1 with
 * RuntimeError if it was finalized. The one auto-initialization rule:
 * every entry point that allocates, copies, fills or mirrors a View, or
 * hands one to C++ (the casters, the C API for Kokkos-owned memory), calls
 * this first; wrapping foreign memory (a NumPy array, DLPack) does not. */
int kp_runtime_ensure(void);
/* Called by kp_runtime_ensure after it initialized Kokkos, with where it
 * happened; set by a higher layer at module exec (module.c sets the Tools
 * layer's warning about a library that did not load), so runtime.c never
 * calls up. 0, or -1 with an exception. */
extern int (*kp_runtime_after_auto_init)(const char *where);
/* Adds initialize, finalize, fence, ... to the module and sets Kokkos'
 * finalize hook (runtime.c); -1 with an exception. */
int kp_runtime_add(PyObject *module);

/* The one rule for the text Kokkos sees (View labels, region, section,
 * event, metadata, fence and tuning names, initialize's arguments): a str
 * that UTF-8 encodes (no lone surrogate) and holds no NUL character, so
 * Kokkos and its tools see all of it. Its UTF-8 (owned by obj), or NULL
 * with TypeError / ValueError naming where and what. */
const char *kp_kokkos_text(PyObject *obj, const char *where, const char *what);
/* Whether the n bytes at s hold a NUL: a short text (a label, a name) is
 * read eight bytes at a time in place (a word holds a zero byte exactly
 * when (w - 0x01..01) & ~w & 0x80..80 is not 0), a long one by memchr. */
static inline int kp_has_nul(const char *s, size_t n) {
  if (n > 32) return memchr(s, 0, n) != NULL;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    if ((w - UINT64_C(0x0101010101010101)) & ~w & UINT64_C(0x8080808080808080)) return 1;
  }
  for (; i < n; ++i)
    if (!s[i]) return 1;
  return 0;
}

/* KeyboardInterrupt and SystemExit raised by Python that Kokkos runs (a
 * Tools callback) reach the program: each thread keeps the first one and
 * raises it as soon as the Kokkos call that ran it returns (runtime.c).
 * Around the Kokkos calls of an entry point: t = kp_interrupt_enter(), then
 * kp_interrupt_exit(t, rc), which returns rc, or -1 with the kept exception
 * set (any exception set before becomes its __context__). Around every
 * callback: entries = kp_interrupt_callback_enter(t) and
 * kp_interrupt_callback_leave(t, entries), t = kp_interrupt_here().
 * kp_interrupt_keep(t), with the exception the callback raised set (after
 * the callback returned): 1 when it was taken (a KeyboardInterrupt or
 * SystemExit, the thread's first; none is set after), 0 when it is left set
 * for the caller to report. A thread with no Python frame below the
 * callback is one Python did not start: its KeyboardInterrupt goes to the
 * main thread as a SIGINT does, its SystemExit is reported. Where no
 * entry point raises it, the main thread raises it at its next bytecode
 * (the object itself) and another thread an exception of its class. All
 * with the GIL; t is the calling thread's own record. */
typedef struct kp_interrupt_state {
  PyObject *kept; /* strong */
  int entries;    /* entry points of this thread that raise it at their end (a callback counts its own from 0) */
  int armed;      /* a pending call of the main thread will look for it */
} kp_interrupt_state;

/* This thread's record. */
kp_interrupt_state *kp_interrupt_here(void);
int kp_interrupt_keep(kp_interrupt_state *t);
/* What kp_interrupt_exit and kp_interrupt_callback_leave do when t keeps one. */
int kp_interrupt_raise(kp_interrupt_state *t, int rc);
void kp_interrupt_arm(kp_interrupt_state *t);

static inline kp_interrupt_state *kp_interrupt_enter(void) {
  kp_interrupt_state *t = kp_interrupt_here();
  ++t->entries;
  return t;
}
static inline int kp_interrupt_exit(kp_interrupt_state *t, int rc) {
  --t->entries;
  return t->kept ? kp_interrupt_raise(t, rc) : rc;
}
static inline int kp_interrupt_callback_enter(kp_interrupt_state *t) {
  int entries = t->entries;
  t->entries = 0;
  return entries;
}
static inline void kp_interrupt_callback_leave(kp_interrupt_state *t, int entries) {
  t->entries = entries;
  if (t->kept) kp_interrupt_arm(t);
}

/* ---- Allocation (owner.c) ---------------------------------------------------------- */

typedef enum kp_owner_kind {
  KP_OWNER_KOKKOS,   /* kp_bridge_allocate'd; freed through the bridge */
  KP_OWNER_PYOBJECT, /* foreign memory kept alive by a Python object */
  KP_OWNER_EXTERNAL  /* a deleter supplied through the C API */
} kp_owner_kind;

/* What a device can do with host memory that a View in a device space was
 * made over (kokkos.unmanaged_array(host_array, space=CudaSpace)): flags in
 * kp_owner.reach, read only for Views in spaces the host cannot access. */
enum {
  KP_REACH_HOST_BUFFER = 1, /* came from an object's host buffer: host consumers get that buffer back */
  KP_REACH_NO_DEVICE = 2    /* the device cannot read it: kernels, device copies and device exports refuse */
};

/* Bytes of context an Allocation can hold inline (the C API's inline_capacity). */
#define KP_OWNER_INLINE_BYTES 64

typedef struct kp_owner {
  PyObject_HEAD
  kp_owner_kind kind;
  int space;
  void *data;
  PyObject *label;    /* str */
  PyObject *exporter; /* KP_OWNER_PYOBJECT: the object owning the memory */
  union {
    Py_buffer buffer; /* KP_OWNER_PYOBJECT: held when has_buffer */
    /* KP_OWNER_EXTERNAL: a context kept in the Allocation itself (the C API's
     * view_from_inline: a C++ View's reference count), so that handing
     * memory over takes no second heap record */
    _Alignas(16) unsigned char inline_ctx[KP_OWNER_INLINE_BYTES];
  };
  int has_buffer;
  size_t bytes;            /* KP_OWNER_KOKKOS: the size allocated (freed with it); 0 otherwise */
  void (*deleter)(void *); /* KP_OWNER_EXTERNAL */
  void *deleter_ctx;
  const char *tag;        /* KP_OWNER_EXTERNAL: the tag given through the C API (external_owner), or NULL */
  int released;           /* memory is gone (Kokkos finalized) */
  int registered;         /* in the finalize registry */
  Py_ssize_t exports;     /* buffers / capsules handed out of this memory */
  int interface_exported; /* its address went out through __array_interface__ (never released) */
  unsigned reach;         /* KP_REACH_* (0 for memory of the View's own space) */
  struct kp_host_registration *registration; /* host pages registered for a device space (reach.c) */
  int queued;   /* its zero fill may still be queued on Kokkos' default instance (device-only spaces) */
  int reusable; /* a small HostSpace block allocated while no Tools library watched: kept for reuse when freed */
  struct kp_owner *prev, *next;
  PyObject *weakreflist;
} kp_owner;

extern PyType_Spec kp_owner_spec;

/* New reference to an Allocation of bytes in space (zeroed unless
 * !zero), or NULL with an exception. Kokkos must be initialized (the caller
 * applies kp_runtime_ensure), so owner.c never calls up to runtime.c. A
 * KeyboardInterrupt or SystemExit raised by a Tools callback of the
 * allocation is raised here (NULL), the memory given back. */
kp_owner *kp_owner_allocate(kp_state *st, int space, PyObject *label, size_t bytes, int zero);
/* New reference to an Allocation that keeps exporter alive (and releases
 * buffer, when given, at the end; the Py_buffer is moved in). */
kp_owner *kp_owner_from_pyobject(kp_state *st, int space, void *data, PyObject *exporter, Py_buffer *buffer);
/* New reference to an Allocation whose memory is released by calling
 * deleter(ctx); registered for Kokkos finalize when kokkos_bound. On
 * failure NULL with MemoryError, having called deleter(ctx) (when not NULL:
 * a caller that must keep its memory on failure passes NULL and sets
 * deleter, deleter_ctx and tag afterwards). */
kp_owner *kp_owner_from_deleter(kp_state *st, int space, void *data, void (*deleter)(void *), void *ctx,
                                int kokkos_bound);
/* Hands o the host pages registered for it (kp_space_reach_host): given back
 * when o goes, or at Kokkos finalize (which releases o's Views). */
void kp_owner_hold_registration(kp_owner *o, struct kp_host_registration *registration);
/* Called from Kokkos' finalize hook: waits for the Kokkos work in flight
 * and the Tools callbacks of other threads (below), refusing new work from
 * then on, and releases every registered Allocation. Memory that work still
 * running may use (this thread's own, or another's that the wait gave up
 * on) is marked released but left allocated. */
void kp_owner_release_all(void);

/* ---- small HostSpace blocks kept for reuse (host_blocks.c) ------------------------- */

/* The largest block kept, in bytes. */
#define KP_HOST_BLOCK_MAX ((size_t)16384)
/* A kept block of exactly bytes (taken out of the cache), or NULL. */
void *kp_host_block_take(size_t bytes);
/* Keeps a HostSpace block of bytes for reuse: 1, or 0 when it is too large,
 * the cache is full or disabled (the caller then gives it back to Kokkos). */
int kp_host_block_keep(void *data, size_t bytes);
/* Gives every kept block back to Kokkos (Kokkos must be alive). */
void kp_host_blocks_release(void);
/* _host_blocks_held() (how many blocks are kept) and _host_blocks_release()
 * (while Kokkos is initialized): the tests' handles. */
PyObject *kp_py_host_blocks_held(PyObject *module, PyObject *unused);
PyObject *kp_py_host_blocks_release(PyObject *module, PyObject *unused);

/* Kokkos work in flight: a bridge call (a copy, fill, allocation, fence or
 * Tools call) made with the GIL released, until the GIL is back (and, for an
 * allocation, its owner registered). Kokkos' finalize hook, whoever
 * finalizes (another thread, the exit handler, the application's C++),
 * refuses new work from its start and waits for other threads' work in
 * flight and Tools callbacks before it releases the registry
 * (kp_owner_release_all) and Kokkos tears its backends down. Both calls with
 * the GIL; kp_work_begin: 0, or -1 with RuntimeError while finalize runs
 * (after it, the bridge call says Kokkos has been finalized). */
int kp_work_begin(const char *where);
void kp_work_end(void);
/* Kokkos' own initialize or finalize runs (1) or has ended (0) without
 * the GIL while a Tools callback is set (runtime.c); not work that finalize
 * waits for, but Tools slots are in use meanwhile (kp_work_idle). */
void kp_work_lifecycle(int running);
/* 1 when no thread is inside counted Kokkos work or a Tools callback: no
 * thread is between Kokkos' test of a Tools slot and its call through it,
 * so a slot may be emptied (tools.c). With the GIL. */
int kp_work_idle(void);
/* hook() runs (with the GIL, nothing else of Python touched) each time the
 * last counted Kokkos call of any thread ends and no thread is inside a
 * callback: tools.c empties the slots it had to leave set. One hook. */
void kp_work_on_idle(void (*hook)(void));
/* 1 when another thread is finalizing Kokkos (waiting for the work in
 * flight, the GIL given up): a finalize() now has nothing to do. */
int kp_work_finalizing_elsewhere(void);
/* Python's finalize, before it calls Kokkos': refuses new work and waits for
 * other threads' work in flight and Tools callbacks. A callback may wait for
 * this thread, so the wait for one is bounded (KOKKOS_PYTHON_FINALIZE_WAIT
 * seconds, 30 by default): 0, or -1 with RuntimeError naming the callback
 * and where, work allowed again and Kokkos left running. Signals are looked
 * at between waits: -1 with the exception a handler raised (Ctrl-C's
 * KeyboardInterrupt), work allowed again. */
int kp_work_drain_before_finalize(const char *where);
/* Allows work again after a finalize that did not happen (Kokkos refused). */
void kp_work_finalize_abandoned(void);

/* Python that Kokkos runs: a Tools callback, from kp_tools_enter to
 * kp_tools_leave (tools.c). kp_callback_enter returns the event of the
 * callback this thread was inside before (NULL if none), which
 * kp_callback_leave takes back. kp_callback_running: the event (its name)
 * of the innermost callback this thread is inside, or NULL; finalize and
 * initialize refuse to run there. kp_work_running_here: 1 when this thread
 * is inside a counted Kokkos call or a callback. All with the GIL. */
const char *kp_callback_enter(const char *event);
void kp_callback_leave(const char *outer);
const char *kp_callback_running(void);
int kp_work_running_here(void);
/* Runs CALL without the GIL as Kokkos work in flight; when finalize has
 * begun, runs REFUSED instead (RuntimeError set). */
#define KP_KOKKOS_WORK(where, REFUSED, CALL) \
  do {                                       \
    if (kp_work_begin(where) < 0) {          \
      REFUSED;                               \
    } else {                                 \
      Py_BEGIN_ALLOW_THREADS                 \
      CALL;                                  \
      Py_END_ALLOW_THREADS                   \
      kp_work_end();                         \
    }                                        \
  } while (0)

/* ---- per-combination View classes (view_class.c) --------------------------------- */

struct kp_view;
/* The class of Views of this combination (borrowed), made on first use;
 * NULL with an exception. Unmanaged does not take part; a DynRankView's
 * class ignores rank. */
PyTypeObject *kp_view_class(kp_state *st, int dynamic, int dtype, int space, int layout, unsigned traits, int rank);
/* Whether type is one of those classes (not View, DynRankView or a Python subclass). */
int kp_view_class_is_combination(kp_state *st, PyTypeObject *type);
/* Moves v to the class of its current fields after a caller changed its
 * layout or traits; Views of other classes keep theirs. -1 with an exception. */
int kp_view_retype(struct kp_view *v);
/* Makes / frees the sparse table of classes (module exec / clear), whose
 * classes get slots (kp_view_class_slots: the module passes view.c's table
 * down, so view_class.c refers to nothing above it); -1 with MemoryError. */
int kp_view_classes_init(kp_state *st, PyType_Slot *slots);
void kp_view_classes_free(kp_state *st);
/* _publish_view_classes(namespace): the classes become attributes of the
 * kokkos package (its globals), those made so far and every later one. */
PyObject *kp_py_publish_view_classes(PyObject *module, PyObject *namespace);
/* _view_class(dynamic, dtype, space, layout, traits, rank): the class (new reference). */
PyObject *kp_py_view_class(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* ---- View (view.c) ----------------------------------------------------------------- */

typedef struct kp_view {
  PyObject_HEAD
  char *data;      /* first element (may be a dummy for empty Views) */
  kp_owner *owner; /* strong reference; NULL only for empty Views */
  int rank;
  int dtype;
  int space;
  int layout;
  unsigned traits;
  int readonly;
  Py_ssize_t shape[KP_MAX_RANK];
  Py_ssize_t strides[KP_MAX_RANK]; /* in elements, may be negative */
  Py_ssize_t byte_strides[KP_MAX_RANK];
  PyObject *label;     /* str */
  Py_ssize_t exports;  /* live buffer exports of this object */
  PyObject *cai;       /* __cuda_array_interface__, built once (NULL until then) */
  PyObject *shape_obj; /* view.shape, built once (NULL until then): the extents never change */
  PyObject *weakreflist;
} kp_view;

int kp_view_check(PyObject *obj);
/* The View type's lifetime functions and constructor (model/view.c), listed
 * in the type's slots (view_type.c) and the per-combination classes'. */
PyObject *kp_view_new(PyTypeObject *type, PyObject *args, PyObject *kwds);
int kp_view_traverse(kp_view *v, visitproc visit, void *arg);
int kp_view_clear(kp_view *v);
void kp_view_dealloc(kp_view *v);
/* The per-combination classes' slots: View's lifetime functions, everything
 * else inherited (handed to view_class.c by module.c). */
extern PyType_Slot kp_view_class_slots[];
/* 1 for a DynRankView (or a subclass of it). */
int kp_view_is_dynamic(const kp_view *v);

/* Describes a View to create. */
typedef struct kp_view_spec {
  int rank;
  Py_ssize_t shape[KP_MAX_RANK];
  int dtype;
  int space;
  int layout; /* RIGHT or LEFT for new allocations */
  unsigned traits;
  int dynamic;
  int zero;           /* zero-fill (Kokkos' default); 0 = WithoutInitializing */
  PyTypeObject *type; /* a Python subclass to instantiate; NULL: View or DynRankView (dynamic) */
  int label_checked;  /* the label is made from one that passed the label door, or is the package's own */
} kp_view_spec;

/* New View with fresh memory; NULL with exception. */
kp_view *kp_view_allocate(kp_state *st, const kp_view_spec *spec, PyObject *label);
/* New View over existing memory held by owner (a new reference is taken).
 * strides in elements; layout is derived from them. */
kp_view *kp_view_wrap(kp_state *st, PyTypeObject *type, kp_owner *owner, char *data, int rank, const Py_ssize_t *shape,
                      const Py_ssize_t *strides, int dtype, int space, unsigned traits, int readonly, PyObject *label);
/* kp_view_wrap with the layout given (it must describe the strides: a
 * rank-1 or extent-1 View fits more than one) instead of derived, and the
 * span of the strides already checked (kp_check_span_at) by the caller, or
 * known to be fine (contiguous strides of extents kp_checked_bytes took). */
kp_view *kp_view_wrap_as(kp_state *st, PyTypeObject *type, kp_owner *owner, char *data, int rank,
                         const Py_ssize_t *shape, const Py_ssize_t *strides, int dtype, int space, int layout,
                         unsigned traits, int readonly, PyObject *label);
/* 1 if released (and sets RuntimeError naming the label), else 0. */
int kp_view_check_released(kp_view *v);
/* 1 if host code may touch this View's memory; else sets an error saying to
 * mirror (exc: the exception type) and returns 0. */
int kp_view_require_host(kp_view *v, PyObject *exc, const char *what);
/* 1 if host consumers may take v's memory through the buffer protocol or
 * __array_interface__: a host space, or host memory a device-space View was
 * made over (KP_REACH_HOST_BUFFER). */
int kp_view_host_exportable(const kp_view *v);
/* 0 if v's device can read its memory; else sets kokkos.DeviceAccessError
 * (exc where the module state cannot be found) naming v and what (the
 * operation) and returns -1 (KP_REACH_NO_DEVICE). */
int kp_view_require_device_reach(const kp_view *v, PyObject *exc, const char *what);
Py_ssize_t kp_view_size(const kp_view *v);
/* A new tuple of v's extents, or of its byte strides when bytes is true;
 * NULL with an exception. */
PyObject *kp_view_extents_tuple(const kp_view *v, int bytes);
int kp_view_is_c_contiguous(const kp_view *v);
int kp_view_is_f_contiguous(const kp_view *v);
/* LAYOUT_RIGHT / LEFT / STRIDE that describes these strides. */
int kp_layout_of(int rank, const Py_ssize_t *shape, const Py_ssize_t *strides);
/* Overflow-checked product of extents, times itemsize; -1 with exception. */
int kp_checked_bytes(int rank, const Py_ssize_t *shape, Py_ssize_t itemsize, size_t *out, const char *where);
/* 0 if the elements of an array with these extents and element strides
 * span at most PY_SSIZE_T_MAX bytes and every stride times itemsize fits a
 * Py_ssize_t, extents 0 and 1 included (so no offset or byte stride a View
 * computes can overflow; foreign strides may lie); else BufferError naming
 * where and the field, -1. An empty array's nonzero extents count too: its
 * other dimensions can still be indexed. Also, for a non-empty array at
 * data (NULL: not checked), its elements neither below address 0 nor past
 * the top of the address space. */
int kp_check_span_at(const char *data, int rank, const Py_ssize_t *shape, const Py_ssize_t *strides,
                     Py_ssize_t itemsize, const char *where);
/* Contiguous element strides for a layout. */
void kp_contiguous_strides(int rank, const Py_ssize_t *shape, int layout, Py_ssize_t *strides);

/* Makes type's calls (View(...), DynRankView(...)) vector calls. */
void kp_view_type_set_vectorcall(PyTypeObject *type);
/* Parses a shape argument (an int or a sequence of ints) into spec->rank
 * and spec->shape; -1 with TypeError / ValueError naming where. */
int kp_parse_shape(PyObject *obj, kp_view_spec *spec, int max_rank, const char *where);
/* kp_kokkos_text's rule for a View label (a str) given to where: 0, or -1
 * with ValueError. kp_view_allocate and kp_view_wrap_as apply it to every
 * View; an entry point may apply it first to name itself. */
int kp_check_label_text(PyObject *label, const char *where);

#endif /* KOKKOS_PYTHON_MODEL_H */
