/* dlpack.c: DLPack both ways, and the DLPack 1.3 C exchange table.
 *
 * Python equivalent:
 *
 *     class View:
 *         def __dlpack__(self, *, stream=None, max_version=None,
 *                        dl_device=None, copy=None) -> PyCapsule
 *         def __dlpack_device__(self) -> tuple[int, int]
 *         __dlpack_c_exchange_api__ = PyCapsule("dlpack_exchange_api")
 *     def from_dlpack(x, /, *, device=None, copy=None, label=None) -> View
 *     def _view_from_object(obj, label=None) -> View   # kokkos.asarray's import
 *
 * Ownership, export: a capsule owns one kp_dl_export (managed tensor, shape
 * and strides in one allocation) that holds a strong reference to the
 * View's Allocation and counts itself in Allocation.exports, so the memory
 * outlives the View and survives Kokkos' finalize. The consumer renames the
 * capsule "used_..." and calls the deleter once; a capsule nobody consumed
 * calls it from its destructor. The deleter may run on any thread, with or
 * without the GIL; while the interpreter shuts down it leaks rather than
 * touch Python objects that may be gone.
 *
 * Ownership, import: the View's Allocation (KP_OWNER_EXTERNAL) owns the
 * producer's managed tensor and calls its deleter exactly once, when the
 * last View, subview or export of that memory goes. The producer keeps its
 * memory alive until then.
 */
#include "core.h"

#include <string.h>

#include "dlpack.h"
#include "exchange.h"
#include "exchange_bridge.h"

/* ---- shared helpers ---------------------------------------------------------------- */

/* Parses copy=None/True/False into -1/1/0; -1 with TypeError (returns -2). */
static int parse_copy(PyObject *obj, const char *where, int *out) {
  *out = -1;
  if (!obj || obj == Py_None) return 0;
  if (!PyBool_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: copy must be True, False or None, got %.100s", where, Py_TYPE(obj)->tp_name);
    return -1;
  }
  *out = obj == Py_True;
  return 0;
}

