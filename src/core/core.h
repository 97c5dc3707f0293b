/* core.h: declarations shared by the files of the kokkos._core extension:
 * the enum tables (dtypes, memory spaces, layouts, memory traits), the
 * argument parser, the module state, and each layer's functions that other
 * layers call, section by section with the file that defines them.
 *
 * The files, one concern each, in layers (base, model, copy, exchange,
 * access, tools, then module.c / view_type.c / array.c on top), are listed
 * in docs/architecture.md's table of files per layer, which
 * tests/test_architecture.py compares with the tree. A layer's own headers
 * (exchange/exchange.h, tools/tools.h) are on its files' include path only
 * (CMakeLists.txt).
 */
#ifndef KOKKOS_PYTHON_CORE_H
#define KOKKOS_PYTHON_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "bridge.h"
#include "compat.h"

/* ---- dtypes ---------------------------------------------------------------- */

typedef enum kp_dtype_kind { KP_KIND_BOOL, KP_KIND_INT, KP_KIND_UINT, KP_KIND_FLOAT, KP_KIND_COMPLEX } kp_dtype_kind;

typedef struct kp_dtype {
  const char *name;       /* canonical name: "float64" */
  const char *aliases[4]; /* the original package's aliases: "double", ... */
  kp_dtype_kind kind;
  Py_ssize_t itemsize;
  const char *format;  /* PEP 3118 format */
  const char *typestr; /* __array_interface__ typestr (little-endian host) */
  uint8_t dlpack_code; /* kDLInt 0, kDLUInt 1, kDLFloat 2, kDLComplex 5, kDLBool 6 */
  uint8_t dlpack_bits;
  /* Reads one element at p as a new Python object. */
  PyObject *(*get)(const char *p);
  /* Converts obj and stores it at p; -1 with an exception on failure. */
  int (*set)(char *p, PyObject *obj);
} kp_dtype;

/* The dtypes, one row each in C ABI order (float16 appended after bool):
 * the KP_DTYPE_* numbers, and capi.c checks each against the public
 * header's KOKKOS_PYTHON_* number. The rest of a row (name, aliases,
 * sizes, formats) is kp_dtypes' row in dtype.c. */
#define KP_DTYPE_ROWS(X) \
  X(INT8)                \
  X(INT16)               \
  X(INT32)               \
  X(INT64)               \
  X(UINT8)               \
  X(UINT16)              \
  X(UINT32)              \
  X(UINT64)              \
  X(FLOAT32)             \
  X(FLOAT64)             \
  X(COMPLEX64)           \
  X(COMPLEX128)          \
  X(BOOL)                \
  X(FLOAT16)
#define KP_DTYPE_ENUM_ROW(id) KP_DTYPE_##id,
enum { KP_DTYPE_ROWS(KP_DTYPE_ENUM_ROW) KP_DTYPE_COUNT };
#undef KP_DTYPE_ENUM_ROW

extern const kp_dtype kp_dtypes[KP_DTYPE_COUNT];

/* Index of the dtype named by obj (a kokkos.dtype member or int, a name,
 * a numpy dtype or scalar type, or anything with a .dtype / .str); -1 with
 * TypeError / ValueError naming `where` otherwise. */
int kp_dtype_from_object(PyObject *obj, const char *where);
/* Index of the dtype with this PEP 3118 format / typestr, or -1 (no error set). */
int kp_dtype_from_format(const char *format, Py_ssize_t itemsize);
/* "bool, int8, int16, ..., complex128": every dtype's name, for the
 * "supported: ..." part of messages (built once from the table). */
const char *kp_dtype_supported(void);
int kp_dtype_from_typestr(const char *typestr);

/* ---- memory spaces, layouts, traits -------------------------------------- */

/* One memory space: a row of bridge.h's KP_SPACE_ROWS, by space number. */
typedef struct kp_space_info {
  const char *name;       /* the space's name, spelled only in KP_SPACE_ROWS */
  const char *aliases[6]; /* other names Python accepts; NULL-terminated */
  int dlpack_device;      /* DLPack device type (0: none) */
  int backend;            /* KP_BACKEND_* */
  int kind;               /* KP_MEMORY_*: host-accessible unless KP_MEMORY_DEVICE */
} kp_space_info;

