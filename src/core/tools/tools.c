/* tools.c: Kokkos Tools for Python: the kokkos._core._tools submodule.
 *
 * Python equivalent, roughly:
 *
 *     def profile_library_loaded() -> bool
 *     def push_region(name: str); def pop_region()
 *     def create_profile_section(name: str) -> int
 *     def destroy_profile_section(id); def start_section(id); def stop_section(id)
 *     def mark_event(name: str); def declare_metadata(key: str, value: str)
 *     def pause_tools(); def resume_tools(); def make_space_handle(name) -> SpaceHandle
 *     def _set_callback(event: int, fn: Callable | None)
 *     def _get_callback(event: int) -> Callable | None
 *     def _slot(event: int) -> (kind, address, library, symbol)
 *     class DeviceInfo; class SpaceHandle; class ToolSettings
 *     class ToolProgrammingInterface; class Region (a context manager)
 *
 * The kokkos.tools package (src/kokkos/tools) builds the public API on it.
 * The tuning interface (VariableInfo, declare_output_type, ...) is in
 * tuning.c; its six events are rows of the same event table, and tools.h
 * shares the calling machinery below with it.
 *
 * Callbacks. Kokkos keeps one process-wide table of C callbacks with no
 * user-data pointer, and the bridge forwards every event to the handlers
 * below. So the Python callables live in one process-wide table
 * (kp_tools_g), not in module state; it is read and written only with the
 * GIL held. Every handler is one call of kp_tools_fire, which says the
 * kinds of its arguments: a handler may run on any thread, with or without
 * the GIL; it takes the GIL (PyGILState_Ensure), saves any exception
 * already set on that thread, counts one Python call (so a chain of events
 * raised by what callbacks leave behind ends in a RecursionError, not at
 * the end of the C stack), calls the callable with a strong reference,
 * hands its result to Kokkos, releases everything it made, restores the
 * saved exception and releases the GIL. What the callable raises never
 * reaches Kokkos: a KeyboardInterrupt or SystemExit is kept for the program
 * (the model layer raises it when the Kokkos call returns, kp_interrupt_*),
 * anything else goes to sys.unraisablehook. Handlers do nothing once the
 * interpreter is finalizing. While a callback runs, the model layer knows
 * its thread is inside one (kp_callback_enter): finalize and initialize
 * refuse to run there, naming the event, and a finalize in another thread
 * waits for it.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "tools.h"
#include "tools_bridge.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <structmember.h>

/* ---- the event table ------------------------------------------------------ */

/* What a callback's return value means to Kokkos. */
enum { KP_RET_NONE = 0, KP_RET_ID64, KP_RET_ID32 };

typedef struct kp_tools_event_info {
  const char *name; /* set_<name>_callback */
  int returns;      /* KP_RET_*: what Kokkos expects back */
  const char *id_kind;
} kp_tools_event_info;

static const kp_tools_event_info kp_tools_events[KP_TOOLS_EVENT_COUNT] = {
    [KP_TOOLS_INIT] = {"init", KP_RET_NONE, NULL},
    [KP_TOOLS_FINALIZE] = {"finalize", KP_RET_NONE, NULL},
    [KP_TOOLS_PARSE_ARGS] = {"parse_args", KP_RET_NONE, NULL},
    [KP_TOOLS_PRINT_HELP] = {"print_help", KP_RET_NONE, NULL},
    [KP_TOOLS_BEGIN_PARALLEL_FOR] = {"begin_parallel_for", KP_RET_ID64, "kernel id"},
    [KP_TOOLS_END_PARALLEL_FOR] = {"end_parallel_for", KP_RET_NONE, NULL},
    [KP_TOOLS_BEGIN_PARALLEL_REDUCE] = {"begin_parallel_reduce", KP_RET_ID64, "kernel id"},
    [KP_TOOLS_END_PARALLEL_REDUCE] = {"end_parallel_reduce", KP_RET_NONE, NULL},
    [KP_TOOLS_BEGIN_PARALLEL_SCAN] = {"begin_parallel_scan", KP_RET_ID64, "kernel id"},
    [KP_TOOLS_END_PARALLEL_SCAN] = {"end_parallel_scan", KP_RET_NONE, NULL},
    [KP_TOOLS_PUSH_REGION] = {"push_region", KP_RET_NONE, NULL},
    [KP_TOOLS_POP_REGION] = {"pop_region", KP_RET_NONE, NULL},
    [KP_TOOLS_ALLOCATE_DATA] = {"allocate_data", KP_RET_NONE, NULL},
    [KP_TOOLS_DEALLOCATE_DATA] = {"deallocate_data", KP_RET_NONE, NULL},
    [KP_TOOLS_CREATE_PROFILE_SECTION] = {"create_profile_section", KP_RET_ID32, "section id"},
    [KP_TOOLS_START_PROFILE_SECTION] = {"start_profile_section", KP_RET_NONE, NULL},
    [KP_TOOLS_STOP_PROFILE_SECTION] = {"stop_profile_section", KP_RET_NONE, NULL},
    [KP_TOOLS_DESTROY_PROFILE_SECTION] = {"destroy_profile_section", KP_RET_NONE, NULL},
    [KP_TOOLS_PROFILE_EVENT] = {"profile_event", KP_RET_NONE, NULL},
    [KP_TOOLS_BEGIN_DEEP_COPY] = {"begin_deep_copy", KP_RET_NONE, NULL},
    [KP_TOOLS_END_DEEP_COPY] = {"end_deep_copy", KP_RET_NONE, NULL},
    [KP_TOOLS_BEGIN_FENCE] = {"begin_fence", KP_RET_ID64, "fence handle"},
    [KP_TOOLS_END_FENCE] = {"end_fence", KP_RET_NONE, NULL},
    [KP_TOOLS_DUAL_VIEW_SYNC] = {"dual_view_sync", KP_RET_NONE, NULL},
    [KP_TOOLS_DUAL_VIEW_MODIFY] = {"dual_view_modify", KP_RET_NONE, NULL},
    [KP_TOOLS_DECLARE_METADATA] = {"declare_metadata", KP_RET_NONE, NULL},
    [KP_TOOLS_REQUEST_TOOL_SETTINGS] = {"request_tool_settings", KP_RET_NONE, NULL},
    [KP_TOOLS_PROVIDE_TOOL_PROGRAMMING_INTERFACE] = {"provide_tool_programming_interface", KP_RET_NONE, NULL},
    /* tuning: the handlers are in tuning.c */
    [KP_TOOLS_DECLARE_OUTPUT_TYPE] = {"declare_output_type", KP_RET_NONE, NULL},
    [KP_TOOLS_DECLARE_INPUT_TYPE] = {"declare_input_type", KP_RET_NONE, NULL},
    [KP_TOOLS_REQUEST_OUTPUT_VALUES] = {"request_output_values", KP_RET_NONE, NULL},
    [KP_TOOLS_BEGIN_CONTEXT] = {"begin_context", KP_RET_NONE, NULL},
    [KP_TOOLS_END_CONTEXT] = {"end_context", KP_RET_NONE, NULL},
    [KP_TOOLS_DECLARE_OPTIMIZATION_GOAL] = {"declare_optimization_goal", KP_RET_NONE, NULL},
};

/* ---- process-wide state (see the header comment) -------------------------- */

/* The types of kokkos.tools, rows of kp_tools_specs (below). */
enum {
  KP_TOOLS_DEVICE_INFO,
  KP_TOOLS_SPACE_HANDLE,
  KP_TOOLS_TOOL_SETTINGS,
  KP_TOOLS_PROGRAMMING_INTERFACE,
  KP_TOOLS_REGION,
  KP_TOOLS_TYPE_COUNT
};