/* Parses a (int, int) tuple such as a DLPack device or version. */
static int parse_int_pair(PyObject *obj, const char *what, const char *where, long *a, long *b) {
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

static int is_cuda_device(int32_t t) { return t == KP_DL_CUDA || t == KP_DL_CUDA_HOST || t == KP_DL_CUDA_MANAGED; }
static int is_rocm_device(int32_t t) { return t == KP_DL_ROCM || t == KP_DL_ROCM_HOST; }

static const char *device_name(int32_t t) {
  switch (t) {
    case KP_DL_CPU:
      return "CPU";
    case KP_DL_CUDA:
      return "CUDA";
    case KP_DL_CUDA_HOST:
      return "CUDAHost";
    case KP_DL_OPENCL:
      return "OpenCL";
    case KP_DL_VULKAN:
      return "Vulkan";
    case KP_DL_METAL:
      return "Metal";
    case KP_DL_VPI:
      return "VPI";
    case KP_DL_ROCM:
      return "ROCM";
    case KP_DL_ROCM_HOST:
      return "ROCMHost";
    case KP_DL_EXT_DEV:
      return "ExtDev";
    case KP_DL_CUDA_MANAGED:
      return "CUDAManaged";
    case KP_DL_ONEAPI:
      return "OneAPI";
    case KP_DL_WEBGPU:
      return "WebGPU";
    case KP_DL_HEXAGON:
      return "Hexagon";
    case KP_DL_MAIA:
      return "MAIA";
    case KP_DL_TRN:
      return "Trn";
    default:
      return "unknown";
  }
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

/* Blocks until Kokkos' queued work is done, GIL released; -1 with exception. */
static int fence_kokkos(const char *where) {
  if (!kp_bridge_is_initialized()) return 0; /* nothing can be queued */
  kp_error err;
  err.message[0] = 0;
  kp_status s;
  Py_BEGIN_ALLOW_THREADS
  s = kp_bridge_fence("kokkos.View.__dlpack__", &err);
  Py_END_ALLOW_THREADS
  return s == KP_OK ? 0 : kp_raise_bridge(s, &err, where);
}

/* Waits for a foreign stream (protocol integer) of space's backend. */
static int wait_stream(int space, uintptr_t stream, const char *where) {
  kp_error err;
  err.message[0] = 0;
  kp_status s;
  Py_BEGIN_ALLOW_THREADS
  s = kp_bridge_stream_synchronize(space, stream, &err);
  Py_END_ALLOW_THREADS
  return s == KP_OK ? 0 : kp_raise_bridge(s, &err, where);
}

/* Makes stream `waiter` (a protocol integer) of space's backend wait for
 * the work Kokkos queued so far on its own stream; -1 with exception. */
static int order_after_kokkos(int space, uintptr_t waiter, const char *where) {
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_bridge_stream_wait(space, waiter, kp_bridge_kokkos_stream(space), &err);
  return s == KP_OK ? 0 : kp_raise_bridge(s, &err, where);
}

/* Makes Kokkos' stream wait for the work queued so far on a producer's
 * stream (a protocol integer), so Kokkos' later work on the memory comes
 * after it; when the host can reach the memory, the host waits too (it may
 * read at once). Initializes Kokkos (its stream exists from then on); -1
 * with exception. */
int kp_order_import(int space, uintptr_t producer, const char *where) {
  if (kp_bridge_space_host_accessible(space)) return wait_stream(space, producer, where);
  if (kp_runtime_ensure() < 0) return -1;
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_bridge_stream_wait(space, kp_bridge_kokkos_stream(space), producer, &err);
  return s == KP_OK ? 0 : kp_raise_bridge(s, &err, where);
}

kp_view *kp_view_copy_to_space(kp_state *st, kp_view *src, int space, PyObject *label, const char *where) {
  if (kp_view_check_released(src)) return NULL;
  if (kp_space_check_available(space, where) < 0) return NULL;
  kp_view_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.rank = src->rank;
  for (int r = 0; r < src->rank; ++r) spec.shape[r] = src->shape[r];
  spec.dtype = src->dtype;
  spec.space = space;
  spec.layout = (kp_view_is_f_contiguous(src) && !kp_view_is_c_contiguous(src)) ? KP_LAYOUT_LEFT : KP_LAYOUT_RIGHT;
  spec.zero = 0;
  kp_view *dst = kp_view_allocate(st, &spec, label ? label : src->label);
  if (!dst) return NULL;
  if (kp_copy_views(dst, src, where) < 0) {
    Py_DECREF(dst);
    return NULL;
  }
  return dst;
}

/* ---- export ---------------------------------------------------------------------------- */

typedef struct kp_dl_export {
  union {
    kp_dl_managed_tensor_versioned versioned;
    kp_dl_managed_tensor legacy;
  } managed;       /* first: the managed tensor's address is the export's */
  kp_owner *owner; /* strong reference, counted in owner->exports; NULL for empty Views */
  int64_t shape[KP_MAX_RANK];
  int64_t strides[KP_MAX_RANK];
} kp_dl_export;

/* Drops the export: uncounts and releases the Allocation, frees the block.
 * Any thread, GIL held or not. */
static void export_release(kp_dl_export *e) {
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
  export_release((kp_dl_export *)m->manager_ctx);
}
static void export_deleter_legacy(kp_dl_managed_tensor *m) { export_release((kp_dl_export *)m->manager_ctx); }

/* A new export of v's memory as seen from device (dev_type, dev_id). */
static kp_dl_export *export_new(kp_view *v, int versioned, uint32_t minor, int32_t dev_type, int32_t dev_id,
                                uint64_t flags) {
  kp_dl_export *e = (kp_dl_export *)PyMem_Malloc(sizeof *e); /* freed with the GIL held */
  if (!e) {
    PyErr_NoMemory();
    return NULL;
  }
  memset(&e->managed, 0, sizeof e->managed);
  e->owner = NULL;
  kp_dl_tensor *t = versioned ? &e->managed.versioned.dl_tensor : &e->managed.legacy.dl_tensor;
  t->data = v->data;
  t->device.device_type = dev_type;
  t->device.device_id = dev_id;
  t->ndim = v->rank;
  t->dtype.code = kp_dtypes[v->dtype].dlpack_code;
  t->dtype.bits = kp_dtypes[v->dtype].dlpack_bits;
  t->dtype.lanes = 1;
  for (int r = 0; r < v->rank; ++r) {
    e->shape[r] = (int64_t)v->shape[r];
    e->strides[r] = (int64_t)v->strides[r];
  }
  /* Strides always filled (required since DLPack 1.2), even for rank 0. */
  t->shape = e->shape;
  t->strides = e->strides;
  t->byte_offset = 0;
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

/* View.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) */
PyObject *kp_view_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const kp_signature sig = {
      "View.__dlpack__()", 4, 0, 0, {KP_KW_STREAM, KP_KW_MAX_VERSION, KP_KW_DL_DEVICE, KP_KW_COPY}};
  const char *where = sig.name;
  kp_view *v = (kp_view *)self;
  PyObject *a[4];
  if (kp_args_parse(kp_state_from_type(Py_TYPE(self)), &sig, args, nargs, kwnames, a) < 0) return NULL;
  PyObject *stream_obj = a[0], *max_version = a[1], *dl_device = a[2];

  int copy;
  if (parse_copy(a[3], where, &copy) < 0) return NULL;

  /* The versioned struct when the consumer reads DLPack >= 1.0; its minor
   * version is the lower of the consumer's and this project's. */
  int versioned = 0;
  uint32_t minor = KP_DL_MINOR_VERSION;
  if (max_version && max_version != Py_None) {
    long major, cminor;
    if (parse_int_pair(max_version, "max_version", where, &major, &cminor) < 0) return NULL;
    if (major >= 1) versioned = 1;
    if (major == KP_DL_MAJOR_VERSION && cminor >= 0 && (uint32_t)cminor < minor) minor = (uint32_t)cminor;
  }

  int32_t own_type, own_id;
  kp_dlpack_device_of(v->space, &own_type, &own_id);
  if (own_type <= 0) {
    PyErr_Format(PyExc_BufferError,
                 "%s: View '%U' lives in %s, which has no DLPack device type; copy it into a View "
                 "in HostSpace first",
                 where, v->label, kp_spaces[v->space].name);
    return NULL;
  }
  int32_t dev_type = own_type, dev_id = own_id;
  int copy_space = v->space;
  int need_copy = copy == 1;
  if (dl_device && dl_device != Py_None) {
    long t, id;
    if (parse_int_pair(dl_device, "dl_device", where, &t, &id) < 0) return NULL;
    if (t == own_type && id == own_id) {
      /* its own device */
    } else if (t == KP_DL_CPU && id == 0) {
      dev_type = KP_DL_CPU;
      dev_id = 0;
      copy_space = KP_SPACE_HOST;
      if (!kp_bridge_space_host_accessible(v->space)) {
        if (copy == 0) {
          PyErr_Format(PyExc_BufferError,
                       "%s: View '%U' lives in %s, which the host cannot access; exporting it to the "
                       "CPU (dl_device=(1, 0)) needs a copy: pass copy=True or copy=None",
                       where, v->label, kp_spaces[v->space].name);
          return NULL;
        }
        need_copy = 1;
      }
    } else {
      PyErr_Format(PyExc_BufferError,
                   "%s: cannot export View '%U' (in %s, DLPack device (%d, %d) %s) to DLPack device "
                   "(%ld, %ld); ask for its own device or the CPU, (1, 0)",
                   where, v->label, kp_spaces[v->space].name, (int)own_type, (int)own_id, device_name(own_type), t, id);
      return NULL;
    }
  }

  /* Stream values per the protocol: None for the CPU; for CUDA 1 (legacy
   * default), 2 (per-thread default) or a handle, never 0, and None means
   * 1; for ROCm 0 or a handle, and None means 0; -1 everywhere means "do
   * not synchronize". */
  int no_sync = 0;
  uintptr_t consumer = is_cuda_device(dev_type) ? 1 : 0;
  if (stream_obj && stream_obj != Py_None) {
    if (!PyLong_Check(stream_obj) || PyBool_Check(stream_obj)) {
      PyErr_Format(PyExc_TypeError, "%s: stream must be an int or None, got %.100s", where,
                   Py_TYPE(stream_obj)->tp_name);
      return NULL;
    }
    int overflow = 0;
    long long s = PyLong_AsLongLongAndOverflow(stream_obj, &overflow);
    if (s == -1 && PyErr_Occurred()) return NULL;
    if (dev_type == KP_DL_CPU) {
      PyErr_Format(PyExc_ValueError, "%s: stream must be None for a tensor on the CPU, got %R", where, stream_obj);
      return NULL;
    }
    if (overflow == 0 && s < -1) {
      PyErr_Format(PyExc_ValueError, "%s: stream %lld is not a stream: pass -1, None, or a stream handle", where, s);
      return NULL;
    }
    if (is_cuda_device(dev_type) && overflow == 0 && s == 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s: stream 0 is ambiguous for CUDA and not allowed by DLPack; pass 1 for the legacy "
                   "default stream, 2 for the per-thread default stream, or a stream handle",
                   where);
      return NULL;
    }
    if (is_rocm_device(dev_type) && overflow == 0 && (s == 1 || s == 2)) {
      PyErr_Format(PyExc_ValueError,
                   "%s: stream %lld is not allowed for ROCm by DLPack; pass 0 for the default stream or a "
                   "stream handle",
                   where, s);
      return NULL;
    }
    no_sync = overflow == 0 && s == -1;
    if (!no_sync) {
      consumer = (uintptr_t)PyLong_AsUnsignedLongLongMask(stream_obj);
      if (consumer == (uintptr_t)-1 && PyErr_Occurred()) return NULL;
    }
  }

  /* Parsing may have run Python code (__index__): check again. */
  if (kp_view_check_released(v)) return NULL;
  if (v->readonly && !versioned && !need_copy) {
    PyErr_Format(PyExc_BufferError,
                 "%s: View '%U' is read-only, and the legacy DLPack capsule the consumer asked for "
                 "(no max_version >= (1, 0)) cannot say so; use a consumer that reads DLPack 1.0 capsules "
                 "(NumPy >= 2.1, PyTorch >= 2.5, ...) or pass copy=True",
                 where, v->label);
    return NULL;
  }

  kp_view *src = (kp_view *)Py_NewRef(self);
  uint64_t flags = 0;
  if (need_copy) {
    kp_state *st = kp_state_from_type(Py_TYPE(self));
    kp_view *c = st ? kp_view_copy_to_space(st, v, copy_space, NULL, where) : NULL;
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
   * Kokkos queued on it. A copy is complete already; host execution spaces
   * finish before they return. On a device the consumer's stream waits for
   * Kokkos' stream through an event (the host does not block); a host
   * consumer of device-backed memory (a CPU export of CudaUVMSpace) waits
   * for all of Kokkos' work. */
  if (!need_copy && !no_sync && src->space != KP_SPACE_HOST && kp_bridge_is_initialized()) {
    int rc = (dev_type == KP_DL_CPU || !(is_cuda_device(dev_type) || is_rocm_device(dev_type)))
                 ? fence_kokkos(where)
                 : order_after_kokkos(src->space, consumer, where);
    if (rc < 0) {
      Py_DECREF(src);
      return NULL;
    }
  }
  kp_dl_export *e = export_new(src, versioned, minor, dev_type, dev_id, flags);
  Py_DECREF(src);
  if (!e) return NULL;
  PyObject *cap =
      PyCapsule_New(&e->managed, versioned ? KP_DL_CAPSULE_VERSIONED : KP_DL_CAPSULE_LEGACY, dlpack_capsule_destructor);
  if (!cap) export_release(e);
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

/* ---- import ------------------------------------------------------------------------------- */

static void managed_release_versioned(void *ctx) {
  kp_dl_managed_tensor_versioned *m = (kp_dl_managed_tensor_versioned *)ctx;
  if (m->deleter) m->deleter(m);
}

static void managed_release_legacy(void *ctx) {
  kp_dl_managed_tensor *m = (kp_dl_managed_tensor *)ctx;
  if (m->deleter) m->deleter(m);
}

/* Calls release(ctx) with the pending exception set aside: a producer's
 * deleter may run Python code, which must not see it. */
static void release_keeping_error(void (*release)(void *), void *ctx) {
  PyObject *exc = kp_fetch_exception();
  release(ctx);
  kp_restore_exception(exc);
}

static void release_versioned_keeping_error(kp_dl_managed_tensor_versioned *m) {
  release_keeping_error(managed_release_versioned, m);
}

/* The dtype index of a DLPack data type, or -1. */
static int dtype_from_dl(kp_dl_data_type dt) {
  if (dt.lanes != 1) return -1;
  for (int i = 0; i < KP_DTYPE_COUNT; ++i)
    if (kp_dtypes[i].dlpack_code == dt.code && kp_dtypes[i].dlpack_bits == dt.bits) return i;
  return -1;
}

static void raise_dtype(const char *where, kp_dl_data_type dt) {
  static const char *const codes[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
  if (dt.lanes == 1 && dt.code <= KP_DL_BOOL && dt.code != KP_DL_OPAQUE_HANDLE)
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor's element type %s%u has no Kokkos View dtype (supported: bool, "
                 "int8..int64, uint8..uint64, float16, float32, float64, complex64, complex128); convert it first",
                 where, codes[dt.code], (unsigned)dt.bits);
  else
    PyErr_Format(
        PyExc_BufferError,
        "%s: the tensor's element type (DLPack code %u, %u bits, %u lanes) has no Kokkos View "
        "dtype (supported: bool, int8..int64, uint8..uint64, float16, float32, float64, complex64, complex128)",
        where, (unsigned)dt.code, (unsigned)dt.bits, (unsigned)dt.lanes);
}

/* A new Unmanaged View over the tensor of managed (versioned or legacy),
 * whose ownership this call takes: on failure it calls the deleter. */
static kp_view *view_from_managed(kp_state *st, void *managed, int versioned, PyObject *label, const char *where) {
  kp_dl_tensor *t;
  uint64_t flags = 0;
  void (*release)(void *);
  if (versioned) {
    kp_dl_managed_tensor_versioned *m = (kp_dl_managed_tensor_versioned *)managed;
    release = managed_release_versioned;
    if (m->version.major != KP_DL_MAJOR_VERSION) {
      /* Only version, manager_ctx and deleter may be read: release it. */
      unsigned major = m->version.major, minor = m->version.minor;
      release(managed);
      PyErr_Format(PyExc_BufferError,
                   "%s: the producer sent a DLPack %u.%u tensor; kokkos reads DLPack major version %d", where, major,
                   minor, KP_DL_MAJOR_VERSION);
      return NULL;
    }
    t = &m->dl_tensor;
    flags = m->flags;
  } else {
    release = managed_release_legacy;
    t = &((kp_dl_managed_tensor *)managed)->dl_tensor;
  }

  int dtype = dtype_from_dl(t->dtype);
  if (dtype < 0) {
    raise_dtype(where, t->dtype);
    goto fail;
  }
  if (t->ndim < 0 || t->ndim > KP_MAX_RANK) {
    PyErr_Format(PyExc_BufferError, "%s: a rank-%d tensor exceeds Kokkos' maximum View rank %d", where, (int)t->ndim,
                 KP_MAX_RANK);
    goto fail;
  }
  int32_t dev = t->device.device_type;
  int space = kp_space_from_dlpack_device(dev);
  if (space < 0) {
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor lives on DLPack device type %d (%s), which no Kokkos memory space "
                 "describes; copy it to the CPU first",
                 where, (int)dev, device_name(dev));
    goto fail;
  }
  if (!kp_bridge_space_available(space)) {
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor lives on %s device %d, but this Kokkos has no %s; copy it to the host "
                 "first (kokkos.from_dlpack(x, device=kokkos.HostSpace) asks the producer for a host copy)",
                 where, device_name(dev), (int)t->device.device_id, kp_spaces[space].name);
    goto fail;
  }
  if (dev != KP_DL_CPU && !kp_bridge_space_host_accessible(space)) {
    int kid = kp_bridge_device_id(space);
    if (t->device.device_id != kid) {
      PyErr_Format(PyExc_BufferError,
                   "%s: the tensor lives on %s device %d, but Kokkos runs on device %d; move it to "
                   "device %d first (or initialize Kokkos with device_id=%d)",
                   where, device_name(dev), (int)t->device.device_id, kid, kid, (int)t->device.device_id);
      goto fail;
    }
  }
  int rank = (int)t->ndim;
  Py_ssize_t shape[KP_MAX_RANK], strides[KP_MAX_RANK];
  for (int r = 0; r < rank; ++r) {
    if (t->shape[r] < 0 || t->shape[r] > PY_SSIZE_T_MAX) {
      PyErr_Format(PyExc_BufferError, "%s: the tensor's shape[%d] is %lld", where, r, (long long)t->shape[r]);
      goto fail;
    }
    shape[r] = (Py_ssize_t)t->shape[r];
  }
  if (t->strides) {
    for (int r = 0; r < rank; ++r) {
      if (t->strides[r] > PY_SSIZE_T_MAX || t->strides[r] < -PY_SSIZE_T_MAX) {
        PyErr_Format(PyExc_BufferError, "%s: the tensor's strides[%d] is %lld", where, r, (long long)t->strides[r]);
        goto fail;
      }
      strides[r] = (Py_ssize_t)t->strides[r];
    }
  } else {
    kp_contiguous_strides(rank, shape, KP_LAYOUT_RIGHT, strides); /* before DLPack 1.2: compact row-major */
  }
  size_t bytes;
  Py_ssize_t itemsize = kp_dtypes[dtype].itemsize;
  if (kp_checked_bytes(rank, shape, itemsize, &bytes, where) < 0) goto fail;
  if (kp_check_span(rank, shape, strides, itemsize, where) < 0) goto fail;
  char *data = (char *)t->data + t->byte_offset;
  if (bytes > 0) {
    if (!t->data) {
      PyErr_Format(PyExc_BufferError, "%s: the tensor has %zu bytes of elements but a NULL data pointer", where, bytes);
      goto fail;
    }
    size_t align = (size_t)(itemsize > 8 ? 8 : itemsize);
    if (((uintptr_t)data) % align) {
      PyErr_Format(PyExc_BufferError,
                   "%s: the tensor's data address %p is not aligned to its %zd-byte elements; Kokkos "
                   "Views need aligned data (copy the tensor first)",
                   where, (void *)data, itemsize);
      goto fail;
    }
  }
  int readonly = (flags & KP_DL_FLAG_READ_ONLY) != 0;
  /* From here the Allocation owns the tensor (and releases it on failure). */
  kp_owner *owner = kp_owner_from_deleter(st, space, data, release, managed, 0);
  if (!owner) return NULL;
  kp_view *v = kp_view_wrap(st, st->view_type, owner, data, rank, shape, strides, dtype, space, KP_TRAIT_UNMANAGED,
                            readonly, label);
  Py_DECREF(owner);
  return v;
fail:
  release_keeping_error(release, managed);
  return NULL;
}

/* A View over a DLPack capsule, which this call consumes. */
static kp_view *view_from_capsule(kp_state *st, PyObject *cap, PyObject *label, const char *where) {
  int versioned;
  if (PyCapsule_IsValid(cap, KP_DL_CAPSULE_VERSIONED)) {
    versioned = 1;
  } else if (PyCapsule_IsValid(cap, KP_DL_CAPSULE_LEGACY)) {
    versioned = 0;
  } else {
    const char *name = PyCapsule_GetName(cap);
    if (!name) PyErr_Clear();
    if (name && strncmp(name, "used_", 5) == 0)
      PyErr_Format(PyExc_BufferError,
                   "%s: this DLPack capsule was consumed already (a capsule can be imported once; call "
                   "__dlpack__() again for a new one)",
                   where);
    else
      PyErr_Format(PyExc_TypeError,
                   "%s: expected a DLPack capsule named 'dltensor_versioned' or 'dltensor', got one named "
                   "'%s'",
                   where, name ? name : "(none)");
    return NULL;
  }
  const char *name = versioned ? KP_DL_CAPSULE_VERSIONED : KP_DL_CAPSULE_LEGACY;
  void *m = PyCapsule_GetPointer(cap, name);
  if (!m) return NULL;
  /* The tensor is ours now: the renamed capsule's destructor leaves it. */
  if (PyCapsule_SetName(cap, versioned ? KP_DL_CAPSULE_VERSIONED_USED : KP_DL_CAPSULE_LEGACY_USED) < 0) return NULL;
  return view_from_managed(st, m, versioned, label, where);
}

/* The producer's C exchange table of a major version this project reads,
 * from obj's type (static for the process, per DLPack), or NULL. */
static const kp_dl_exchange_api *exchange_api_of(kp_state *st, PyTypeObject *type) {
  PyObject *attr = kp_type_lookup(type, st->dl[KP_DL_STR_EXCHANGE_API]);
  if (!attr || !PyCapsule_IsValid(attr, KP_DL_CAPSULE_EXCHANGE_API)) return NULL;
  const kp_dl_exchange_api_header *h =
      (const kp_dl_exchange_api_header *)PyCapsule_GetPointer(attr, KP_DL_CAPSULE_EXCHANGE_API);
  while (h && h->version.major != KP_DL_MAJOR_VERSION) h = h->prev_api;
  if (!h) return NULL;
  const kp_dl_exchange_api *api = (const kp_dl_exchange_api *)h;
  return api->managed_tensor_from_py_object_no_sync ? api : NULL;
}

/* A View through a producer's exchange table (no Python-level call). */
static kp_view *view_from_exchange_api(kp_state *st, const kp_dl_exchange_api *api, PyObject *obj, PyObject *label,
                                       const char *where) {
  kp_dl_managed_tensor_versioned *m = NULL;
  if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0 || !m) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_BufferError, "%s: the DLPack exchange table of %.100s failed without a message", where,
                   Py_TYPE(obj)->tp_name);
    return NULL;
  }
  /* Nothing was synchronized: device memory is ready once the producer's
   * current work stream has drained. */
  int32_t dev = m->dl_tensor.device.device_type;
  int space = kp_space_from_dlpack_device(dev);
  if (m->version.major == KP_DL_MAJOR_VERSION && dev != KP_DL_CPU && space >= 0 && kp_bridge_space_available(space) &&
      api->current_work_stream) {
    void *s = NULL;
    if (api->current_work_stream(dev, m->dl_tensor.device.device_id, &s) != 0) {
      release_versioned_keeping_error(m);
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_BufferError, "%s: the producer could not name its current stream", where);
      return NULL;
    }
    uintptr_t ps = (uintptr_t)s;
    if (is_cuda_device(dev) && ps == 0) ps = 1; /* NULL is CUDA's legacy default stream */
    if (kp_order_import(space, ps, where) < 0) {
      release_versioned_keeping_error(m);
      return NULL;
    }
  }
  return view_from_managed(st, m, 1, label, where);
}

