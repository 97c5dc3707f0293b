/* dlpack_import.c: the DLPack consumer side: kokkos.from_dlpack and a
 * producer's tensor as a View, through a capsule, the producer's C
 * exchange table, or obj.__dlpack__(). Every field of the producer's tensor
 * is checked before it is used (docs/hardening.md, "Exchange inputs").
 *
 * Python equivalent:
 *
 *     def from_dlpack(x, /, *, device=None, copy=None, label=None) -> View
 *
 * Ownership: the View's Allocation (KP_OWNER_EXTERNAL) owns the producer's
 * managed tensor and calls its deleter exactly once, when the last View,
 * subview or export of that memory goes. The producer keeps its memory
 * alive until then.
 *
 * Stream ordering is stream.c's; which protocol an import takes is
 * import.c's; the device and dtype mappings are dlpack.c's.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "copy.h"

#include <string.h>

#include "exchange.h"
#include "exchange_bridge.h"

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

/* The memory space of a tensor's device: one this Kokkos has, on Kokkos'
 * device; -1 with BufferError otherwise. */
static int dl_tensor_space(const kp_dl_tensor *t, const char *where) {
  int32_t dev = t->device.device_type;
  int space = kp_space_from_dlpack_device(dev);
  if (space < 0) {
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor lives on DLPack device type %d (%s), which no Kokkos memory space "
                 "describes; copy it to the CPU first",
                 where, (int)dev, kp_dl_device_name(dev));
    return -1;
  }
  if (!kp_bridge_space_available(space)) {
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor lives on %s device %d, but this Kokkos has no %s; copy it to the host "
                 "first (kokkos.from_dlpack(x, device=kokkos.%s) asks the producer for a host copy)",
                 where, kp_dl_device_name(dev), (int)t->device.device_id, kp_spaces[space].name,
                 kp_spaces[KP_SPACE_HOST].name);
    return -1;
  }
  if (dev != KP_DL_CPU && !kp_bridge_space_host_accessible(space)) {
    int kid = kp_bridge_device_id(space);
    if (t->device.device_id != kid) {
      PyErr_Format(PyExc_BufferError,
                   "%s: the tensor lives on %s device %d, but Kokkos runs on device %d; move it to "
                   "device %d first (or initialize Kokkos with device_id=%d)",
                   where, kp_dl_device_name(dev), (int)t->device.device_id, kid, kid, (int)t->device.device_id);
      return -1;
    }
  }
  return space;
}

/* The tensor's extents and element strides (t->ndim checked already):
 * shape not NULL, extents >= 0, strides within +-PY_SSIZE_T_MAX, or
 * compact row-major ones when there are none. -1 with BufferError. */
static int dl_tensor_extents(const kp_dl_tensor *t, Py_ssize_t *shape, Py_ssize_t *strides, const char *where) {
  int rank = (int)t->ndim;
  if (rank > 0 && !t->shape) {
    PyErr_Format(PyExc_BufferError, "%s: the tensor's shape is NULL for ndim %d", where, rank);
    return -1;
  }
  for (int r = 0; r < rank; ++r) {
    if (t->shape[r] < 0 || t->shape[r] > PY_SSIZE_T_MAX) {
      PyErr_Format(PyExc_BufferError, "%s: the tensor's shape[%d] is %lld; extents cannot be negative", where, r,
                   (long long)t->shape[r]);
      return -1;
    }
    shape[r] = (Py_ssize_t)t->shape[r];
  }
  if (!t->strides) {
    kp_contiguous_strides(rank, shape, KP_LAYOUT_RIGHT, strides); /* before DLPack 1.2: compact row-major */
    return 0;
  }
  for (int r = 0; r < rank; ++r) {
    if (t->strides[r] > PY_SSIZE_T_MAX || t->strides[r] < -PY_SSIZE_T_MAX) {
      PyErr_Format(PyExc_BufferError, "%s: the tensor's strides[%d] is %lld", where, r, (long long)t->strides[r]);
      return -1;
    }
    strides[r] = (Py_ssize_t)t->strides[r];
  }
  return 0;
}

/* The address of the tensor's first element, data + byte_offset, in *out:
 * added without wrapping, not NULL and aligned when the tensor has
 * elements (bytes of them). -1 with BufferError. */
