/* base.h: the base layer's functions and types (src/core/base/): the
 * dtype table, the memory-space table and the layout, execution-space and
 * memory-trait names, whether a device space's code can reach host memory,
 * the argument parser, sparse pointer tables, the module state lookup, and
 * bridge status -> exception. Every layer may include it.
 */
#ifndef KOKKOS_PYTHON_BASE_H
#define KOKKOS_PYTHON_BASE_H

#include "core.h"

/* ---- dtypes (dtype.c) ---------------------------------------------------- */

typedef enum kp_dtype_kind { KP_KIND_BOOL, KP_KIND_INT, KP_KIND_UINT, KP_KIND_FLOAT, KP_KIND_COMPLEX } kp_dtype_kind;

/* One dtype: a row of the public header's KOKKOS_PYTHON_DTYPE_ROWS
 * (tables.h), with what follows from its kind and C type. */
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

/* ---- memory spaces, layouts, traits (space.c) ---------------------------- */

/* One memory space: a row of the public header's KOKKOS_PYTHON_SPACE_ROWS
 * (tables.h), by space number. */
typedef struct kp_space_info {
  const char *name;       /* the space's name, spelled only in its row */
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

extern const char *const kp_layout_names[KP_LAYOUT_COUNT];
/* Execution-space (backend) names, indexed by KP_EXEC_* (bridge.h). */
extern const char *const kp_exec_names[KP_EXEC_COUNT];

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

extern const char *const kp_kw_names[KP_KW_COUNT];

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

/* ---- sparse tables of pointers (slots.c) ---------------------------------------- */

/* Allocates the block index of a table of count pointers; -1 with MemoryError. */
int kp_slots_init(kp_slots *t, size_t count);
/* Entry i, or NULL when never set (allocates nothing). */
void *kp_slots_get(const kp_slots *t, size_t i);
/* Sets entry i (allocating its block on first use); -1 with MemoryError
 * (or SystemError for i out of range or a table not initialized). */
int kp_slots_set(kp_slots *t, size_t i, void *value);
/* Calls release on every entry set (when release is not NULL) and frees the table. */
void kp_slots_free(kp_slots *t, void (*release)(void *));

/* ---- module state lookup (state.c) --------------------------------------- */

/* module.c's module definition, by which state.c finds the module: the one
 * reference upward (docs/architecture.md). */
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

#endif /* KOKKOS_PYTHON_BASE_H */