/* A View through obj.__dlpack__(...). host_copy: when the tensor lives on a
 * device this Kokkos cannot reach, ask the producer for a copy on the CPU
 * (*copied is then set). */
static kp_view *view_from_dlpack_call(kp_state *st, PyObject *obj, PyObject *label, int host_copy, int *copied,
                                      const char *where) {
  PyObject *dev = NULL, *cap = NULL, *stream = NULL;
  PyObject *callargs[4] = {obj, NULL, NULL, NULL};
  kp_view *res = NULL;
  int32_t dev_type = KP_DL_CPU;
  int space = KP_SPACE_HOST;

  dev = PyObject_CallMethodNoArgs(obj, st->dl[KP_DL_STR_DLPACK_DEVICE]);
  if (!dev) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) goto done;
    PyErr_Clear(); /* a producer without __dlpack_device__: assume the CPU */
  } else {
    long t, id;
    if (parse_int_pair(dev, "__dlpack_device__()", where, &t, &id) < 0) goto done;
    dev_type = (int32_t)t;
    space = kp_space_from_dlpack_device(dev_type);
  }

  PyObject *kwnames = st->dl[KP_DL_KW_MAX_VERSION];
  callargs[1] = st->dl[KP_DL_MAX_VERSION];
  if (host_copy && dev_type != KP_DL_CPU && (space < 0 || !kp_bridge_space_available(space))) {
    /* the producer copies to the host: max_version, dl_device, copy */
    kwnames = st->dl[KP_DL_KW_HOST_COPY];
    callargs[2] = st->dl[KP_DL_CPU_DEVICE];
    callargs[3] = Py_True;
    *copied = 1;
  } else if (dev_type != KP_DL_CPU && space >= 0 && kp_bridge_space_available(space) &&
             (is_cuda_device(dev_type) || is_rocm_device(dev_type))) {
    /* The producer orders its work before Kokkos' stream (which exists
     * once Kokkos is initialized). */
    if (kp_runtime_ensure() < 0) goto done;
    uintptr_t s = kp_bridge_kokkos_stream(space);
    if (is_cuda_device(dev_type) && s == 0) s = 1;
    stream = PyLong_FromSize_t((size_t)s);
    if (!stream) goto done;
    kwnames = st->dl[KP_DL_KW_STREAM_MAX_VERSION];
    callargs[1] = stream;
    callargs[2] = st->dl[KP_DL_MAX_VERSION];
  }
  cap = PyObject_VectorcallMethod(st->dl[KP_DL_STR_DLPACK], callargs, 1, kwnames);
  if (!cap && PyErr_ExceptionMatches(PyExc_TypeError) && !(*copied)) {
    /* A producer older than DLPack 1.0 takes no max_version. */
    PyErr_Clear();
    if (stream) {
      callargs[1] = stream;
      cap = PyObject_VectorcallMethod(st->dl[KP_DL_STR_DLPACK], callargs, 1, st->dl[KP_DL_KW_STREAM]);
    } else {
      cap = PyObject_VectorcallMethod(st->dl[KP_DL_STR_DLPACK], callargs, 1, NULL);
    }
  }
  if (!cap) goto done;
  if (!PyCapsule_CheckExact(cap)) {
    PyErr_Format(PyExc_TypeError, "%s: %.100s.__dlpack__() returned %.100s, not a DLPack capsule", where,
                 Py_TYPE(obj)->tp_name, Py_TYPE(cap)->tp_name);
    goto done;
  }
  res = view_from_capsule(st, cap, label, where);