static struct {
  PyObject *callables[KP_TOOLS_EVENT_COUNT]; /* strong references or NULL */
  /* Slots whose callback went while a thread was inside Kokkos, a bit per
   * event: they hold the trampoline, which finds no callable and returns,
   * until no thread is (kp_tools_settle). */
  uint64_t unhook_pending;
  /* pause_tools() while a thread was inside Kokkos: no Python callback runs
   * from then on; Kokkos' own pause waits for the same moment. */
  int pause_pending;
  PyTypeObject *types[KP_TOOLS_TYPE_COUNT];
} kp_tools_g;

_Static_assert(KP_TOOLS_EVENT_COUNT <= 64, "unhook_pending has a bit per event");

static void kp_tools_settle(void);

/* ---- DeviceInfo -------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  unsigned long long device_id;
} kp_device_info;

static PyObject *kp_device_info_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  static char *kwlist[] = {"deviceID", NULL};
  PyObject *id_obj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:DeviceInfo", kwlist, &id_obj)) return NULL;
  unsigned long long id = 0;
  if (id_obj) {
    PyObject *index = PyNumber_Index(id_obj);
    if (!index) {
      PyErr_Format(PyExc_TypeError, "kokkos.tools.DeviceInfo(): deviceID must be an int, got %.100s",
                   Py_TYPE(id_obj)->tp_name);
      return NULL;
    }
    id = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (id == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_SetString(PyExc_ValueError, "kokkos.tools.DeviceInfo(): deviceID must be in [0, 2**64)");
      return NULL;
    }
  }
  kp_device_info *self = (kp_device_info *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->device_id = id;
  return (PyObject *)self;
}

static void kp_tools_plain_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *kp_device_info_repr(PyObject *self) {
  return PyUnicode_FromFormat("DeviceInfo(deviceID=%llu)", ((kp_device_info *)self)->device_id);
}

static PyObject *kp_device_info_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, Py_TYPE(a)) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  int eq = ((kp_device_info *)a)->device_id == ((kp_device_info *)b)->device_id;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyMemberDef kp_device_info_members[] = {{"deviceID", T_ULONGLONG, offsetof(kp_device_info, device_id), READONLY,
                                                "The device's id (Kokkos_Profiling_KokkosPDeviceInfo::deviceID)."},
                                               {NULL, 0, 0, 0, NULL}};

static PyType_Slot kp_device_info_slots[] = {
    {Py_tp_new, kp_device_info_new},
    {Py_tp_dealloc, kp_tools_plain_dealloc},
    {Py_tp_repr, kp_device_info_repr},
    {Py_tp_richcompare, kp_device_info_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_members, kp_device_info_members},
    {Py_tp_doc, "DeviceInfo(deviceID=0): Kokkos_Profiling_KokkosPDeviceInfo, as passed to the init callback."},
    {0, NULL}};

/* ---- SpaceHandle ------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  kp_tools_space_handle handle;
} kp_space_handle;

/* Copies a str into a SpaceHandle name; -1 with TypeError / ValueError. */
static int kp_space_handle_assign(kp_space_handle *self, PyObject *value, const char *where) {
  const char *s = kp_kokkos_text(value, where, "name");
  if (!s) return -1;
  size_t n = strlen(s);
  if (n >= KP_TOOLS_SPACE_NAME_SIZE) {
    PyErr_Format(PyExc_ValueError, "%s: name must be at most %d bytes in UTF-8 (Kokkos' SpaceHandle), got %zu", where,
                 KP_TOOLS_SPACE_NAME_SIZE - 1, n);
    return -1;
  }
  memset(self->handle.name, 0, sizeof(self->handle.name));
  memcpy(self->handle.name, s, (size_t)n);
  return 0;
}

