/* dlpack.c: the DLPack producer side and what both sides share:
 * View.__dlpack__ and __dlpack_device__, the one description of a View as
 * a DLTensor (kp_dl_describe, which the capsule export here and the View
 * type's C exchange table, dlpack_api.c, both use), and the mappings
 * between memory spaces and DLPack devices and between dtypes and DLPack
 * data types. The consumer side (kokkos.from_dlpack, a producer's tensor
 * as a View) is dlpack_import.c's.
 *
 * Python equivalent:
 *
 *     class View:
 *         def __dlpack__(self, *, stream=None, max_version=None,
 *                        dl_device=None, copy=None) -> PyCapsule
 *         def __dlpack_device__(self) -> tuple[int, int]
 *
 * Ownership: a capsule owns one kp_dl_export (managed tensor, shape and
 * strides in one allocation) that holds a strong reference to the View's
 * Allocation and counts itself in Allocation.exports, so the memory
 * outlives the View and survives Kokkos' finalize. The consumer renames the
 * capsule "used_..." and calls the deleter once; a capsule nobody consumed
 * calls it from its destructor. The deleter may run on any thread, with or
 * without the GIL; while the interpreter shuts down it leaks rather than
 * touch Python objects that may be gone.
 *
 * Stream ordering is stream.c's.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "copy.h"

#include <string.h>

#include "exchange.h"
#include "exchange_bridge.h"

/* ---- shared helpers ---------------------------------------------------------------- */

int kp_dl_parse_copy(PyObject *obj, const char *where, int *out) {
  *out = -1;
  if (!obj || obj == Py_None) return 0;
  if (!PyBool_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: copy must be True, False or None, got %.100s", where, Py_TYPE(obj)->tp_name);
    return -1;
  }
  *out = obj == Py_True;
  return 0;
}

int kp_dl_parse_int_pair(PyObject *obj, const char *what, const char *where, long *a, long *b) {
  if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2 || !PyLong_Check(PyTuple_GET_ITEM(obj, 0)) ||
      !PyLong_Check(PyTuple_GET_ITEM(obj, 1))) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be a tuple of two ints, got %R", where, what, obj);
    return -1;
  }
  *a = PyLong_AsLong(PyTuple_GET_ITEM(obj, 0));
  if (*a == -1 && PyErr_Occurred()) return -1;
  *b = PyLong_AsLong(PyTuple_GET_ITEM(obj, 1));
  if (*b == -1 && PyErr_Occurred()) return -1;
  return 0;
}

/* Names of the DLPack device types, for messages. */
static const char *const kp_dl_device_names[] = {
    [KP_DL_CPU] = "CPU",
    [KP_DL_CUDA] = "CUDA",
    [KP_DL_CUDA_HOST] = "CUDAHost",
    [KP_DL_OPENCL] = "OpenCL",
    [KP_DL_VULKAN] = "Vulkan",
    [KP_DL_METAL] = "Metal",
    [KP_DL_VPI] = "VPI",
    [KP_DL_ROCM] = "ROCM",
    [KP_DL_ROCM_HOST] = "ROCMHost",
    [KP_DL_EXT_DEV] = "ExtDev",
    [KP_DL_CUDA_MANAGED] = "CUDAManaged",
    [KP_DL_ONEAPI] = "OneAPI",
    [KP_DL_WEBGPU] = "WebGPU",
    [KP_DL_HEXAGON] = "Hexagon",
    [KP_DL_MAIA] = "MAIA",
    [KP_DL_TRN] = "Trn",
};

const char *kp_dl_device_name(int32_t device_type) {
  const char *name = NULL;
  if (device_type >= 0 && (size_t)device_type < sizeof kp_dl_device_names / sizeof kp_dl_device_names[0])
    name = kp_dl_device_names[device_type];
  return name ? name : "unknown";
}