done:
  Py_XDECREF(dev);
  Py_XDECREF(cap);
  Py_XDECREF(stream);
  return res;
}

static kp_view *view_from_dlpack_any(kp_state *st, PyObject *obj, PyObject *label, int host_copy, int *copied,
                                     const char *where) {
  *copied = 0;
  if (PyCapsule_CheckExact(obj)) return view_from_capsule(st, obj, label, where);
  if (!host_copy) {
    const kp_dl_exchange_api *api = exchange_api_of(st, Py_TYPE(obj));
    if (api) return view_from_exchange_api(st, api, obj, label, where);
  }
  if (!kp_type_lookup(Py_TYPE(obj), st->dl[KP_DL_STR_DLPACK])) {
    PyErr_Format(PyExc_TypeError,
                 "%s: %.100s does not support DLPack (it has no __dlpack__ method); pass a NumPy, "
                 "PyTorch, CuPy or JAX array, a kokkos.View, or a DLPack capsule",
                 where, Py_TYPE(obj)->tp_name);
    return NULL;
  }
  return view_from_dlpack_call(st, obj, label, host_copy, copied, where);
}

kp_view *kp_view_from_dlpack(kp_state *st, PyObject *obj, PyObject *label, const char *where) {
  int copied;
  return view_from_dlpack_any(st, obj, label, 0, &copied, where);
}