static PyObject *kp_space_handle_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  static char *kwlist[] = {"name", NULL};
  PyObject *name = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:SpaceHandle", kwlist, &name)) return NULL;
  kp_space_handle *self = (kp_space_handle *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  if (name && kp_space_handle_assign(self, name, "kokkos.tools.SpaceHandle()") < 0) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

/* New reference to a SpaceHandle holding a copy of h, or NULL. */
static PyObject *kp_space_handle_from(const kp_tools_space_handle *h) {
  PyTypeObject *type = kp_tools_g.types[KP_TOOLS_SPACE_HANDLE];
  kp_space_handle *self = (kp_space_handle *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  memcpy(self->handle.name, h->name, sizeof(self->handle.name));
  self->handle.name[KP_TOOLS_SPACE_NAME_SIZE - 1] = '\0';
  return (PyObject *)self;
}

static PyObject *kp_space_handle_get_name(PyObject *self, void *closure) {
  const char *s = ((kp_space_handle *)self)->handle.name;
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static int kp_space_handle_set_name(PyObject *self, PyObject *value, void *closure) {
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "kokkos.tools.SpaceHandle: name cannot be deleted");
    return -1;
  }
  return kp_space_handle_assign((kp_space_handle *)self, value, "kokkos.tools.SpaceHandle.name");
}

static PyObject *kp_space_handle_repr(PyObject *self) {
  PyObject *name = kp_space_handle_get_name(self, NULL);
  if (!name) return NULL;
  PyObject *r = PyUnicode_FromFormat("SpaceHandle(name=%R)", name);
  Py_DECREF(name);
  return r;
}

static PyObject *kp_space_handle_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, Py_TYPE(a)) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  int eq =
      strncmp(((kp_space_handle *)a)->handle.name, ((kp_space_handle *)b)->handle.name, KP_TOOLS_SPACE_NAME_SIZE) == 0;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyGetSetDef kp_space_handle_getset[] = {
    {"name", kp_space_handle_get_name, kp_space_handle_set_name,
     "The memory space's name, as Kokkos reports it (\"Host\", \"Cuda\", ...); at most 63 bytes.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot kp_space_handle_slots[] = {
    {Py_tp_new, kp_space_handle_new},
    {Py_tp_dealloc, kp_tools_plain_dealloc},
    {Py_tp_repr, kp_space_handle_repr},
    {Py_tp_richcompare, kp_space_handle_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_getset, kp_space_handle_getset},
    {Py_tp_doc, "SpaceHandle(name=''): Kokkos_Profiling_SpaceHandle, the memory space of a data event."},
    {0, NULL}};

/* ---- ToolSettings -------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  char requires_global_fencing;
} kp_tool_settings;

static PyObject *kp_tool_settings_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  static char *kwlist[] = {"requires_global_fencing", NULL};
  int fencing = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p:ToolSettings", kwlist, &fencing)) return NULL;
  kp_tool_settings *self = (kp_tool_settings *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->requires_global_fencing = (char)fencing;
  return (PyObject *)self;
}

static PyObject *kp_tool_settings_repr(PyObject *self) {
  return PyUnicode_FromFormat("ToolSettings(requires_global_fencing=%s)",
                              ((kp_tool_settings *)self)->requires_global_fencing ? "True" : "False");
}

static PyMemberDef kp_tool_settings_members[] = {
    {"requires_global_fencing", T_BOOL, offsetof(kp_tool_settings, requires_global_fencing), 0,
     "Whether Kokkos fences globally around kernels and regions for this tool (set False to opt out)."},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot kp_tool_settings_slots[] = {
    {Py_tp_new, kp_tool_settings_new},
    {Py_tp_dealloc, kp_tools_plain_dealloc},
    {Py_tp_repr, kp_tool_settings_repr},
    {Py_tp_members, kp_tool_settings_members},
    {Py_tp_doc,
     "ToolSettings(requires_global_fencing=True): Kokkos_Tools_ToolSettings, passed to the "
     "request_tool_settings callback; what the callback sets is handed back to Kokkos."},
    {0, NULL}};

/* ---- ToolProgrammingInterface ------------------------------------------------------ */

static int kp_tools_u32(PyObject *obj, const char *where, const char *what, uint32_t *out);

/* fence(device_id=0): the fence action Kokkos gives tools. */
static PyObject *kp_programming_interface_fence(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  uint32_t device_id = 0;
  if (nargs > 1) {
    PyErr_SetString(PyExc_TypeError,
                    "kokkos.tools.ToolProgrammingInterface.fence() takes at most 1 argument (device_id)");
    return NULL;
  }
  if (nargs == 1 && kp_tools_u32(args[0], "kokkos.tools.ToolProgrammingInterface.fence()", "device_id", &device_id) < 0)
    return NULL;
  static const char *where = "kokkos.tools.ToolProgrammingInterface.fence()";
  kp_error err;
  err.message[0] = 0;
  kp_status s = KP_OK;
  int rc = 0;
  kp_interrupt_state *t = kp_interrupt_enter();
  KP_KOKKOS_WORK(where, rc = -1, s = kp_tools_bridge_tool_fence(device_id, &err));
  if (kp_tools_entry_end(t, where, rc, s, &err) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyMethodDef kp_programming_interface_methods[] = {
    {"fence", (PyCFunction)(void (*)(void))kp_programming_interface_fence, METH_FASTCALL,
     "fence(device_id=0): ask Kokkos to fence (the tool-invoked fence action)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot kp_programming_interface_slots[] = {
    {Py_tp_dealloc, kp_tools_plain_dealloc},
    {Py_tp_methods, kp_programming_interface_methods},
    {Py_tp_doc,
     "Kokkos_Tools_ToolProgrammingInterface: the actions Kokkos offers a tool, passed to the "
     "provide_tool_programming_interface callback."},
    {0, NULL}};

/* ---- calling Python from Kokkos ----------------------------------------------------- */

static int kp_python_alive(void) { return Py_IsInitialized() && !kp_is_finalizing(); }

/* The first RecursionError met inside a thread's callbacks, with its
 * callable and event. At the recursion limit the unraisable hook cannot run
 * (it needs the very calls there is no room for), so that error is
 * reported when the thread's outermost callback ends. How many threads hold
 * one is counted, so that a callback's end looks at its thread's record
 * only then. */
typedef struct kp_tools_thread {
  PyObject *recursion; /* strong */
  PyObject *recursion_fn;
  int recursion_event;
  int depth; /* callbacks of this thread running, one inside the other */
} kp_tools_thread;

static _Thread_local kp_tools_thread t_tools;
static atomic_int kp_tools_deferred = 0;

/* How deep callbacks may nest in one thread: Python's recursion limit, and
 * never past KP_TOOLS_DEPTH_MAX. From CPython 3.12 on, Py_EnterRecursiveCall
 * counts C calls against a limit of its own, several thousand, more than
 * the C stack holds of these levels (each is a Kokkos call, the bridge and
 * a Python call); the cap keeps a chain's end a RecursionError on every
 * version, whatever sys.setrecursionlimit was given. */
enum { KP_TOOLS_DEPTH_MAX = 1000 };

static int kp_tools_too_deep(void) {
  int limit = Py_GetRecursionLimit();
  if (limit > KP_TOOLS_DEPTH_MAX) limit = KP_TOOLS_DEPTH_MAX;
  if (t_tools.depth < limit) return 0;
  PyErr_Format(PyExc_RecursionError, "maximum recursion depth exceeded in a Kokkos Tools callback (%d nested)",
               t_tools.depth);
  return 1;
}

static void kp_tools_write_unraisable(int event, PyObject *fn) {
  char what[96];
  PyOS_snprintf(what, sizeof what, "the kokkos.tools %s callback", kp_tools_events[event].name);
  kp_write_unraisable(what, fn);
}

/* Takes the GIL and a strong reference to event's callable. 0 (holding
 * nothing) if no callable is set or Python is gone, or the thread is as deep
 * in C and Python calls as Python allows (a RecursionError, reported). A
 * chain of events (a callback whose result, dropped, raises the next event)
 * nests C calls with no Python frame between them: each callback counts as
 * one Python call from kp_tools_enter to kp_tools_leave, and everything it
 * leaves behind (its result, its arguments, the callable) is released in
 * between, so such a chain ends in a RecursionError, as one of Python calls
 * does, long before the C stack does. */
int kp_tools_enter(int event, kp_tools_call *c) {
  if (!kp_python_alive()) return 0;
  c->gil = PyGILState_Ensure();
  c->fn = kp_tools_g.callables[event];
  if (!c->fn || kp_tools_g.pause_pending) {
    PyGILState_Release(c->gil);
    return 0;
  }
  Py_INCREF(c->fn);
  c->event = event;
  c->saved = kp_fetch_exception();
  if (kp_tools_too_deep() || Py_EnterRecursiveCall(" in a Kokkos Tools callback")) {
    kp_tools_report(c);
    Py_DECREF(c->fn);
    kp_restore_exception(c->saved);
    PyGILState_Release(c->gil);
    return 0;
  }
  ++t_tools.depth;
  c->outer = kp_callback_enter(kp_tools_events[event].name);
  c->interrupt = kp_interrupt_here();
  c->entries = kp_interrupt_callback_enter(c->interrupt);
  return 1;
}

void kp_tools_leave(kp_tools_call *c) {
  kp_callback_leave(c->outer);
  Py_DECREF(c->fn);
  Py_LeaveRecursiveCall();
  --t_tools.depth;
  if (!c->outer && atomic_load(&kp_tools_deferred) > 0 && t_tools.recursion) { /* the outermost callback */
    PyObject *fn = t_tools.recursion_fn;
    kp_restore_exception(t_tools.recursion);
    t_tools.recursion = t_tools.recursion_fn = NULL;
    atomic_fetch_sub(&kp_tools_deferred, 1);
    kp_tools_write_unraisable(t_tools.recursion_event, fn);
    Py_DECREF(fn);
  }
  kp_interrupt_callback_leave(c->interrupt, c->entries);
  kp_restore_exception(c->saved);
  PyGILState_Release(c->gil);
}

/* The exception set now, raised by the callback c called or about it: a
 * KeyboardInterrupt or SystemExit is kept for the program
 * (kp_interrupt_keep), a RecursionError inside a callback reported when the
 * outermost ends (the first of them; the others are its echo), anything
 * else reported as unraisable, naming the event. None is set after. */
void kp_tools_report(const kp_tools_call *c) {
  if (kp_interrupt_keep(kp_interrupt_here())) return;
  if (kp_callback_running() && PyErr_ExceptionMatches(PyExc_RecursionError)) {
    if (t_tools.recursion) {
      PyErr_Clear();
      return;
    }
    t_tools.recursion = kp_fetch_exception();
    t_tools.recursion_fn = Py_NewRef(c->fn);
    t_tools.recursion_event = c->event;
    atomic_fetch_add(&kp_tools_deferred, 1);
    return;
  }
  kp_tools_write_unraisable(c->event, c->fn);
}

/* Calls the callable with args (new references, stolen, NULL entries mean
 * building one failed); returns the result (new reference) or NULL after
 * reporting the exception. */
PyObject *kp_tools_invoke(kp_tools_call *c, PyObject **args, Py_ssize_t nargs) {
  PyObject *res = NULL;
  int ok = 1;
  for (Py_ssize_t i = 0; i < nargs; ++i)
    if (!args[i]) ok = 0;
  if (ok) res = PyObject_Vectorcall(c->fn, args, (size_t)nargs, NULL);
  for (Py_ssize_t i = 0; i < nargs; ++i) Py_XDECREF(args[i]);
  if (!res) kp_tools_report(c);
  return res;
}

/* What Kokkos receives from a callback that returns an id (None means 0),
 * as the event's row says: in [0, max], else 0 and the wrong type or range
 * reported. Consumes res (may be NULL). */
static uint64_t kp_tools_take_id(kp_tools_call *c, PyObject *res, uint64_t max) {
  if (!res || res == Py_None) {
    Py_XDECREF(res);
    return 0;
  }
  const kp_tools_event_info *ev = &kp_tools_events[c->event];
  const char *range = max == UINT32_MAX ? "2**32" : "2**64";
  PyObject *index = PyNumber_Index(res);
  unsigned long long v = 0;
  if (!index || ((v = PyLong_AsUnsignedLongLong(index)) == (unsigned long long)-1 && PyErr_Occurred()) || v > max) {
    PyErr_Clear();
    if (index)
      PyErr_Format(PyExc_ValueError,
                   "the kokkos.tools %s callback returned %R; a %s must be in [0, %s) (Kokkos receives 0)", ev->name,
                   res, ev->id_kind, range);
    else
      PyErr_Format(PyExc_TypeError,
                   "the kokkos.tools %s callback must return a %s (an int in [0, %s)) or None, got %.100s "
                   "(Kokkos receives 0)",
                   ev->name, ev->id_kind, range, Py_TYPE(res)->tp_name);
    kp_tools_report(c);
    v = 0;
  }
  Py_XDECREF(index);
  Py_DECREF(res);
  return (uint64_t)v;
}

/* str from a C string from Kokkos (NULL is ""); never fails on bad UTF-8. */
PyObject *kp_tools_str(const char *s) {
  if (!s) return PyUnicode_FromStringAndSize("", 0);
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

/* The Python object of one argument (tools.h): a new reference, or NULL
 * with an exception. */
static PyObject *kp_tools_arg_object(const kp_tools_arg *a) {
  switch (a->kind) {
    case 's':
      return kp_tools_str(a->s);
    case 'i':
      return PyLong_FromLong(a->i);
    case 'u':
      return PyLong_FromUnsignedLongLong(a->u);
    case 'n':
      return PyLong_FromSize_t(a->n);
    case 'p':
      return PyLong_FromVoidPtr((void *)a->p);
    case '?':
      return PyBool_FromLong(a->flag);
    case 'h':
      return kp_space_handle_from(a->h);
    case 'O':
      return a->o.build(a->o.ctx);
    default:
      return PyErr_Format(PyExc_SystemError, "kp_tools_fire: unknown argument kind '%c'", a->kind);
  }
}

/* The default taker: an id for Kokkos (into out), as the event's row says. */
static void kp_tools_take(kp_tools_call *c, PyObject *res, void *out) {
  if (kp_tools_events[c->event].returns == KP_RET_ID32) {
    uint64_t id = kp_tools_take_id(c, res, UINT32_MAX);
    if (out) *(uint32_t *)out = (uint32_t)id;
  } else {
    uint64_t id = kp_tools_take_id(c, res, UINT64_MAX);
    if (out) *(uint64_t *)out = id;
  }
}

void kp_tools_fire(int event, kp_tools_taker take, void *out, const kp_tools_arg *args, Py_ssize_t nargs) {
  kp_tools_call c;
  if (!kp_tools_enter(event, &c)) return;
  PyObject *objects[KP_TOOLS_MAX_ARGS];
  if (nargs > KP_TOOLS_MAX_ARGS) nargs = KP_TOOLS_MAX_ARGS;
  int built = 1;
  for (Py_ssize_t i = 0; i < nargs; ++i)
    if (!built || !(objects[i] = kp_tools_arg_object(&args[i]))) { /* the rest stay NULL: no call */
      objects[i] = NULL;
      built = 0;
    }
  PyObject *res = kp_tools_invoke(&c, objects, nargs);
  if (take)
    take(&c, res, out);
  else if (kp_tools_events[event].returns == KP_RET_NONE)
    Py_XDECREF(res);
  else
    kp_tools_take(&c, res, out);
  kp_tools_leave(&c);
}

/* ---- the handlers the bridge calls: each says its arguments' kinds ------------------- */

/* DeviceInfo for Kokkos' device info (a const kp_tools_device_info *), or None. */
static PyObject *kp_device_info_build(void *info) {
  if (!info) Py_RETURN_NONE;
  PyTypeObject *type = kp_tools_g.types[KP_TOOLS_DEVICE_INFO];
  PyObject *obj = type->tp_alloc(type, 0);
  if (obj) ((kp_device_info *)obj)->device_id = ((const kp_tools_device_info *)info)->device_id;
  return obj;
}

static void kp_on_init(int load_sequence, uint64_t interface_version, uint32_t device_info_count,
                       const kp_tools_device_info *device_info) {
  KP_TOOLS_FIRE(KP_TOOLS_INIT, NULL, NULL, KP_ARG_INT(load_sequence), KP_ARG_UINT(interface_version),
                KP_ARG_UINT(device_info_count), KP_ARG_BUILT(kp_device_info_build, (void *)device_info));
}

static void kp_on_plain(int event) { kp_tools_fire(event, NULL, NULL, NULL, 0); }

typedef struct kp_tools_argv {
  int argc;
  char **argv;
} kp_tools_argv;

/* A list of str for a kp_tools_argv (NULL entries skipped). */
static PyObject *kp_argv_build(void *ctx) {
  const kp_tools_argv *a = ctx;
  PyObject *list = PyList_New(0);
  for (int i = 0; list && a->argv && i < a->argc; ++i) {
    if (!a->argv[i]) continue;
    PyObject *s = kp_tools_str(a->argv[i]);
    if (!s || PyList_Append(list, s) < 0) Py_CLEAR(list);
    Py_XDECREF(s);
  }
  return list;
}

static void kp_on_parse_args(int argc, char **argv) {
  kp_tools_argv a = {argc, argv};
  KP_TOOLS_FIRE(KP_TOOLS_PARSE_ARGS, NULL, NULL, KP_ARG_INT(argc), KP_ARG_BUILT(kp_argv_build, &a));
}

static void kp_on_print_help(const char *program) {
  KP_TOOLS_FIRE(KP_TOOLS_PRINT_HELP, NULL, NULL, KP_ARG_STR(program));
}

static void kp_on_begin(int event, const char *name, uint32_t device_id, uint64_t *out_id) {
  KP_TOOLS_FIRE(event, NULL, out_id, KP_ARG_STR(name), KP_ARG_UINT(device_id));
}

static void kp_on_end(int event, uint64_t id) { KP_TOOLS_FIRE(event, NULL, NULL, KP_ARG_UINT(id)); }

static void kp_on_named(int event, const char *name) { KP_TOOLS_FIRE(event, NULL, NULL, KP_ARG_STR(name)); }

static void kp_on_data(int event, const kp_tools_space_handle *space, const char *label, const void *ptr,
                       uint64_t size) {
  KP_TOOLS_FIRE(event, NULL, NULL, KP_ARG_SPACE(space), KP_ARG_STR(label), KP_ARG_ADDRESS(ptr), KP_ARG_UINT(size));
}

static void kp_on_create_section(const char *name, uint32_t *out_id) {
  KP_TOOLS_FIRE(KP_TOOLS_CREATE_PROFILE_SECTION, NULL, out_id, KP_ARG_STR(name));
}

static void kp_on_section(int event, uint32_t id) { KP_TOOLS_FIRE(event, NULL, NULL, KP_ARG_UINT(id)); }

static void kp_on_deep_copy(const kp_tools_space_handle *dst_space, const char *dst_label, const void *dst_ptr,
                            const kp_tools_space_handle *src_space, const char *src_label, const void *src_ptr,
                            uint64_t size) {
  KP_TOOLS_FIRE(KP_TOOLS_BEGIN_DEEP_COPY, NULL, NULL, KP_ARG_SPACE(dst_space), KP_ARG_STR(dst_label),
                KP_ARG_ADDRESS(dst_ptr), KP_ARG_SPACE(src_space), KP_ARG_STR(src_label), KP_ARG_ADDRESS(src_ptr),
                KP_ARG_UINT(size));
}

static void kp_on_dual_view(int event, const char *label, const void *ptr, int flag) {
  KP_TOOLS_FIRE(event, NULL, NULL, KP_ARG_STR(label), KP_ARG_ADDRESS(ptr), KP_ARG_BOOL(flag));
}

static void kp_on_metadata(const char *key, const char *value) {
  KP_TOOLS_FIRE(KP_TOOLS_DECLARE_METADATA, NULL, NULL, KP_ARG_STR(key), KP_ARG_STR(value));
}

/* request_tool_settings: what the callback sets on the ToolSettings goes
 * back into Kokkos' settings. */
typedef struct kp_tools_settings_call {
  kp_tools_settings *settings;
  PyObject *obj; /* the ToolSettings handed to the callback, kept to read back */
} kp_tools_settings_call;

static PyObject *kp_tool_settings_build(void *ctx) {
  kp_tools_settings_call *t = ctx;
  PyTypeObject *type = kp_tools_g.types[KP_TOOLS_TOOL_SETTINGS];
  PyObject *obj = type->tp_alloc(type, 0);
  if (!obj) return NULL;
  ((kp_tool_settings *)obj)->requires_global_fencing = t->settings && t->settings->requires_global_fencing;
  t->obj = Py_NewRef(obj);
  return obj;
}

static void kp_tool_settings_take(kp_tools_call *c, PyObject *res, void *ctx) {
  kp_tools_settings_call *t = ctx;
  Py_XDECREF(res);
  if (!t->obj) return;
  if (t->settings) t->settings->requires_global_fencing = ((kp_tool_settings *)t->obj)->requires_global_fencing != 0;
  Py_CLEAR(t->obj);
}

static void kp_on_tool_settings(uint32_t count, kp_tools_settings *settings) {
  kp_tools_settings_call t = {settings, NULL};
  KP_TOOLS_FIRE(KP_TOOLS_REQUEST_TOOL_SETTINGS, kp_tool_settings_take, &t, KP_ARG_UINT(count),
                KP_ARG_BUILT(kp_tool_settings_build, &t));
}

/* A ToolProgrammingInterface (its actions are the bridge's, process-wide). */
static PyObject *kp_programming_interface_build(void *unused) {
  PyTypeObject *type = kp_tools_g.types[KP_TOOLS_PROGRAMMING_INTERFACE];
  return type->tp_alloc(type, 0);
}

static void kp_on_programming_interface(uint32_t count) {
  KP_TOOLS_FIRE(KP_TOOLS_PROVIDE_TOOL_PROGRAMMING_INTERFACE, NULL, NULL, KP_ARG_UINT(count),
                KP_ARG_BUILT(kp_programming_interface_build, NULL));
}

/* What the bridge calls, one handler per shape of Kokkos' arguments (tools_bridge.h). */
static const kp_tools_handlers kp_tools_handler_table = {
    .init = kp_on_init,
    .plain = kp_on_plain,
    .parse_args = kp_on_parse_args,
    .print_help = kp_on_print_help,
    .begin = kp_on_begin,
    .end = kp_on_end,
    .named = kp_on_named,
    .data = kp_on_data,
    .create_section = kp_on_create_section,
    .section = kp_on_section,
    .deep_copy = kp_on_deep_copy,
    .dual_view = kp_on_dual_view,
    .metadata = kp_on_metadata,
    .tool_settings = kp_on_tool_settings,
    .programming_interface = kp_on_programming_interface,
};

/* ---- argument helpers ------------------------------------------------------------------ */

static int kp_tools_u32(PyObject *obj, const char *where, const char *what, uint32_t *out) {
  PyObject *index = PyNumber_Index(obj);
  if (!index) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be an int, got %.100s", where, what, Py_TYPE(obj)->tp_name);
    return -1;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (overflow || v < 0 || v > (long long)UINT32_MAX) {
    PyErr_Format(PyExc_ValueError, "%s: %s must be in [0, 2**32), got %R", where, what, obj);
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}

static int kp_tools_event_arg(PyObject *obj, const char *where) {
  long e = PyLong_AsLong(obj);
  if (e == -1 && PyErr_Occurred()) return -1;
  if (e < 0 || e >= KP_TOOLS_EVENT_COUNT) {
    PyErr_Format(PyExc_ValueError, "%s: unknown Kokkos Tools event %ld", where, e);
    return -1;
  }
  return (int)e;
}

/* ---- profiling calls -------------------------------------------------------------------- */

/* Initializes Kokkos if needed; -1 with RuntimeError after finalize. */
static int kp_tools_require_runtime(const char *where) {
  if (kp_bridge_is_finalized()) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s: Kokkos has been finalized; Kokkos Tools events cannot be raised after "
                 "kokkos.finalize() (Kokkos allows one initialize/finalize per process)",
                 where);
    return -1;
  }
  return kp_runtime_ensure();
}

kp_interrupt_state *kp_tools_entry_begin(const char *where) {
  kp_interrupt_state *t = kp_interrupt_enter();
  if (kp_tools_require_runtime(where) == 0) return t;
  kp_interrupt_exit(t, -1);
  return NULL;
}

int kp_tools_entry_end(kp_interrupt_state *t, const char *where, int rc, kp_status s, const kp_error *err) {
  if (rc == 0 && s != KP_OK) rc = kp_raise_bridge(s, err, where);
  return kp_interrupt_exit(t, rc);
}

/* Profiling calls initialize Kokkos if needed (so a tool library named in
 * the environment sees them). With no callback set Kokkos would do nothing,
 * so neither do they. Otherwise they release the GIL around the call: Kokkos
 * may fence for the tool, and Python callbacks take the GIL back. */
#define KP_TOOLS_CALL(where, CALL)                                        \
  do {                                                                    \
    if (kp_tools_require_runtime(where) < 0) return NULL;                 \
    if (kp_tools_bridge_profile_library_loaded()) {                       \
      kp_error err_;                                                      \
      err_.message[0] = 0;                                                \
      kp_status s_ = KP_OK;                                               \
      int rc_ = 0;                                                        \
      kp_interrupt_state *t_ = kp_interrupt_enter();                      \
      KP_KOKKOS_WORK(where, rc_ = -1, s_ = (CALL));                       \
      if (kp_tools_entry_end(t_, where, rc_, s_, &err_) < 0) return NULL; \
    }                                                                     \
  } while (0)

static PyObject *kp_tools_push_region(PyObject *mod, PyObject *name) {
  const char *s = kp_kokkos_text(name, "kokkos.tools.push_region()", "name");
  if (!s) return NULL;
  KP_TOOLS_CALL("kokkos.tools.push_region()", kp_tools_bridge_push_region(s, &err_));
  Py_RETURN_NONE;
}

/* _internal_setup() / _internal_test(): the original package's C++ self-test
 * (kokkos.tools._internal), always run, tool or not. Its two Views are one
 * per process and the test frees them, so one of the two runs at a time:
 * called again from one of the test's own callbacks, or from another thread
 * while one runs, it raises RuntimeError. (The GIL is held throughout, but
 * a callback may give it to another thread.) */
static atomic_int kp_tools_internal_running = 0;

static PyObject *kp_tools_internal(int test) {
  const char *where = test ? "kokkos.tools._internal.test()" : "kokkos.tools._internal.setup()";
  int idle = 0;
  if (!atomic_compare_exchange_strong(&kp_tools_internal_running, &idle, 1)) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s: the self-test is already running (called from one of its own Kokkos Tools callbacks, or from "
                 "another thread while one runs); setup() and test() run one at a time",
                 where);
    return NULL;
  }
  kp_interrupt_state *t = kp_tools_entry_begin(where);
  int rc = t ? 0 : -1;
  if (t) {
    kp_error err;
    err.message[0] = 0;
    kp_status s = test ? kp_tools_bridge_internal_test(&err) : kp_tools_bridge_internal_setup(&err);
    rc = kp_tools_entry_end(t, where, 0, s, &err);
  }
  atomic_store(&kp_tools_internal_running, 0);
  if (rc < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *kp_tools_internal_setup(PyObject *mod, PyObject *unused) { return kp_tools_internal(0); }
static PyObject *kp_tools_internal_test(PyObject *mod, PyObject *unused) { return kp_tools_internal(1); }

static PyObject *kp_tools_pop_region(PyObject *mod, PyObject *unused) {
  KP_TOOLS_CALL("kokkos.tools.pop_region()", kp_tools_bridge_pop_region(&err_));
  Py_RETURN_NONE;
}

/* ---- Region: the context manager behind kokkos.tools.region ------------------ */

/* Region(name): pushRegion on __enter__, popRegion on __exit__, both in C so
 * a `with` block costs no Python frame. kokkos.tools.region subclasses it. */
typedef struct {
  PyObject_HEAD
  PyObject *name; /* str without NUL characters; kp_tools_holder's */
} kp_region;

_Static_assert(offsetof(kp_region, name) == offsetof(kp_tools_holder, held),
               "Region holds its name as kp_tools_holder");

static PyObject *kp_region_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  static char *kwlist[] = {"name", NULL};
  PyObject *name;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:region", kwlist, &name)) return NULL;
  if (!kp_kokkos_text(name, "kokkos.tools.region()", "name")) return NULL;
  kp_region *self = (kp_region *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->name = Py_NewRef(name);
  return (PyObject *)self;
}

/* ---- objects that hold one Python object (tools.h) ---- */

int kp_tools_holder_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(((kp_tools_holder *)self)->held);
  return 0;
}

int kp_tools_holder_clear(PyObject *self) {
  Py_CLEAR(((kp_tools_holder *)self)->held);
  return 0;
}

void kp_tools_holder_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  kp_tools_holder_clear(self);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *kp_region_enter(PyObject *self, PyObject *unused) {
  const char *s = PyUnicode_AsUTF8(((kp_region *)self)->name);
  if (!s) return NULL;
  KP_TOOLS_CALL("kokkos.tools.region()", kp_tools_bridge_push_region(s, &err_));
  return Py_NewRef(self);
}

static PyObject *kp_region_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  KP_TOOLS_CALL("kokkos.tools.region()", kp_tools_bridge_pop_region(&err_));
  Py_RETURN_FALSE;
}

static PyMethodDef kp_region_methods[] = {
    {"__enter__", kp_region_enter, METH_NOARGS, "push_region(name)"},
    {"__exit__", (PyCFunction)(void (*)(void))kp_region_exit, METH_FASTCALL, "pop_region(); never suppresses"},
    {NULL, NULL, 0, NULL}};

static PyMemberDef kp_region_members[] = {
    {"name", T_OBJECT_EX, offsetof(kp_region, name), READONLY, "The region's name."}, {NULL, 0, 0, 0, NULL}};

static PyType_Slot kp_region_slots[] = {
    {Py_tp_new, kp_region_new},
    KP_TOOLS_HOLDER_SLOTS,
    {Py_tp_methods, kp_region_methods},
    {Py_tp_members, kp_region_members},
    {Py_tp_doc, "Region(name): a Kokkos Tools region as a context manager (pushRegion / popRegion)."},
    {0, NULL}};

static PyObject *kp_tools_create_profile_section(PyObject *mod, PyObject *name) {
  const char *s = kp_kokkos_text(name, "kokkos.tools.create_profile_section()", "name");
  if (!s) return NULL;
  uint32_t id = 0;
  KP_TOOLS_CALL("kokkos.tools.create_profile_section()", kp_tools_bridge_create_profile_section(s, &id, &err_));
  return PyLong_FromUnsignedLong(id);
}

#define KP_TOOLS_SECTION_FN(fname, bridge_fn)                                               \
  static PyObject *kp_tools_##fname(PyObject *mod, PyObject *arg) {                         \
    uint32_t id;                                                                            \
    if (kp_tools_u32(arg, "kokkos.tools." #fname "()", "section id", &id) < 0) return NULL; \
    KP_TOOLS_CALL("kokkos.tools." #fname "()", bridge_fn(id, &err_));                       \
    Py_RETURN_NONE;                                                                         \
  }

KP_TOOLS_SECTION_FN(destroy_profile_section, kp_tools_bridge_destroy_profile_section)
KP_TOOLS_SECTION_FN(start_section, kp_tools_bridge_start_section)
KP_TOOLS_SECTION_FN(stop_section, kp_tools_bridge_stop_section)

static PyObject *kp_tools_mark_event(PyObject *mod, PyObject *name) {
  const char *s = kp_kokkos_text(name, "kokkos.tools.mark_event()", "name");
  if (!s) return NULL;
  KP_TOOLS_CALL("kokkos.tools.mark_event()", kp_tools_bridge_mark_event(s, &err_));
  Py_RETURN_NONE;
}

static PyObject *kp_tools_declare_metadata(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "kokkos.tools.declare_metadata() takes 2 arguments (key, value), got %zd", nargs);
    return NULL;
  }
  const char *key = kp_kokkos_text(args[0], "kokkos.tools.declare_metadata()", "key");
  if (!key) return NULL;
  const char *value = kp_kokkos_text(args[1], "kokkos.tools.declare_metadata()", "value");
  if (!value) return NULL;
  KP_TOOLS_CALL("kokkos.tools.declare_metadata()", kp_tools_bridge_declare_metadata(key, value, &err_));
  Py_RETURN_NONE;
}

static PyObject *kp_tools_profile_library_loaded(PyObject *mod, PyObject *unused) {
  kp_tools_settle();
  return PyBool_FromLong(kp_tools_bridge_profile_library_loaded());
}

/* Kokkos reads its Tools library from KOKKOS_TOOLS_LIBS from 3.7 on (and
 * still from the older KOKKOS_PROFILE_LIBRARY), from KOKKOS_PROFILE_LIBRARY
 * alone before. */
int kp_tools_warn_unloaded(const char *where, const char *tools_libs) {
  if (kp_tools_bridge_profile_library_loaded()) return 0;
  const int v = kp_bridge_kokkos_version();
  const char *tools = getenv("KOKKOS_TOOLS_LIBS"), *profile = getenv("KOKKOS_PROFILE_LIBRARY");
  if (tools && !*tools) tools = NULL;
  if (profile && !*profile) profile = NULL;
  char version[32];
  snprintf(version, sizeof version, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
  if (tools_libs && *tools_libs)
    return PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                            "%s: Kokkos %s could not load the Tools library '%s' given as tools_libs (Kokkos prints "
                            "why on stderr), or it provides no Kokkos Tools callback; Kokkos runs without it",
                            where, version, tools_libs);
  if (v < 30700 && tools && !profile)
    return PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                            "%s: KOKKOS_TOOLS_LIBS='%s' is set, but Kokkos %s reads KOKKOS_PROFILE_LIBRARY (it reads "
                            "KOKKOS_TOOLS_LIBS from 3.7 on), so no Tools library was loaded; set "
                            "KOKKOS_PROFILE_LIBRARY='%s' or pass kokkos.initialize(tools_libs=...)",
                            where, tools, version, tools);
  const char *named = v >= 30700 && tools ? tools : profile;
  if (!named) return 0;
  return PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                          "%s: Kokkos %s could not load the Tools library '%s' named by %s (Kokkos prints why on "
                          "stderr), or it provides no Kokkos Tools callback; Kokkos runs without it",
                          where, version, named, named == tools ? "KOKKOS_TOOLS_LIBS" : "KOKKOS_PROFILE_LIBRARY");
}

int kp_tools_warn_after_auto_init(const char *where) { return kp_tools_warn_unloaded(where, NULL); }

/* _warn_unloaded(where, tools_libs): kp_tools_warn_unloaded for
 * kokkos.initialize() (tools_libs: str or None). */
static PyObject *kp_tools_py_warn_unloaded(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyUnicode_Check(args[0]) || (args[1] != Py_None && !PyUnicode_Check(args[1]))) {
    PyErr_SetString(PyExc_TypeError, "_warn_unloaded(where: str, tools_libs: str | None)");
    return NULL;
  }
  const char *where = PyUnicode_AsUTF8(args[0]);
  const char *libs = args[1] == Py_None ? NULL : PyUnicode_AsUTF8(args[1]);
  if (!where || (args[1] != Py_None && !libs)) return NULL;
  if (kp_tools_warn_unloaded(where, libs) < 0) return NULL;
  Py_RETURN_NONE;
}