int kp_space_from_dlpack_device(int32_t device_type) {
  if (device_type <= 0) return -1;
  /* Shared and device USM are both OneAPI to DLPack: assume the one the
   * host may not touch. */
  if (device_type == KP_DL_ONEAPI) return KP_SPACE_SYCL_DEVICE_USM;
  for (int i = 0; i < KP_SPACE_COUNT; ++i)
    if (kp_spaces[i].dlpack_device == device_type) return i;
  return -1;
}

void kp_dlpack_device_of(int space, int32_t *device_type, int32_t *device_id) {
  *device_type = kp_spaces[space].dlpack_device;
  *device_id = *device_type == KP_DL_CPU ? 0 : kp_bridge_device_id(space);
}

/* ---- export ---------------------------------------------------------------------------- */

void kp_dl_describe(const kp_view *v, int32_t device_type, int32_t device_id, kp_dl_shape *copy, kp_dl_tensor *t) {
  t->data = v->data;
  t->device.device_type = device_type;
  t->device.device_id = device_id;
  t->ndim = v->rank;
  t->dtype.code = kp_dtypes[v->dtype].dlpack_code;
  t->dtype.bits = kp_dtypes[v->dtype].dlpack_bits;
  t->dtype.lanes = 1;
  t->byte_offset = 0;
  /* Strides always filled (required since DLPack 1.2), even for rank 0. */
  if (copy) {
    for (int r = 0; r < v->rank; ++r) {
      copy->shape[r] = (int64_t)v->shape[r];
      copy->strides[r] = (int64_t)v->strides[r];
    }
    t->shape = copy->shape;
    t->strides = copy->strides;
  } else {
#if SIZEOF_SIZE_T == 8
    t->shape = (int64_t *)v->shape; /* Py_ssize_t is int64_t here */
    t->strides = (int64_t *)v->strides;
#else
    t->shape = NULL; /* not reached: callers pass copy where Py_ssize_t is narrower */
    t->strides = NULL;
#endif
  }
}

void kp_dl_export_release(kp_dl_export *e) {
  if (!e) return;
  /* At shutdown the Allocation may be gone already: leak the block. */
  if (!Py_IsInitialized() || kp_is_finalizing()) return;
  int held = PyGILState_Check();
  PyGILState_STATE g = PyGILState_UNLOCKED;
  if (!held) g = PyGILState_Ensure();
  kp_owner *o = e->owner;
  PyMem_Free(e);
  if (o) {
    o->exports -= 1;
    Py_DECREF(o);
  }
  if (!held) PyGILState_Release(g);
}

static void export_deleter_versioned(kp_dl_managed_tensor_versioned *m) {
  kp_dl_export_release((kp_dl_export *)m->manager_ctx);
}
static void export_deleter_legacy(kp_dl_managed_tensor *m) { kp_dl_export_release((kp_dl_export *)m->manager_ctx); }

kp_dl_export *kp_dl_export_new(kp_view *v, int versioned, uint32_t minor, int32_t dev_type, int32_t dev_id,
                               uint64_t flags) {
  kp_dl_export *e = (kp_dl_export *)PyMem_Malloc(sizeof *e); /* freed with the GIL held */
  if (!e) {
    PyErr_NoMemory();
    return NULL;
  }
  memset(&e->managed, 0, sizeof e->managed);
  e->owner = NULL;
  kp_dl_describe(v, dev_type, dev_id, &e->shape,
                 versioned ? &e->managed.versioned.dl_tensor : &e->managed.legacy.dl_tensor);
  if (versioned) {
    e->managed.versioned.version.major = KP_DL_MAJOR_VERSION;
    e->managed.versioned.version.minor = minor;
    e->managed.versioned.manager_ctx = e;
    e->managed.versioned.deleter = export_deleter_versioned;
    e->managed.versioned.flags = flags;
  } else {
    e->managed.legacy.manager_ctx = e;
    e->managed.legacy.deleter = export_deleter_legacy;
  }
  if (v->owner) {
    e->owner = (kp_owner *)Py_NewRef((PyObject *)v->owner);
    e->owner->exports += 1;
  }
  return e;
}