/* Checks an optional label argument: NULL for None, else a str. */
static int parse_label(PyObject *obj, const char *where, PyObject **out) {
  *out = NULL;
  if (!obj || obj == Py_None) return 0;
  if (!PyUnicode_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: label must be a str, got %.100s", where, Py_TYPE(obj)->tp_name);
    return -1;
  }
  *out = obj;
  return 0;
}

/* from_dlpack(x, /, *, device=None, copy=None, label=None) */
static PyObject *py_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const kp_signature sig = {
      "kokkos.from_dlpack()", 4, 1, 0, {KP_KW_X, KP_KW_DEVICE, KP_KW_COPY, KP_KW_LABEL}, 1};
  const char *where = sig.name;
  PyObject *a[4];
  if (kp_args_parse((kp_state *)PyModule_GetState(module), &sig, args, nargs, kwnames, a) < 0) return NULL;
  if (!a[0]) {
    PyErr_Format(PyExc_TypeError, "%s missing its argument x (a DLPack producer or capsule)", where);
    return NULL;
  }
  kp_state *st = (kp_state *)PyModule_GetState(module);
  int copy;
  PyObject *label;
  if (parse_copy(a[2], where, &copy) < 0 || parse_label(a[3], where, &label) < 0) return NULL;
  int target = -1;
  if (a[1] && a[1] != Py_None) {
    if (PyTuple_Check(a[1])) {
      long t, id;
      if (parse_int_pair(a[1], "device", where, &t, &id) < 0) return NULL;
      target = kp_space_from_dlpack_device((int32_t)t);
      if (target < 0) {
        PyErr_Format(PyExc_ValueError, "%s: DLPack device type %ld has no Kokkos memory space", where, t);
        return NULL;
      }
    } else if ((target = kp_space_from_object(a[1], where)) < 0) {
      return NULL;
    }
  }
  int copied = 0;
  kp_view *v = view_from_dlpack_any(st, a[0], label, target == KP_SPACE_HOST, &copied, where);
  if (!v) return NULL;
  int space = target >= 0 ? target : v->space;
  if (space != v->space || (copy == 1 && !copied)) {
    if (copy == 0) {
      PyErr_Format(PyExc_BufferError, "%s: the tensor lives in %s; a View in %s needs a copy, but copy=False", where,
                   kp_spaces[v->space].name, kp_spaces[space].name);
      Py_DECREF(v);
      return NULL;
    }
    kp_view *c = kp_view_copy_to_space(st, v, space, label, where);
    Py_DECREF(v);
    return (PyObject *)c;
  }
  if (copy == 0 && copied) {
    PyErr_Format(PyExc_BufferError, "%s: the tensor lives on a device this Kokkos cannot reach and copy=False", where);
    Py_DECREF(v);
    return NULL;
  }
  return (PyObject *)v;
}