static int dl_tensor_address(const kp_dl_tensor *t, size_t bytes, Py_ssize_t itemsize, char **out, const char *where) {
  uintptr_t addr;
#if defined(__GNUC__) || defined(__clang__)
  int wraps = __builtin_add_overflow((uintptr_t)t->data, t->byte_offset, &addr);
#else
  int wraps = t->byte_offset > (uint64_t)(UINTPTR_MAX - (uintptr_t)t->data);
  addr = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
#endif
  if (wraps || (uint64_t)(uintptr_t)t->byte_offset != t->byte_offset) {
    PyErr_Format(PyExc_BufferError, "%s: the tensor's data %p + byte_offset %llu is past the end of the address space",
                 where, t->data, (unsigned long long)t->byte_offset);
    return -1;
  }
  *out = (char *)addr;
  if (bytes == 0) return 0;
  if (!t->data || !addr) {
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor has %zu bytes of elements but its address is NULL (data %p, byte_offset %llu)", where,
                 bytes, t->data, (unsigned long long)t->byte_offset);
    return -1;
  }
  size_t align = (size_t)(itemsize > 8 ? 8 : itemsize);
  if (addr % align) {
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor's data address %p is not aligned to its %zd-byte elements; Kokkos "
                 "Views need aligned data (copy the tensor first)",
                 where, (void *)addr, itemsize);
    return -1;
  }
  return 0;
}

kp_view *kp_view_from_dl_managed(kp_state *st, void *managed, int versioned, PyObject *label, const char *where) {
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

  /* Every field is checked before it is used: a producer's tensor may lie
   * in any of them (docs/hardening.md, "Exchange inputs"). */
  int dtype = kp_dl_dtype_index(t->dtype);
  if (dtype < 0) {
    kp_dl_raise_dtype(where, t->dtype);
    goto fail;
  }
  if (t->ndim < 0 || t->ndim > KP_MAX_RANK) {
    if (t->ndim < 0)
      PyErr_Format(PyExc_BufferError, "%s: the tensor's ndim is %d; a rank cannot be negative", where, (int)t->ndim);
    else
      PyErr_Format(PyExc_BufferError,
                   "%s: the tensor's ndim is %d: a rank-%d tensor exceeds Kokkos' maximum View rank %d", where,
                   (int)t->ndim, (int)t->ndim, KP_MAX_RANK);
    goto fail;
  }
  int space = dl_tensor_space(t, where);
  if (space < 0) goto fail;
  int rank = (int)t->ndim;
  Py_ssize_t shape[KP_MAX_RANK], strides[KP_MAX_RANK];
  if (dl_tensor_extents(t, shape, strides, where) < 0) goto fail;
  size_t bytes;
  Py_ssize_t itemsize = kp_dtypes[dtype].itemsize;
  if (kp_checked_bytes(rank, shape, itemsize, &bytes, where) < 0) goto fail;
  char *data;
  if (dl_tensor_address(t, bytes, itemsize, &data, where) < 0) goto fail;
  if (kp_check_span_at(data, rank, shape, strides, itemsize, where) < 0) goto fail;
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
  return kp_view_from_dl_managed(st, m, versioned, label, where);
}

/* The longest prev_api chain walked: one table per DLPack major version,
 * and there has been one major version so far. */
#define KP_DL_EXCHANGE_MAX_TABLES 8

/* The producer's C exchange table (static for the process, per DLPack) in
 * *out, from obj's type: 1 with a table of the layout this project reads
 * (major version 1, minor 3 or later), 0 when the type has none (the
 * caller falls back to __dlpack__), -1 with BufferError when its prev_api
 * chain loops or runs past KP_DL_EXCHANGE_MAX_TABLES tables. */