/* Kokkos' pause_tools empties every slot at once: while a thread is inside
 * Kokkos that waits (kp_tools_settle), and Python callbacks stop now. */
static PyObject *kp_tools_pause(PyObject *mod, PyObject *unused) {
  if (!kp_work_idle() && !kp_tools_bridge_paused()) {
    kp_tools_g.pause_pending = 1;
    Py_RETURN_NONE;
  }
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_tools_bridge_pause(&err);
  if (s != KP_OK) return kp_raise_bridge(s, &err, "kokkos.tools.pause_tools()"), NULL;
  Py_RETURN_NONE;
}

static PyObject *kp_tools_resume(PyObject *mod, PyObject *unused) {
  if (kp_tools_g.pause_pending) { /* Kokkos never paused */
    kp_tools_g.pause_pending = 0;
    Py_RETURN_NONE;
  }
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_tools_bridge_resume(&err);
  if (s != KP_OK) return kp_raise_bridge(s, &err, "kokkos.tools.resume_tools()"), NULL;
  Py_RETURN_NONE;
}

static PyObject *kp_tools_paused(PyObject *mod, PyObject *unused) {
  return PyBool_FromLong(kp_tools_g.pause_pending || kp_tools_bridge_paused());
}

static PyObject *kp_tools_make_space_handle(PyObject *mod, PyObject *name) {
  const char *s = kp_kokkos_text(name, "kokkos.tools.make_space_handle()", "name");
  if (!s) return NULL;
  kp_tools_space_handle h;
  kp_tools_bridge_make_space_handle(s, &h);
  return kp_space_handle_from(&h);
}