extern const kp_space_info kp_spaces[KP_SPACE_COUNT];
/* The columns' names, for Python (_tables()). */
extern const char *const kp_backend_names[KP_BACKEND_COUNT];
extern const char *const kp_memory_kind_names[KP_MEMORY_KIND_COUNT];
/* The backend (KP_BACKEND_*) of the spaces with this DLPack device type, or
 * -1 if no space has it (no error set). */
int kp_dlpack_device_backend(int32_t device_type);

/* Layouts, one row each (numbers checked against the public header in capi.c;
 * names in kp_layout_names, space.c). */
#define KP_LAYOUT_ROWS(X) X(RIGHT) X(LEFT) X(STRIDE)
#define KP_LAYOUT_ENUM_ROW(id) KP_LAYOUT_##id,
enum { KP_LAYOUT_ROWS(KP_LAYOUT_ENUM_ROW) KP_LAYOUT_COUNT };
#undef KP_LAYOUT_ENUM_ROW
extern const char *const kp_layout_names[KP_LAYOUT_COUNT];
/* Execution-space (backend) names, indexed by KP_EXEC_* (bridge.h). */
extern const char *const kp_exec_names[KP_EXEC_COUNT];

/* Memory traits are flags, as Kokkos::MemoryTraits<...>: one row each
 * (id, flag), Managed (no flag) first, the others in flag order; numbers
 * checked against the public header in capi.c, names in kp_traits
 * (space.c), which everything else (the View repr, the class names, the
 * Python IntFlag) reads. */
#define KP_TRAIT_ROWS(X) \
  X(MANAGED, 0)          \
  X(UNMANAGED, 1)        \
  X(RANDOM_ACCESS, 2)    \
  X(ATOMIC, 4)           \
  X(RESTRICT, 8)         \
  X(ALIGNED, 16)
#define KP_TRAIT_ENUM_ROW(id, flag) KP_TRAIT_##id = flag,
#define KP_TRAIT_COUNT_ROW(id, flag) +1
enum { KP_TRAIT_ROWS(KP_TRAIT_ENUM_ROW) KP_TRAIT_ALL = 31, KP_TRAIT_COUNT = 0 KP_TRAIT_ROWS(KP_TRAIT_COUNT_ROW) };
#undef KP_TRAIT_ENUM_ROW
#undef KP_TRAIT_COUNT_ROW
typedef struct kp_trait_info {
  const char *name; /* "RandomAccess": the one spelling of the name */
  unsigned flag;
} kp_trait_info;
extern const kp_trait_info kp_traits[KP_TRAIT_COUNT];
/* The name of the trait with this flag ("?" for none). */
const char *kp_trait_name(unsigned flag);
/* Writes every trait's name, each after prefix, joined by ", " into out
 * (size bytes): "kokkos.Managed, kokkos.Unmanaged, ...". */
void kp_trait_list(const char *prefix, char *out, size_t size);
/* Writes the names of traits' flags joined by "|" ("Managed" for none) into
 * out (size bytes). */
void kp_trait_names(unsigned traits, char *out, size_t size);

/* Parse a memory space / layout / trait argument (enum member, int or
 * name); -1 with an exception naming `where` on failure. */
int kp_space_from_object(PyObject *obj, const char *where);
int kp_layout_from_object(PyObject *obj, const char *where);
int kp_trait_from_object(PyObject *obj, const char *where);
/* Raises RuntimeError unless space is enabled in this Kokkos. */
int kp_space_check_available(int space, const char *where);

/* ---- can a device space's code reach host memory (reach.c) ----------------- */

struct kp_state;
struct kp_host_registration;

/* How a device space's code reaches host memory that a View of that space
 * is made over (kokkos.unmanaged_array(ndarray, space=CudaSpace)). */
typedef struct kp_host_reach {
  void *device_data;                         /* the address device code reads the memory at */
  struct kp_host_registration *registration; /* pages registered for it (NULL: none), given back with the View */
  int refused;                               /* the device cannot read it: kernels, copies and exports refuse */
} kp_host_reach;