static int exchange_api_of(kp_state *st, PyTypeObject *type, const kp_dl_exchange_api **out) {
  *out = NULL;
  PyObject *attr = kp_type_lookup(type, st->dl[KP_DL_STR_EXCHANGE_API]);
  if (!attr || !PyCapsule_IsValid(attr, KP_DL_CAPSULE_EXCHANGE_API)) return 0;
  const kp_dl_exchange_api_header *seen[KP_DL_EXCHANGE_MAX_TABLES];
  const kp_dl_exchange_api_header *h =
      (const kp_dl_exchange_api_header *)PyCapsule_GetPointer(attr, KP_DL_CAPSULE_EXCHANGE_API);
  for (int n = 0; h; h = h->prev_api, ++n) {
    for (int i = 0; i < n; ++i)
      if (seen[i] == h) {
        PyErr_Format(PyExc_BufferError,
                     "%.100s.%s: the exchange table's prev_api chain loops (table %d is table %d again); the "
                     "producer's table is corrupt",
                     type->tp_name, KP_DL_EXCHANGE_API_ATTR, n, i);
        return -1;
      }
    if (n == KP_DL_EXCHANGE_MAX_TABLES) {
      PyErr_Format(PyExc_BufferError,
                   "%.100s.%s: the exchange table's prev_api chain is longer than %d tables; the producer's table "
                   "is corrupt",
                   type->tp_name, KP_DL_EXCHANGE_API_ATTR, KP_DL_EXCHANGE_MAX_TABLES);
      return -1;
    }
    seen[n] = h;
    if (h->version.major == KP_DL_MAJOR_VERSION) {
      /* The table's layout is DLPack 1.3's: an older minor has none. */
      const kp_dl_exchange_api *api = (const kp_dl_exchange_api *)h;
      if (h->version.minor < 3 || !api->managed_tensor_from_py_object_no_sync) return 0;
      *out = api;
      return 1;
    }
  }
  return 0;
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
   * current work stream has drained. The tensor's fields are read only
   * for the major version whose layout this project knows. */
  int known = m->version.major == KP_DL_MAJOR_VERSION;
  int32_t dev = known ? m->dl_tensor.device.device_type : 0;
  int space = kp_space_from_dlpack_device(dev);
  if (known && dev != KP_DL_CPU && space >= 0 && kp_bridge_space_available(space) && api->current_work_stream) {
    void *s = NULL;
    if (api->current_work_stream(dev, m->dl_tensor.device.device_id, &s) != 0) {
      release_versioned_keeping_error(m);
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_BufferError, "%s: the producer could not name its current stream", where);
      return NULL;
    }
    uintptr_t ps = (uintptr_t)s;
    if (kp_dl_is_cuda_device(dev) && ps == 0) ps = 1; /* NULL is CUDA's legacy default stream */
    if (kp_order_import(space, ps, where) < 0) {
      release_versioned_keeping_error(m);
      return NULL;
    }
  }
  return kp_view_from_dl_managed(st, m, 1, label, where);
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

  /* A NumPy array (the exact type, named so by NumPy's C code) is on the
   * CPU: asking costs more than the rest of the import. */
  if (strcmp(Py_TYPE(obj)->tp_name, "numpy.ndarray") == 0) {
    /* the CPU, as set above */
  } else if (!(dev = PyObject_CallMethodNoArgs(obj, st->dl[KP_DL_STR_DLPACK_DEVICE]))) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) goto done;
    PyErr_Clear(); /* a producer without __dlpack_device__: assume the CPU */
  } else {
    long t, id;
    if (kp_dl_parse_int_pair(dev, "__dlpack_device__()", where, &t, &id) < 0) goto done;
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
             (kp_dl_is_cuda_device(dev_type) || kp_dl_is_rocm_device(dev_type))) {
    /* The producer orders its work before Kokkos' stream (which exists
     * once Kokkos is initialized). */
    if (kp_runtime_ensure() < 0) goto done;
    uintptr_t s = kp_bridge_kokkos_stream(space);
    if (kp_dl_is_cuda_device(dev_type) && s == 0) s = 1;
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
    const kp_dl_exchange_api *api;
    int has = exchange_api_of(st, Py_TYPE(obj), &api);
    if (has < 0) return NULL;
    if (has) return view_from_exchange_api(st, api, obj, label, where);
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
PyObject *kp_py_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const kp_signature sig = {"kokkos.from_dlpack()", 1, 0, 1};
  const char *where = sig.name;
  PyObject *x, *device, *copy_o, *label_o;
  const kp_param params[] = {{KP_KW_X, &x}, {KP_KW_DEVICE, &device}, {KP_KW_COPY, &copy_o}, {KP_KW_LABEL, &label_o}};
  if (kp_args_parse((kp_state *)PyModule_GetState(module), &sig, params, KP_PARAM_COUNT(params), args, nargs, kwnames) <
      0)
    return NULL;
  if (!x) {
    PyErr_Format(PyExc_TypeError, "%s missing its argument x (a DLPack producer or capsule)", where);
    return NULL;
  }
  kp_state *st = (kp_state *)PyModule_GetState(module);
  int copy;
  PyObject *label;
  if (kp_dl_parse_copy(copy_o, where, &copy) < 0 || parse_label(label_o, where, &label) < 0) return NULL;
  int target = -1;
  if (device && device != Py_None) {
    if (PyTuple_Check(device)) {
      long t, id;
      if (kp_dl_parse_int_pair(device, "device", where, &t, &id) < 0) return NULL;
      target = kp_space_from_dlpack_device((int32_t)t);
      if (target < 0) {
        PyErr_Format(PyExc_ValueError, "%s: DLPack device type %ld has no Kokkos memory space", where, t);
        return NULL;
      }
    } else if ((target = kp_space_from_object(device, where)) < 0) {
      return NULL;
    }
  }
  int copied = 0;
  kp_view *v = view_from_dlpack_any(st, x, label, target == KP_SPACE_HOST, &copied, where);
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

int kp_dl_has_exchange_api(kp_state *st, PyTypeObject *type) {
  const kp_dl_exchange_api *api;
  return exchange_api_of(st, type, &api);
}