/* ---- emptying slots -------------------------------------------------------------------------- */

/* Kokkos tests a Tools slot, may fence (which raises the fence events, so
 * Python callbacks run) and then calls through the slot, read again: a slot
 * emptied in between is a call through NULL. Between the test and the call
 * a thread is inside counted Kokkos work, inside a callback, or in Kokkos'
 * initialize or finalize, all known to the model layer; Python code can
 * only empty a slot from a callback or while another thread is in one of
 * these (it holds the GIL otherwise). So a slot is emptied only while no
 * thread is (kp_work_idle); until then it holds the trampoline, which finds
 * no callable and returns (a tool library's function is replaced by it at
 * once), and the model layer calls kp_tools_settle when the last thread
 * leaves. pause_tools(), which empties every slot, waits the same way.
 * Kokkos called from C++ threads the package does not see (a module's own
 * std::thread running kernels while Python removes a callback) is outside
 * this: Kokkos' table has no lock for that. */
static void kp_tools_settle(void) {
  if (!kp_work_idle()) return;
  if (kp_tools_g.pause_pending) {
    kp_error err;
    err.message[0] = 0;
    if (kp_tools_bridge_pause(&err) == KP_OK) kp_tools_g.pause_pending = 0; /* else tried again next time */
  }
  for (int e = 0; kp_tools_g.unhook_pending && e < KP_TOOLS_EVENT_COUNT; ++e) {
    const uint64_t bit = UINT64_C(1) << e;
    if (!(kp_tools_g.unhook_pending & bit)) continue;
    kp_error err;
    err.message[0] = 0;
    /* (a slot whose event got a callable again keeps the trampoline; a
     * failed emptying is tried again at the next settling) */
    if (kp_tools_g.callables[e] || kp_tools_bridge_set_callback(e, 0, &err) == KP_OK) kp_tools_g.unhook_pending &= ~bit;
  }
}