/* The one answer to "can space's code reach [data, data + bytes)", a host
 * buffer: directly (space is host-accessible; the runtime knows the memory:
 * pinned, registered or managed; the GPU reads pageable memory: HMM, ATS),
 * or once its pages are registered with the device runtime, which this does
 * (host_register.h). KOKKOS_PYTHON_PAGEABLE_ACCESS=0 treats the GPU as one
 * without pageable memory access; KOKKOS_PYTHON_REGISTER_HOST_MEMORY=0
 * registers nothing (out->refused instead). -1 with
 * kokkos.DeviceAccessError naming where when the runtime refuses. */
int kp_space_reach_host(struct kp_state *st, int space, void *data, size_t bytes, kp_host_reach *out,
                        const char *where);

/* ---- arguments (args.c) -------------------------------------------------------- */

/* Keyword names of the module's functions, interned in the module state. */
enum {
  KP_KW_SHAPE,
  KP_KW_DTYPE,
  KP_KW_LABEL,
  KP_KW_SPACE,
  KP_KW_LAYOUT,
  KP_KW_TRAIT,
  KP_KW_INITIALIZE,
  KP_KW_ARRAY,
  KP_KW_DYNAMIC,
  KP_KW_ORDER,
  KP_KW_COPY,
  KP_KW_SRC,
  KP_KW_OBJ,
  KP_KW_FIRST, /* shape_label_or_array */
  KP_KW_DST,
  KP_KW_STREAM,
  KP_KW_MAX_VERSION,
  KP_KW_DL_DEVICE,
  KP_KW_X,
  KP_KW_DEVICE,
  KP_KW_COUNT
};
extern const char *const kp_kw_names[KP_KW_COUNT];

/* Enumeration families of the kokkos package (kokkos.dtype, ...). */
enum { KP_FAMILY_DTYPE, KP_FAMILY_SPACE, KP_FAMILY_LAYOUT, KP_FAMILY_TRAIT, KP_FAMILY_DEVICE, KP_FAMILY_COUNT };

/* Most arguments of a parsed function. */
#define KP_ARGS_MAX 12

/* A function's signature for kp_args_parse: its name as messages show it
 * ("kokkos.array()"), how many parameters may be given positionally, how
 * many are required, and how many leading parameters are positional-only
 * (before a '/'; 0 when none is). */
typedef struct kp_signature {
  const char *name;
  int positional;
  int required;
  int posonly;
} kp_signature;

/* One parameter, in signature order: its keyword name (KP_KW_*) bound to
 * the variable that receives its argument (borrowed, NULL when not given). */
typedef struct kp_param {
  int kw;
  PyObject **dest;
} kp_param;
/* The number of entries of a kp_param array; a compile error past KP_ARGS_MAX. */
#define KP_PARAM_COUNT(params)                   \
  ((int)(sizeof(params) / sizeof((params)[0])) + \
   0 * (int)sizeof(char[(sizeof(params) / sizeof((params)[0])) <= KP_ARGS_MAX ? 1 : -1]))

/* Names and constants of the exchange protocols, made once per module
 * (import.c, kp_exchange_init): attribute names, the version and device tuples
 * passed to producers' __dlpack__, and the keyword-name tuples of those calls. */
enum {
  KP_DL_STR_DLPACK,            /* "__dlpack__" */
  KP_DL_STR_DLPACK_DEVICE,     /* "__dlpack_device__" */
  KP_DL_STR_EXCHANGE_API,      /* "__dlpack_c_exchange_api__" */
  KP_DL_STR_CAI,               /* "__cuda_array_interface__" */
  KP_DL_MAX_VERSION,           /* (1, 3): the DLPack version this project reads */
  KP_DL_CPU_DEVICE,            /* (1, 0): DLPack's CPU device */
  KP_DL_KW_MAX_VERSION,        /* ("max_version",) */
  KP_DL_KW_STREAM_MAX_VERSION, /* ("stream", "max_version") */
  KP_DL_KW_STREAM,             /* ("stream",) */
  KP_DL_KW_HOST_COPY,          /* ("max_version", "dl_device", "copy") */
  KP_DL_CONST_COUNT
};

/* ---- sparse tables of pointers (slots.c) ---------------------------------------- */

/* count pointers, stored in blocks allocated on first write; every entry
 * NULL until set. */