/* ---- import from any exchange protocol ---------------------------------------------- */

kp_view *kp_view_from_exchange(kp_state *st, PyObject *obj, PyObject *label) {
  const char *where = "kokkos.asarray()";
  if (PyObject_TypeCheck(obj, st->view_type)) return (kp_view *)Py_NewRef(obj);
  if (PyCapsule_CheckExact(obj) || kp_type_lookup(Py_TYPE(obj), st->dl[KP_DL_STR_DLPACK])) {
    kp_view *v = kp_view_from_dlpack(st, obj, label, where);
    /* A producer that cannot describe this array with DLPack (NumPy's
     * unaligned or byte-strided arrays) may still offer a buffer. */
    if (v || !PyErr_ExceptionMatches(PyExc_BufferError) || !PyObject_CheckBuffer(obj)) return v;
    PyObject *exc = kp_fetch_exception();
    v = kp_view_from_buffer_object(st, obj, 0, label, 0);
    if (v) {
      Py_XDECREF(exc);
      return v;
    }
    /* Neither way works: DLPack's reason is the one to report. */
    PyErr_Clear();
    kp_restore_exception(exc);
    return NULL;
  }
  PyObject *cai = NULL;
  if (kp_get_optional_attr(obj, st->dl[KP_DL_STR_CAI], &cai) < 0) return NULL;
  if (cai) {
    Py_DECREF(cai);
    return kp_view_from_cai(st, obj, label, where);
  }
  return kp_view_from_buffer_object(st, obj, 0, label, 0);
}