/* Empties event's slot now when no thread is inside Kokkos, else leaves the
 * trampoline in it (above). */
static kp_status kp_tools_unhook(int event, kp_error *err) {
  const uint64_t bit = UINT64_C(1) << event;
  if (kp_work_idle()) {
    kp_tools_g.unhook_pending &= ~bit;
    return kp_tools_bridge_set_callback(event, 0, err);
  }
  kp_status s = kp_tools_bridge_set_callback(event, 1, err);
  if (s == KP_OK) kp_tools_g.unhook_pending |= bit;
  return s;
}

/* ---- callbacks ------------------------------------------------------------------------------ */

/* _set_callback(event, fn): fn a callable or None (removes it). */
static PyObject *kp_tools_set_callback(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  static const char *where = "kokkos.tools.set_<event>_callback()";
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "_set_callback(event, callback) takes 2 arguments");
    return NULL;
  }
  int event = kp_tools_event_arg(args[0], where);
  if (event < 0) return NULL;
  PyObject *fn = args[1];
  const char *name = kp_tools_events[event].name;
  if (fn != Py_None && !PyCallable_Check(fn)) {
    PyErr_Format(PyExc_TypeError,
                 "kokkos.tools.set_%s_callback(): the callback must be callable or None (to remove it), got %.100s",
                 name, Py_TYPE(fn)->tp_name);
    return NULL;
  }
  if (!kp_tools_bridge_event_available(event)) {
    PyErr_Format(PyExc_RuntimeError, "kokkos.tools.set_%s_callback(): the installed Kokkos has no %s callback", name,
                 name);
    return NULL;
  }
  kp_error err;
  err.message[0] = 0;
  kp_status s;
  PyObject *old = kp_tools_g.callables[event];
  if (fn == Py_None) {
    /* Unhook first, then drop the callable: a handler that already entered
     * finds NULL under the GIL and returns. */
    s = kp_tools_unhook(event, &err);
    if (s != KP_OK) return kp_raise_bridge(s, &err, where), NULL;
    kp_tools_g.callables[event] = NULL;
  } else {
    kp_tools_g.unhook_pending &= ~(UINT64_C(1) << event);
    kp_tools_g.callables[event] = Py_NewRef(fn);
    s = kp_tools_bridge_set_callback(event, 1, &err);
    if (s != KP_OK) {
      Py_DECREF(fn);
      kp_tools_g.callables[event] = old;
      return kp_raise_bridge(s, &err, where), NULL;
    }
  }
  Py_XDECREF(old);
  kp_tools_settle();
  Py_RETURN_NONE;
}