enum { KP_SLOTS_BLOCK = 128 };
typedef struct kp_slots {
  size_t count;
  size_t nblocks;
  void ***blocks; /* the block index (kp_slots_init); a block is NULL until written */
} kp_slots;
/* Allocates the block index of a table of count pointers; -1 with MemoryError. */
int kp_slots_init(kp_slots *t, size_t count);
/* Entry i, or NULL when never set (allocates nothing). */
void *kp_slots_get(const kp_slots *t, size_t i);
/* Sets entry i (allocating its block on first use); -1 with MemoryError
 * (or SystemError for i out of range or a table not initialized). */
int kp_slots_set(kp_slots *t, size_t i, void *value);
/* Calls release on every entry set (when release is not NULL) and frees the table. */
void kp_slots_free(kp_slots *t, void (*release)(void *));

/* ---- module state ------------------------------------------------------------ */

/* Entries of the C API's label cache (a power of two). */
#define KP_CAPI_LABELS 64

typedef struct kp_state {
  PyTypeObject *view_type;
  PyTypeObject *dyn_rank_view_type;
  PyTypeObject *allocation_type;
  /* Members of the Python enums registered by the kokkos package, indexed
   * by value (tuples); NULL until registered, then properties use them. */
  PyObject *dtype_members;
  PyObject *space_members;
  PyObject *layout_members;
  PyObject *trait_enum; /* memory_trait IntFlag class */
  PyObject *shape_type; /* kokkos' Shape (a tuple subclass) */
  /* Raised when host code touches memory the host cannot access; a
   * subclass of both BufferError and RuntimeError. */
  PyObject *host_access_error;
  /* Raised when a kernel, a device copy or a device consumer would be given
   * memory the device cannot read (KP_REACH_NO_DEVICE); a subclass of
   * ValueError, BufferError and RuntimeError. */
  PyObject *device_access_error;
  /* kokkos.pickling's _reduce_ex, imported by the first View.__reduce_ex__
   * (pickling.c); NULL until then. */
  PyObject *reducer;
  PyObject *kw[KP_KW_COUNT];             /* interned keyword names (args.c) */
  PyObject *dl[KP_DL_CONST_COUNT];       /* the exchange protocols' names and constants (import.c) */
  PyObject *enum_types[KP_FAMILY_COUNT]; /* the enumeration classes, once registered */
  kp_slots label_cache;                  /* default labels of kokkos.array (strong), by kind/dtype/rank/layout/space */
  PyObject *capi_labels[KP_CAPI_LABELS]; /* labels of Views handed over through the C API (strong; capi.c) */
  /* The per-combination View classes (view_class.c): a list of (class,
   * name bytes) holding them, and a table of borrowed pointers indexed by
   * the combination, allocated on first use. */
  PyObject *view_classes;
  kp_slots view_class_table;     /* borrowed, indexed by combination */
  PyType_Slot *view_class_slots; /* the classes' slots (view.c's kp_view_class_slots) */
  PyObject *module;              /* borrowed: the module owning this state */
} kp_state;

/* Interns the keyword names into st; -1 with an exception. */
int kp_args_init(kp_state *st);
void kp_args_clear(kp_state *st);
/* Parses a METH_FASTCALL | METH_KEYWORDS call against sig and its count
 * parameters: each parameter's variable receives its argument (borrowed)
 * or NULL if not given; -1 with TypeError naming sig->name on unknown,
 * repeated, missing or too many arguments. */
int kp_args_parse(kp_state *st, const kp_signature *sig, const kp_param *params, int count, PyObject *const *args,
                  Py_ssize_t nargs, PyObject *kwnames);
/* obj's truth (dflt if obj is NULL); -1 with TypeError naming where and name. */
int kp_args_bool(PyObject *obj, const char *where, const char *name, int dflt);
/* dtype / space / layout / trait arguments: enum members of their own
 * family, ints, names and the other accepted spellings; a member of another
 * family is a TypeError naming the family wanted. -1 with an exception. */
int kp_arg_dtype(kp_state *st, PyObject *obj, const char *where);
int kp_arg_space(kp_state *st, PyObject *obj, const char *where);
int kp_arg_layout(kp_state *st, PyObject *obj, const char *where);
int kp_arg_trait(kp_state *st, PyObject *obj, const char *where);
/* Takes the enumeration classes from the registered members (module.c's
 * _register_enums). */