/* Parses (obj, label=None) for the zero-copy import entry points. */
static int parse_obj_label(kp_state *st, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **obj,
                           PyObject **label) {
  static const kp_signature sig = {"kokkos.asarray()", 2, 2, 1, {KP_KW_OBJ, KP_KW_LABEL}, 2};
  PyObject *a[2];
  if (kp_args_parse(st, &sig, args, nargs, kwnames, a) < 0) return -1;
  *obj = a[0];
  return parse_label(a[1], sig.name, label);
}

/* _view_from_object(obj, label=None): kokkos.asarray's zero-copy step. */
static PyObject *py_view_from_object(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *obj, *label;
  kp_state *st = (kp_state *)PyModule_GetState(module);
  if (parse_obj_label(st, args, nargs, kwnames, &obj, &label) < 0) return NULL;
  return (PyObject *)kp_view_from_exchange((kp_state *)PyModule_GetState(module), obj, label);
}

/* _from_cuda_array_interface(obj, label=None): the CAI import alone (for
 * objects that also speak DLPack). */
static PyObject *py_from_cuda_array_interface(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                              PyObject *kwnames) {
  PyObject *obj, *label;
  kp_state *st = (kp_state *)PyModule_GetState(module);
  if (parse_obj_label(st, args, nargs, kwnames, &obj, &label) < 0) return NULL;
  return (PyObject *)kp_view_from_cai((kp_state *)PyModule_GetState(module), obj, label, "kokkos.asarray()");
}

/* ---- the C exchange table of the View type (DLPack 1.3) ------------------------------ */

/* Reports the pending Python exception through set_error and clears it. */
static void report_to_set_error(void *error_ctx, void (*set_error)(void *, const char *, const char *)) {
  PyObject *exc = kp_fetch_exception();
  const char *kind = exc ? Py_TYPE(exc)->tp_name : "RuntimeError";
  PyObject *msg = exc ? PyObject_Str(exc) : NULL;
  const char *text = msg ? PyUnicode_AsUTF8(msg) : NULL;
  if (!text) {
    PyErr_Clear();
    text = "kokkos could not allocate the tensor";
  }
  if (set_error) set_error(error_ctx, kind, text);
  Py_XDECREF(msg);
  Py_XDECREF(exc);
}

static int api_managed_tensor_allocator(kp_dl_tensor *prototype, kp_dl_managed_tensor_versioned **out, void *error_ctx,
                                        void (*set_error)(void *, const char *, const char *)) {
  const char *where = "kokkos DLPack exchange (managed_tensor_allocator)";
  PyGILState_STATE g = PyGILState_Ensure();
  int rc = -1;
  kp_view *v = NULL;
  *out = NULL;
  kp_state *st = kp_state_global();
  if (!st) goto done;
  kp_view_spec spec;
  memset(&spec, 0, sizeof spec);
  if ((spec.dtype = dtype_from_dl(prototype->dtype)) < 0) {
    raise_dtype(where, prototype->dtype);
    goto done;
  }
  if (prototype->ndim < 0 || prototype->ndim > KP_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "%s: rank %d exceeds Kokkos' maximum View rank %d", where, (int)prototype->ndim,
                 KP_MAX_RANK);
    goto done;
  }
  spec.rank = (int)prototype->ndim;
  for (int r = 0; r < spec.rank; ++r) {
    if (prototype->shape[r] < 0 || prototype->shape[r] > PY_SSIZE_T_MAX) {
      PyErr_Format(PyExc_ValueError, "%s: shape[%d] is %lld", where, r, (long long)prototype->shape[r]);
      goto done;
    }
    spec.shape[r] = (Py_ssize_t)prototype->shape[r];
  }
  if ((spec.space = kp_space_from_dlpack_device(prototype->device.device_type)) < 0) {
    PyErr_Format(PyExc_ValueError, "%s: DLPack device type %d has no Kokkos memory space", where,
                 (int)prototype->device.device_type);
    goto done;
  }
  spec.layout = KP_LAYOUT_RIGHT;
  spec.zero = 0; /* the caller fills it */
  PyObject *label = PyUnicode_FromString("DLPack exchange allocation");
  if (!label) goto done;
  v = kp_view_allocate(st, &spec, label);
  Py_DECREF(label);
  if (!v) goto done;
  int32_t t, id;
  kp_dlpack_device_of(v->space, &t, &id);
  kp_dl_export *e = export_new(v, 1, KP_DL_MINOR_VERSION, t, id, 0);
  if (!e) goto done;
  *out = &e->managed.versioned;
  rc = 0;
done:
  Py_XDECREF(v);
  if (rc < 0) report_to_set_error(error_ctx, set_error);
  PyGILState_Release(g);
  return rc;
}

static kp_view *api_view_arg(void *py_object, const char *where) {
  PyObject *obj = (PyObject *)py_object;
  if (!obj || !kp_view_check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a kokkos.View, got %.100s", where,
                 obj ? Py_TYPE(obj)->tp_name : "NULL");
    return NULL;
  }
  kp_view *v = (kp_view *)obj;
  if (kp_view_check_released(v)) return NULL;
  return v;
}

static int api_managed_tensor_from_py_object(void *py_object, kp_dl_managed_tensor_versioned **out) {
  const char *where = "kokkos DLPack exchange (managed_tensor_from_py_object_no_sync)";
  kp_view *v = api_view_arg(py_object, where);
  if (!v) return -1;
  int32_t t, id;
  kp_dlpack_device_of(v->space, &t, &id);
  if (t <= 0) {
    PyErr_Format(PyExc_BufferError, "%s: %s has no DLPack device type", where, kp_spaces[v->space].name);
    return -1;
  }
  kp_dl_export *e = export_new(v, 1, KP_DL_MINOR_VERSION, t, id, v->readonly ? KP_DL_FLAG_READ_ONLY : 0);
  if (!e) return -1;
  *out = &e->managed.versioned;
  return 0;
}