/* _get_callback(event) -> the Python callable held for event, or None. */
static PyObject *kp_tools_get_callback(PyObject *mod, PyObject *arg) {
  int event = kp_tools_event_arg(arg, "_get_callback()");
  if (event < 0) return NULL;
  PyObject *fn = kp_tools_g.callables[event];
  return Py_NewRef(fn ? fn : Py_None);
}

/* _slot(event) -> (kind, address, library, symbol): what Kokkos' table
 * holds (kind 0 empty, 1 a Python callable, 2 a native function). */
static PyObject *kp_tools_py_slot(PyObject *mod, PyObject *arg) {
  int event = kp_tools_event_arg(arg, "_slot()");
  if (event < 0) return NULL;
  kp_tools_settle();
  kp_tools_slot_info info;
  kp_tools_bridge_slot(event, &info);
  PyObject *lib = PyUnicode_DecodeFSDefault(info.library);
  if (!lib) return NULL;
  return Py_BuildValue("(iKNs)", info.slot, (unsigned long long)info.address, lib, info.symbol);
}

/* _events() -> tuple of event names, indexed by event. */
static PyObject *kp_tools_event_names(PyObject *mod, PyObject *unused) {
  PyObject *t = PyTuple_New(KP_TOOLS_EVENT_COUNT);
  if (!t) return NULL;
  for (int i = 0; i < KP_TOOLS_EVENT_COUNT; ++i) {
    PyObject *s = PyUnicode_FromString(kp_tools_events[i].name);
    if (!s) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, i, s);
  }
  return t;
}

