/* dlpack_api.c: the View type's DLPack C exchange table (DLPack 1.3), the
 * class attribute __dlpack_c_exchange_api__ through which a consumer written
 * in C (PyTorch, JAX, ...) takes a View's memory, or gives it its own,
 * without a Python-level call. Every function takes the GIL or expects it as
 * the specification says, and reports failures through the consumer's
 * set_error callback or a Python exception.
 *
 * Python equivalent:
 *
 *     class View:
 *         __dlpack_c_exchange_api__ = PyCapsule("dlpack_exchange_api")
 *
 * The tensors it hands out are dlpack.c's exports (kp_dl_export_new, one
 * description of a View as a DLTensor: kp_dl_describe); the tensors it takes
 * become Views through dlpack.c's import (kp_view_from_dl_managed).
 */
#include "core.h"
#include "base.h"
#include "model.h"

#include <string.h>

#include "exchange.h"
#include "exchange_bridge.h"

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
  if (!prototype) {
    PyErr_Format(PyExc_ValueError, "%s: the prototype is NULL", where);
    goto done;
  }
  kp_view_spec spec;
  memset(&spec, 0, sizeof spec);
  if ((spec.dtype = kp_dl_dtype_index(prototype->dtype)) < 0) {
    kp_dl_raise_dtype(where, prototype->dtype);
    goto done;
  }
  if (prototype->ndim < 0 || prototype->ndim > KP_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "%s: rank %d exceeds Kokkos' maximum View rank %d", where, (int)prototype->ndim,
                 KP_MAX_RANK);
    goto done;
  }
  spec.rank = (int)prototype->ndim;
  if (spec.rank > 0 && !prototype->shape) {
    PyErr_Format(PyExc_ValueError, "%s: the prototype's shape is NULL for ndim %d", where, spec.rank);
    goto done;
  }
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
  kp_dl_export *e = kp_dl_export_new(v, 1, KP_DL_MINOR_VERSION, t, id, 0);
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
  kp_dl_export *e = kp_dl_export_new(v, 1, KP_DL_MINOR_VERSION, t, id, v->readonly ? KP_DL_FLAG_READ_ONLY : 0);
  if (!e) return -1;
  *out = &e->managed.versioned;
  return 0;
}

static int api_managed_tensor_to_py_object(kp_dl_managed_tensor_versioned *tensor, void **out_py_object) {
  if (!tensor) {
    PyErr_SetString(PyExc_ValueError,
                    "kokkos DLPack exchange (managed_tensor_to_py_object_no_sync): the tensor is NULL");
    return -1;
  }
  kp_state *st = kp_state_global();
  if (!st) {
    if (tensor->deleter) tensor->deleter(tensor);
    return -1;
  }
  kp_view *v =
      kp_view_from_dl_managed(st, tensor, 1, NULL, "kokkos DLPack exchange (managed_tensor_to_py_object_no_sync)");
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
  kp_dl_describe(v, t, id, NULL, out); /* shape and strides point into the View */
  return 0;
}
#endif

static int api_current_work_stream(int32_t device_type, int32_t device_id, void **out_current_stream) {
  *out_current_stream = NULL;
  int space = kp_space_from_dlpack_device(device_type);
  if (space < 0 || device_type == KP_DL_CPU) return 0;
  uintptr_t s = kp_bridge_kokkos_stream(space);
  if (kp_dl_is_cuda_device(device_type) && s == 1) s = 0; /* the legacy default stream's handle is NULL */
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

PyObject *kp_dlpack_exchange_api_capsule(void) {
  return PyCapsule_New(&kp_view_exchange_api, KP_DL_CAPSULE_EXCHANGE_API, NULL);
}