/* Destructor of exported capsules: a consumer renames the capsule when it
 * takes the tensor, so only a capsule nobody consumed still owns one. */
static void dlpack_capsule_destructor(PyObject *capsule) {
  if (PyCapsule_IsValid(capsule, KP_DL_CAPSULE_VERSIONED)) {
    kp_dl_managed_tensor_versioned *m =
        (kp_dl_managed_tensor_versioned *)PyCapsule_GetPointer(capsule, KP_DL_CAPSULE_VERSIONED);
    if (m && m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(capsule, KP_DL_CAPSULE_LEGACY)) {
    kp_dl_managed_tensor *m = (kp_dl_managed_tensor *)PyCapsule_GetPointer(capsule, KP_DL_CAPSULE_LEGACY);
    if (m && m->deleter) m->deleter(m);
  }
}

/* What a consumer asked __dlpack__ for, parsed and checked against the View. */
typedef struct dl_request {
  int versioned;    /* the versioned struct (max_version >= (1, 0)) */
  uint32_t minor;   /* its minor version: the lower of the consumer's and ours */
  int32_t dev_type; /* the device the consumer sees the memory on */
  int32_t dev_id;
  int copy_space;     /* where a copy goes (when need_copy) */
  int need_copy;      /* copy=True, or a CPU export of memory the host cannot reach */
  int no_sync;        /* stream=-1: the consumer orders its use itself */
  uintptr_t consumer; /* the consumer's stream (protocol integer) */
} dl_request;

/* max_version: the versioned struct when the consumer reads DLPack >= 1.0. */
static int parse_max_version(PyObject *max_version, const char *where, dl_request *rq) {
  rq->versioned = 0;
  rq->minor = KP_DL_MINOR_VERSION;
  if (!max_version || max_version == Py_None) return 0;
  long major, cminor;
  if (kp_dl_parse_int_pair(max_version, "max_version", where, &major, &cminor) < 0) return -1;
  if (major >= 1) rq->versioned = 1;
  if (major == KP_DL_MAJOR_VERSION && cminor >= 0 && (uint32_t)cminor < rq->minor) rq->minor = (uint32_t)cminor;
  return 0;
}

/* dl_device: the View's own device, or the CPU (copying when the host
 * cannot reach the memory, unless copy=False forbids it). */
static int parse_dl_device(kp_view *v, PyObject *dl_device, int copy, const char *where, dl_request *rq) {
  if (kp_view_require_device_reach(v, PyExc_BufferError, where) < 0) return -1;
  int32_t own_type, own_id;
  kp_dlpack_device_of(v->space, &own_type, &own_id);
  if (own_type <= 0) {
    PyErr_Format(PyExc_BufferError,
                 "%s: View '%U' lives in %s, which has no DLPack device type; copy it into a View "
                 "in %s first",
                 where, v->label, kp_spaces[v->space].name, kp_spaces[KP_SPACE_HOST].name);
    return -1;
  }
  rq->dev_type = own_type;
  rq->dev_id = own_id;
  rq->copy_space = v->space;
  rq->need_copy = copy == 1;
  if (!dl_device || dl_device == Py_None) return 0;
  long t, id;
  if (kp_dl_parse_int_pair(dl_device, "dl_device", where, &t, &id) < 0) return -1;
  if (t == own_type && id == own_id) return 0;
  if (t == KP_DL_CPU && id == 0) {
    rq->dev_type = KP_DL_CPU;
    rq->dev_id = 0;
    rq->copy_space = KP_SPACE_HOST;
    if (!kp_bridge_space_host_accessible(v->space)) {
      if (copy == 0) {
        PyErr_Format(PyExc_BufferError,
                     "%s: View '%U' lives in %s, which the host cannot access; exporting it to the "
                     "CPU (dl_device=(1, 0)) needs a copy: pass copy=True or copy=None",
                     where, v->label, kp_spaces[v->space].name);
        return -1;
      }
      rq->need_copy = 1;
    }
    return 0;
  }
  PyErr_Format(PyExc_BufferError,
               "%s: cannot export View '%U' (in %s, DLPack device (%d, %d) %s) to DLPack device "
               "(%ld, %ld); ask for its own device or the CPU, (1, 0)",
               where, v->label, kp_spaces[v->space].name, (int)own_type, (int)own_id, kp_dl_device_name(own_type), t,
               id);
  return -1;
}

/* stream, per the protocol: None for the CPU; for CUDA 1 (legacy default),
 * 2 (per-thread default) or a handle, never 0, and None means 1; for ROCm 0
 * or a handle, and None means 0; -1 everywhere means "do not synchronize".
 * Needs rq->dev_type. */
static int parse_stream(PyObject *stream_obj, const char *where, dl_request *rq) {
  rq->no_sync = 0;
  rq->consumer = kp_dl_is_cuda_device(rq->dev_type) ? 1 : 0;
  if (!stream_obj || stream_obj == Py_None) return 0;
  if (!PyLong_Check(stream_obj) || PyBool_Check(stream_obj)) {
    PyErr_Format(PyExc_TypeError, "%s: stream must be an int or None, got %.100s", where, Py_TYPE(stream_obj)->tp_name);
    return -1;
  }
  int overflow = 0;
  long long s = PyLong_AsLongLongAndOverflow(stream_obj, &overflow);
  if (s == -1 && PyErr_Occurred()) return -1;
  if (rq->dev_type == KP_DL_CPU) {
    PyErr_Format(PyExc_ValueError, "%s: stream must be None for a tensor on the CPU, got %R", where, stream_obj);
    return -1;
  }
  if (overflow == 0 && s < -1) {
    PyErr_Format(PyExc_ValueError, "%s: stream %lld is not a stream: pass -1, None, or a stream handle", where, s);
    return -1;
  }
  if (kp_dl_is_cuda_device(rq->dev_type) && overflow == 0 && s == 0) {
    PyErr_Format(PyExc_ValueError,
                 "%s: stream 0 is ambiguous for CUDA and not allowed by DLPack; pass 1 for the legacy "
                 "default stream, 2 for the per-thread default stream, or a stream handle",
                 where);
    return -1;
  }
  if (kp_dl_is_rocm_device(rq->dev_type) && overflow == 0 && (s == 1 || s == 2)) {
    PyErr_Format(PyExc_ValueError,
                 "%s: stream %lld is not allowed for ROCm by DLPack; pass 0 for the default stream or a "
                 "stream handle",
                 where, s);
    return -1;
  }
  rq->no_sync = overflow == 0 && s == -1;
  if (!rq->no_sync) {
    rq->consumer = (uintptr_t)PyLong_AsUnsignedLongLongMask(stream_obj);
    if (rq->consumer == (uintptr_t)-1 && PyErr_Occurred()) return -1;
  }
  return 0;
}

/* View.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) */
PyObject *kp_view_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const kp_signature sig = {"View.__dlpack__()", 0, 0};
  const char *where = sig.name;
  kp_view *v = (kp_view *)self;
  PyObject *stream, *max_version, *dl_device, *copy_o;
  const kp_param params[] = {
      {KP_KW_STREAM, &stream}, {KP_KW_MAX_VERSION, &max_version}, {KP_KW_DL_DEVICE, &dl_device}, {KP_KW_COPY, &copy_o}};
  if (kp_args_parse(kp_state_from_type(Py_TYPE(self)), &sig, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0)
    return NULL;
  int copy;
  dl_request rq;
  if (kp_dl_parse_copy(copy_o, where, &copy) < 0 || parse_max_version(max_version, where, &rq) < 0 ||
      parse_dl_device(v, dl_device, copy, where, &rq) < 0 || parse_stream(stream, where, &rq) < 0)
    return NULL;

  /* Parsing may have run Python code (__index__): check again. */
  if (kp_view_check_released(v)) return NULL;
  if (v->readonly && !rq.versioned && !rq.need_copy) {
    PyErr_Format(PyExc_BufferError,
                 "%s: View '%U' is read-only, and the legacy DLPack capsule the consumer asked for "
                 "(no max_version >= (1, 0)) cannot say so; use a consumer that reads DLPack 1.0 capsules "
                 "(NumPy >= 2.1, PyTorch >= 2.5, ...) or pass copy=True",
                 where, v->label);
    return NULL;
  }

  kp_view *src = (kp_view *)Py_NewRef(self);
  uint64_t flags = 0;
  if (rq.need_copy) {
    kp_state *st = kp_state_from_type(Py_TYPE(self));
    kp_view *c = st ? kp_view_copy_to_space(st, v, rq.copy_space, NULL, where) : NULL;
    if (!c) {
      Py_DECREF(src);
      return NULL;
    }
    Py_SETREF(src, c);
    flags |= KP_DL_FLAG_IS_COPIED;
  } else if (v->readonly) {
    flags |= KP_DL_FLAG_READ_ONLY;
  }
  /* The consumer may use the memory at once: order it after the work
   * Kokkos queued on it (stream.c). A copy is complete already. */
  if (!rq.need_copy && !rq.no_sync && kp_order_export(src->space, rq.dev_type, rq.consumer, where) < 0) {
    Py_DECREF(src);
    return NULL;
  }
  kp_dl_export *e = kp_dl_export_new(src, rq.versioned, rq.minor, rq.dev_type, rq.dev_id, flags);
  Py_DECREF(src);
  if (!e) return NULL;
  PyObject *cap = PyCapsule_New(&e->managed, rq.versioned ? KP_DL_CAPSULE_VERSIONED : KP_DL_CAPSULE_LEGACY,
                                dlpack_capsule_destructor);
  if (!cap) kp_dl_export_release(e);
  return cap;
}

/* View.__dlpack_device__() -> (device_type, device_id) */
PyObject *kp_view_dlpack_device(PyObject *self, PyObject *unused) {
  kp_view *v = (kp_view *)self;
  int32_t t, id;
  kp_dlpack_device_of(v->space, &t, &id);
  if (t <= 0) {
    PyErr_Format(PyExc_BufferError, "View.__dlpack_device__(): %s has no DLPack device type", kp_spaces[v->space].name);
    return NULL;
  }
  return Py_BuildValue("(ii)", (int)t, (int)id);
}

/* ---- DLPack data types ------------------------------------------------------------------- */

int kp_dl_dtype_index(kp_dl_data_type dt) {
  if (dt.lanes != 1) return -1;
  for (int i = 0; i < KP_DTYPE_COUNT; ++i)
    if (kp_dtypes[i].dlpack_code == dt.code && kp_dtypes[i].dlpack_bits == dt.bits) return i;
  return -1;
}

void kp_dl_raise_dtype(const char *where, kp_dl_data_type dt) {
  static const char *const codes[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
  if (dt.lanes == 1 && dt.code <= KP_DL_BOOL && dt.code != KP_DL_OPAQUE_HANDLE)
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor's element type %s%u has no Kokkos View dtype (supported: %s); convert it first", where,
                 codes[dt.code], (unsigned)dt.bits, kp_dtype_supported());
  else
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor's element type (DLPack code %u, %u bits, %u lanes) has no Kokkos View "
                 "dtype (supported: %s)",
                 where, (unsigned)dt.code, (unsigned)dt.bits, (unsigned)dt.lanes, kp_dtype_supported());
}