static PyObject *kp_tools_available(PyObject *mod, PyObject *arg) {
  int event = kp_tools_event_arg(arg, "_available()");
  if (event < 0) return NULL;
  return PyBool_FromLong(kp_tools_bridge_event_available(event));
}

static PyMethodDef kp_tools_methods[] = {
    {"profile_library_loaded", kp_tools_profile_library_loaded, METH_NOARGS,
     "profile_library_loaded() -> bool: True if any Kokkos Tools callback is set (a tool library or Python). "
     "False before Kokkos is initialized: Kokkos loads a Tools library (KOKKOS_TOOLS_LIBS, KOKKOS_PROFILE_LIBRARY "
     "on Kokkos 3.x before 3.7, or initialize(tools_libs=...)) when it initializes."},
    {"_warn_unloaded", (PyCFunction)(void (*)(void))kp_tools_py_warn_unloaded, METH_FASTCALL,
     "_warn_unloaded(where, tools_libs): RuntimeWarning when a Tools library was asked for but none is loaded."},
    {"push_region", kp_tools_push_region, METH_O, "push_region(name): Kokkos::Tools::pushRegion."},
    {"pop_region", kp_tools_pop_region, METH_NOARGS, "pop_region(): Kokkos::Tools::popRegion."},
    {"create_profile_section", kp_tools_create_profile_section, METH_O,
     "create_profile_section(name) -> int: Kokkos::Tools::createProfileSection; returns the section id."},
    {"destroy_profile_section", kp_tools_destroy_profile_section, METH_O,
     "destroy_profile_section(id): Kokkos::Tools::destroyProfileSection."},
    {"start_section", kp_tools_start_section, METH_O, "start_section(id): Kokkos::Tools::startSection."},
    {"stop_section", kp_tools_stop_section, METH_O, "stop_section(id): Kokkos::Tools::stopSection."},
    {"mark_event", kp_tools_mark_event, METH_O, "mark_event(name): Kokkos::Tools::markEvent."},
    {"declare_metadata", (PyCFunction)(void (*)(void))kp_tools_declare_metadata, METH_FASTCALL,
     "declare_metadata(key, value): Kokkos::Tools::declareMetadata."},
    {"pause_tools", kp_tools_pause, METH_NOARGS,
     "pause_tools(): Kokkos::Tools::Experimental::pause_tools (no callback fires until resume_tools)."},
    {"resume_tools", kp_tools_resume, METH_NOARGS,
     "resume_tools(): Kokkos::Tools::Experimental::resume_tools (does nothing unless paused)."},
    {"tools_paused", kp_tools_paused, METH_NOARGS, "tools_paused() -> bool: whether pause_tools() is in effect."},
    {"make_space_handle", kp_tools_make_space_handle, METH_O,
     "make_space_handle(name) -> SpaceHandle: Kokkos::Tools::make_space_handle."},
    {"_set_callback", (PyCFunction)(void (*)(void))kp_tools_set_callback, METH_FASTCALL, NULL},
    {"_internal_setup", kp_tools_internal_setup, METH_NOARGS, NULL},
    {"_internal_test", kp_tools_internal_test, METH_NOARGS, NULL},
    {"_get_callback", kp_tools_get_callback, METH_O, NULL},
    {"_slot", kp_tools_py_slot, METH_O, NULL},
    {"_events", kp_tools_event_names, METH_NOARGS, NULL},
    {"_available", kp_tools_available, METH_O, NULL},
    {NULL, NULL, 0, NULL}};

/* ---- registration ------------------------------------------------------------------------------ */

/* The types, each said once: its name, C struct, flags and slots. */
static PyType_Spec kp_tools_specs[KP_TOOLS_TYPE_COUNT] = {
    [KP_TOOLS_DEVICE_INFO] =
        KP_TOOLS_SPEC("DeviceInfo", kp_device_info, Py_TPFLAGS_IMMUTABLETYPE, kp_device_info_slots),
    [KP_TOOLS_SPACE_HANDLE] =
        KP_TOOLS_SPEC("SpaceHandle", kp_space_handle, Py_TPFLAGS_IMMUTABLETYPE, kp_space_handle_slots),
    [KP_TOOLS_TOOL_SETTINGS] =
        KP_TOOLS_SPEC("ToolSettings", kp_tool_settings, Py_TPFLAGS_IMMUTABLETYPE, kp_tool_settings_slots),
    [KP_TOOLS_PROGRAMMING_INTERFACE] =
        KP_TOOLS_SPEC("ToolProgrammingInterface", PyObject,
                      Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION, kp_programming_interface_slots),
    [KP_TOOLS_REGION] = KP_TOOLS_SPEC("Region", kp_region, Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, kp_region_slots),
};

int kp_tools_add_types(PyObject *sub, PyType_Spec *specs, int count, PyTypeObject **types) {
  for (int i = 0; i < count; ++i) {
    PyTypeObject *type = (PyTypeObject *)PyType_FromModuleAndSpec(sub, &specs[i], NULL);
    if (!type) return -1;
    const char *name = strrchr(specs[i].name, '.') + 1;
    if (PyModule_AddObjectRef(sub, name, (PyObject *)type) < 0) {
      Py_DECREF(type);
      return -1;
    }
    Py_XSETREF(types[i], type); /* process-wide: the handlers need them */
  }
  return 0;
}

PyObject *kp_tools_add(PyObject *module) {
  PyObject *sub = PyModule_New("kokkos._core._tools");
  if (!sub) return NULL;
  if (PyModule_AddFunctions(sub, kp_tools_methods) < 0) goto fail;
  if (kp_tools_add_types(sub, kp_tools_specs, KP_TOOLS_TYPE_COUNT, kp_tools_g.types) < 0) goto fail;
  PyObject *version = PyLong_FromUnsignedLongLong(kp_tools_bridge_interface_version());
  if (!version) goto fail;
  int rc = PyModule_AddObjectRef(sub, "KOKKOSP_INTERFACE_VERSION", version);
  Py_DECREF(version);
  if (rc < 0) goto fail;
  kp_tools_bridge_set_handlers(&kp_tools_handler_table);
  kp_work_on_idle(kp_tools_settle);
  if (PyModule_AddObjectRef(module, "_tools", sub) < 0) goto fail;
  Py_DECREF(sub); /* module holds it */
  return sub;
fail:
  Py_DECREF(sub);
  return NULL;
}