int kp_args_register_enum_types(kp_state *st);

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

extern PyModuleDef kp_module_def;
/* The state of the kokkos._core module that defined type (borrowed, never NULL
 * for our types). */
kp_state *kp_state_from_type(PyTypeObject *type);
/* The state of the imported kokkos._core module (borrowed), or NULL with an
 * exception set. */
kp_state *kp_state_global(void);

/* ---- errors ------------------------------------------------------------------------ */

/* Sets the Python exception for a failed bridge call; returns -1. */
int kp_raise_bridge(kp_status status, const kp_error *err, const char *where);

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
  int queued; /* its zero fill may still be queued on Kokkos' default instance (device-only spaces) */
  struct kp_owner *prev, *next;
  PyObject *weakreflist;
} kp_owner;

extern PyType_Spec kp_owner_spec;

/* New reference to an Allocation of bytes in space (zeroed unless
 * !zero), or NULL with an exception. Kokkos must be initialized (the caller
 * applies kp_runtime_ensure), so owner.c never calls up to runtime.c. */
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
/* 1 when another thread is finalizing Kokkos (waiting for the work in
 * flight, the GIL given up): a finalize() now has nothing to do. */
int kp_work_finalizing_elsewhere(void);
/* Python's finalize, before it calls Kokkos': refuses new work and waits for
 * other threads' work in flight and Tools callbacks. A callback may wait for
 * this thread, so the wait for one is bounded (KOKKOS_PYTHON_FINALIZE_WAIT
 * seconds, 30 by default): 0, or -1 with RuntimeError naming the callback
 * and where, work allowed again and Kokkos left running. */
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

/* ---- View (view.c) ----------------------------------------------------------------- */

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
/* _view_class(dynamic, dtype, space, layout, traits, rank): the class (new reference). */
PyObject *kp_py_view_class(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

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
  PyObject *label;    /* str */
  Py_ssize_t exports; /* live buffer exports of this object */
  PyObject *cai;      /* __cuda_array_interface__, built once (NULL until then) */
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
} kp_view_spec;

/* New View with fresh memory; NULL with exception. */
kp_view *kp_view_allocate(kp_state *st, const kp_view_spec *spec, PyObject *label);
/* New View over existing memory held by owner (a new reference is taken).
 * strides in elements; layout is derived from them. */
kp_view *kp_view_wrap(kp_state *st, PyTypeObject *type, kp_owner *owner, char *data, int rank, const Py_ssize_t *shape,
                      const Py_ssize_t *strides, int dtype, int space, unsigned traits, int readonly, PyObject *label);
/* kp_view_wrap with the layout given (it must describe the strides: a
 * rank-1 or extent-1 View fits more than one) instead of derived, and the
 * span of the strides already checked (kp_check_span) by the caller, or
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
int kp_view_is_c_contiguous(const kp_view *v);
int kp_view_is_f_contiguous(const kp_view *v);
/* LAYOUT_RIGHT / LEFT / STRIDE that describes these strides. */
int kp_layout_of(int rank, const Py_ssize_t *shape, const Py_ssize_t *strides);
/* Overflow-checked product of extents, times itemsize; -1 with exception. */
int kp_checked_bytes(int rank, const Py_ssize_t *shape, Py_ssize_t itemsize, size_t *out, const char *where);
/* 0 if the elements of an array with these extents and element strides
 * span at most PY_SSIZE_T_MAX bytes (so offset arithmetic cannot overflow;
 * foreign strides may lie); else BufferError naming where, -1. */
int kp_check_span(int rank, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize, const char *where);
/* Contiguous element strides for a layout. */
void kp_contiguous_strides(int rank, const Py_ssize_t *shape, int layout, Py_ssize_t *strides);

/* Makes type's calls (View(...), DynRankView(...)) vector calls. */
void kp_view_type_set_vectorcall(PyTypeObject *type);
/* Sets the View type's class attributes that no slot declares (view_type.c);
 * -1 with an exception. */
int kp_view_type_add_class_attributes(PyTypeObject *view_type);
/* Parses a shape argument (an int or a sequence of ints) into spec->rank
 * and spec->shape; -1 with TypeError / ValueError naming where. */