static int api_managed_tensor_to_py_object(kp_dl_managed_tensor_versioned *tensor, void **out_py_object) {
  kp_state *st = kp_state_global();
  if (!st) {
    if (tensor && tensor->deleter) tensor->deleter(tensor);
    return -1;
  }
  kp_view *v = view_from_managed(st, tensor, 1, NULL, "kokkos DLPack exchange (managed_tensor_to_py_object_no_sync)");
  if (!v) return -1;
  *out_py_object = v;
  return 0;
}

#if SIZEOF_SIZE_T == 8
/* Shape and strides point into the View itself (Py_ssize_t is int64_t here). */
static int api_dltensor_from_py_object(void *py_object, kp_dl_tensor *out) {
  const char *where = "kokkos DLPack exchange (dltensor_from_py_object_no_sync)";
  kp_view *v = api_view_arg(py_object, where);
  if (!v) return -1;
  int32_t t, id;
  kp_dlpack_device_of(v->space, &t, &id);
  out->data = v->data;
  out->device.device_type = t;
  out->device.device_id = id;
  out->ndim = v->rank;
  out->dtype.code = kp_dtypes[v->dtype].dlpack_code;
  out->dtype.bits = kp_dtypes[v->dtype].dlpack_bits;
  out->dtype.lanes = 1;
  out->shape = (int64_t *)v->shape;
  out->strides = (int64_t *)v->strides;
  out->byte_offset = 0;
  return 0;
}
#endif

static int api_current_work_stream(int32_t device_type, int32_t device_id, void **out_current_stream) {
  *out_current_stream = NULL;
  int space = kp_space_from_dlpack_device(device_type);
  if (space < 0 || device_type == KP_DL_CPU) return 0;
  uintptr_t s = kp_bridge_kokkos_stream(space);
  if (is_cuda_device(device_type) && s == 1) s = 0; /* the legacy default stream's handle is NULL */
  *out_current_stream = (void *)s;
  return 0;
}

static kp_dl_exchange_api kp_view_exchange_api = {
    {{KP_DL_MAJOR_VERSION, KP_DL_MINOR_VERSION}, NULL},
    api_managed_tensor_allocator,
    api_managed_tensor_from_py_object,
    api_managed_tensor_to_py_object,
#if SIZEOF_SIZE_T == 8
    api_dltensor_from_py_object,
#else
    NULL,
#endif
    api_current_work_stream,
};

/* ---- registration ----------------------------------------------------------------------- */

static PyMethodDef kp_exchange_functions[] = {
    {"from_dlpack", (PyCFunction)(void (*)(void))py_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None, label=None) -> View\n\n"
     "A View of the memory of x (anything with __dlpack__, or a DLPack capsule), without copying: the View keeps the "
     "producer's memory alive and is read-only when the producer says so. device (a memory space, or a DLPack "
     "(device_type, device_id) tuple) asks for a View in that space, copying when it differs; copy=True always "
     "copies into a new Kokkos allocation, copy=False raises BufferError rather than copy."},
    {"_view_from_object", (PyCFunction)(void (*)(void))py_view_from_object, METH_FASTCALL | METH_KEYWORDS,
     "_view_from_object(obj, label=None): a View sharing obj's memory through DLPack, __cuda_array_interface__, "
     "__array_interface__ or the buffer protocol (kokkos.asarray's zero-copy step)."},
    {"_from_cuda_array_interface", (PyCFunction)(void (*)(void))py_from_cuda_array_interface,
     METH_FASTCALL | METH_KEYWORDS,
     "_from_cuda_array_interface(obj, label=None): a View over the memory obj describes with "
     "__cuda_array_interface__, keeping obj alive."},
    {NULL, NULL, 0, NULL}};

/* Makes the exchange protocols' names and constants (kp_state.dl). */
static int make_constants(kp_state *st) {
  PyObject **dl = st->dl;
  dl[KP_DL_STR_DLPACK] = PyUnicode_InternFromString("__dlpack__");
  dl[KP_DL_STR_DLPACK_DEVICE] = PyUnicode_InternFromString("__dlpack_device__");
  dl[KP_DL_STR_EXCHANGE_API] = PyUnicode_InternFromString(KP_DL_EXCHANGE_API_ATTR);
  dl[KP_DL_STR_CAI] = PyUnicode_InternFromString("__cuda_array_interface__");
  dl[KP_DL_MAX_VERSION] = Py_BuildValue("(ii)", KP_DL_MAJOR_VERSION, KP_DL_MINOR_VERSION);
  dl[KP_DL_CPU_DEVICE] = Py_BuildValue("(ii)", KP_DL_CPU, 0);
  dl[KP_DL_KW_MAX_VERSION] = Py_BuildValue("(s)", "max_version");
  dl[KP_DL_KW_STREAM_MAX_VERSION] = Py_BuildValue("(ss)", "stream", "max_version");
  dl[KP_DL_KW_STREAM] = Py_BuildValue("(s)", "stream");
  dl[KP_DL_KW_HOST_COPY] = Py_BuildValue("(sss)", "max_version", "dl_device", "copy");
  for (int i = 0; i < KP_DL_CONST_COUNT; ++i)
    if (!dl[i]) return -1; /* the module's clear drops those made */
  return 0;
}

int kp_dlpack_add(PyObject *module, kp_state *st) {
  if (make_constants(st) < 0) return -1;
  /* The C exchange table is a class attribute (consumers look it up on the
   * type); the View type is immutable, so it goes into the type's dict here,
   * at module creation, before any View exists. */
  PyObject *api = PyCapsule_New(&kp_view_exchange_api, KP_DL_CAPSULE_EXCHANGE_API, NULL);
  if (!api) return -1;
  int rc = PyDict_SetItem(st->view_type->tp_dict, st->dl[KP_DL_STR_EXCHANGE_API], api);
  Py_DECREF(api);
  if (rc < 0) return -1;
  PyType_Modified(st->view_type);
  return PyModule_AddFunctions(module, kp_exchange_functions);
}