int kp_parse_shape(PyObject *obj, kp_view_spec *spec, int max_rank, const char *where);
/* -1 with ValueError if the str label holds NUL characters. */
int kp_check_label_text(PyObject *label, const char *where);

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

/* ---- buffers (buffer.c) ------------------------------------------------------------ */

int kp_view_getbuffer(PyObject *self, Py_buffer *view, int flags);
void kp_view_releasebuffer(PyObject *self, Py_buffer *view);
PyObject *kp_view_array_interface(kp_view *self, void *closure);
/* New View over obj's memory (buffer protocol or __array_interface__),
 * keeping obj alive; NULL with an exception naming where (TypeError if obj
 * exposes neither). */
kp_view *kp_view_from_buffer_object(kp_state *st, PyObject *obj, int writable, PyObject *label, int dynamic,
                                    const char *where);

PyObject *kp_py_wrap(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* ---- C API (capi.c) ------------------------------------------------------------------ */

/* Publishes the C function table as kokkos._core._C_API; -1 with exception. */
int kp_capi_add(PyObject *module);
/* Drops the C API's label cache (module clear). */
void kp_capi_clear(kp_state *st);
/* Adds the Kokkos Tools submodule kokkos._core._tools (tools.c): the
 * submodule (borrowed: module holds it), or NULL on error. */
PyObject *kp_tools_add(PyObject *module);
/* Adds the tuning types and calls to that submodule and registers the
 * tuning handlers with the bridge (tuning.c); -1 on error. */
int kp_tuning_add(PyObject *tools_module);
/* Makes the exchange protocols' names and constants (st->dl) (import.c); -1
 * with an exception. */
int kp_exchange_init(kp_state *st);
/* A new capsule holding the View type's DLPack C exchange table, the value
 * of its class attribute __dlpack_c_exchange_api__ (dlpack_api.c). */
PyObject *kp_dlpack_exchange_api_capsule(void);
/* from_dlpack(x, /, *, device=None, copy=None, label=None) (dlpack.c). */
PyObject *kp_py_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* _view_from_object(obj, label=None): kokkos.asarray's zero-copy step, and
 * _from_cuda_array_interface(obj, label=None): the CAI import alone, for
 * objects that also speak DLPack (import.c). */
PyObject *kp_py_view_from_object(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *kp_py_from_cuda_array_interface(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* After Kokkos initialized: a RuntimeWarning, naming where (the call that
 * initialized it), when a Tools library was asked for (tools_libs, the
 * initialize() keyword, may be NULL; or the environment) but none is loaded,
 * saying which variable this Kokkos reads. 0, or -1 when the warning was
 * turned into an error (tools.c). */
int kp_tools_warn_unloaded(const char *where, const char *tools_libs);
/* kp_tools_warn_unloaded(where, NULL): the hook kp_runtime_after_auto_init
 * points at (tools.c). */
int kp_tools_warn_after_auto_init(const char *where);

/* View methods whose bodies live with their protocol; view_type.c lists them in
 * the View type's one method and getset table. */
/* __dlpack__(*, stream, max_version, dl_device, copy) (dlpack.c). */
PyObject *kp_view_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* __dlpack_device__() (dlpack.c). */
PyObject *kp_view_dlpack_device(PyObject *self, PyObject *unused);
/* __cuda_array_interface__ getter (cai.c): a new dict for Views in CUDA
 * spaces, AttributeError for others. */
PyObject *kp_view_cuda_array_interface(PyObject *self, void *closure);
/* __reduce_ex__(protocol) (pickling.c): calls kokkos.pickling's reducer. */
PyObject *kp_view_reduce_ex(PyObject *self, PyObject *protocol);
/* New View sharing obj's memory through DLPack, __cuda_array_interface__,
 * __array_interface__ or the buffer protocol (obj itself if a View); NULL
 * with an exception naming where, the caller ("kokkos.deep_copy()")
 * (import.c). */
kp_view *kp_view_from_exchange(kp_state *st, PyObject *obj, PyObject *label, const char *where);

/* _view_from_bytes(buf, dtype, shape, layout, label, dynamic, traits): an
 * Unmanaged View over a contiguous buffer, for unpickling (pickling.c). */
PyObject *kp_py_view_from_bytes(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif /* KOKKOS_PYTHON_CORE_H */
