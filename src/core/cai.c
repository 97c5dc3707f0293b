/* cai.c: __cuda_array_interface__ (version 3) both ways.
 *
 * Python equivalent:
 *
 *     class View:
 *         @property
 *         def __cuda_array_interface__(self) -> dict   # CUDA memory spaces only
 *     kp_view_from_cai(...)   # behind _from_cuda_array_interface (dlpack.c)
 *
 * Export: Views in CudaSpace, CudaUVMSpace and CudaHostPinnedSpace describe
 * their memory with shape, typestr, data (address, read-only), strides in
 * bytes (None when C-contiguous), descr, version 3 and the stream of
 * Kokkos' default CUDA instance, on which the consumer synchronizes (no
 * device-wide fence here; None before Kokkos is initialized, when nothing
 * can be queued on the memory). Views of other spaces raise
 * AttributeError, so hasattr() is False for them. A consumer keeps the View
 * itself alive (CuPy and Numba hold the object they read the interface from).
 *
 * Import: the object's memory space comes from the CUDA runtime (device,
 * managed or pinned host memory); the View keeps the object alive; when the
 * object names a stream, Kokkos' stream waits for it through an event (and
 * the host waits too for memory it can reach).
 */
#include "core.h"

#include <string.h>

#include "dlpack.h"
#include "exchange.h"
#include "exchange_bridge.h"

static int is_cuda_space(int space) {
  int t = kp_spaces[space].dlpack_device;
  return t == KP_DL_CUDA || t == KP_DL_CUDA_HOST || t == KP_DL_CUDA_MANAGED;
}

/* ---- export ------------------------------------------------------------------------- */

PyObject *kp_view_cuda_array_interface(PyObject *self, void *closure) {
  kp_view *v = (kp_view *)self;
  if (!is_cuda_space(v->space)) {
    PyErr_Format(PyExc_AttributeError,
                 "View '%U' lives in %s: __cuda_array_interface__ is offered by Views in CUDA memory spaces only "
                 "(CudaSpace, CudaUVMSpace, CudaHostPinnedSpace); use __dlpack__, __array_interface__ or the buffer "
                 "protocol",
                 v->label, kp_spaces[v->space].name);
    return NULL;
  }
  if (kp_view_check_released(v)) return NULL;
  /* A View's description never changes (nor does Kokkos' stream once
   * Kokkos is initialized): build it once, hand out copies. */
  if (v->cai) return PyDict_Copy(v->cai);
  /* The consumer orders its use after the stream named here, Kokkos'
   * default instance's: no fence. Before Kokkos is initialized nothing can
   * be queued on the memory. */
  PyObject *stream = NULL;
  if (kp_bridge_is_initialized()) {
    stream = PyLong_FromSize_t((size_t)kp_bridge_kokkos_stream(v->space));
    if (!stream) return NULL;
  } else {
    stream = Py_NewRef(Py_None);
  }
  /* The consumer keeps the View, not a release call: the address stays in
   * use as long as the View lives, so Kokkos finalize must leave it. */
  if (v->owner) v->owner->interface_exported = 1;
  PyObject *shape = NULL, *strides = NULL, *data = NULL, *descr = NULL, *res = NULL;
  shape = PyTuple_New(v->rank);
  if (!shape) goto done;
  for (int r = 0; r < v->rank; ++r) {
    PyObject *e = PyLong_FromSsize_t(v->shape[r]);
    if (!e) goto done;
    PyTuple_SET_ITEM(shape, r, e);
  }
  if (kp_view_is_c_contiguous(v)) {
    strides = Py_NewRef(Py_None);
  } else {
    strides = PyTuple_New(v->rank);
    if (!strides) goto done;
    for (int r = 0; r < v->rank; ++r) {
      PyObject *e = PyLong_FromSsize_t(v->byte_strides[r]);
      if (!e) goto done;
      PyTuple_SET_ITEM(strides, r, e);
    }
  }
  /* An array with no elements has address 0, per the interface. */
  void *ptr = kp_view_size(v) == 0 ? NULL : v->data;
  data = Py_BuildValue("(NO)", PyLong_FromVoidPtr(ptr), v->readonly ? Py_True : Py_False);
  if (!data) goto done;
  descr = Py_BuildValue("[(ss)]", "", kp_dtypes[v->dtype].typestr);
  if (!descr) goto done;
  res = Py_BuildValue("{sOsssOsOsOsisO}", "shape", shape, "typestr", kp_dtypes[v->dtype].typestr, "data", data,
                      "strides", strides, "descr", descr, "version", 3, "stream", stream);
  if (res && stream != Py_None && !(v->cai = PyDict_Copy(res))) PyErr_Clear(); /* no cache: built again next time */
done:
  Py_XDECREF(stream);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_XDECREF(data);
  Py_XDECREF(descr);
  return res;
}

/* ---- import ------------------------------------------------------------------------- */

/* A required or optional entry of the interface dict (borrowed; NULL with
 * no error when optional and absent). */
static PyObject *cai_item(PyObject *d, const char *key, int required, const char *where) {
  PyObject *item = PyDict_GetItemString(d, key); /* borrowed, never raises */
  if (!item && required) PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__ has no '%s' entry", where, key);
  return item;
}

kp_view *kp_view_from_cai(kp_state *st, PyObject *obj, PyObject *label, const char *where) {
  PyObject *d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
  if (!d) return NULL;
  kp_view *res = NULL;
  PyObject *shape_seq = NULL, *strides_seq = NULL;
  if (!PyDict_Check(d)) {
    PyErr_Format(PyExc_TypeError, "%s: %.100s.__cuda_array_interface__ must be a dict, got %.100s", where,
                 Py_TYPE(obj)->tp_name, Py_TYPE(d)->tp_name);
    goto done;
  }
  PyObject *version = cai_item(d, "version", 1, where);
  PyObject *shape = cai_item(d, "shape", 1, where);
  PyObject *typestr = cai_item(d, "typestr", 1, where);
  PyObject *data = cai_item(d, "data", 1, where);
  if (!version || !shape || !typestr || !data) goto done;
  PyObject *strides = cai_item(d, "strides", 0, where);
  PyObject *mask = cai_item(d, "mask", 0, where);
  PyObject *stream = cai_item(d, "stream", 0, where);

  if (!PyLong_Check(version)) {
    PyErr_Format(PyExc_TypeError, "%s: __cuda_array_interface__['version'] must be an int, got %.100s", where,
                 Py_TYPE(version)->tp_name);
    goto done;
  }
  if (mask && mask != Py_None) {
    PyErr_Format(PyExc_BufferError,
                 "%s: masked CUDA arrays (a 'mask' in __cuda_array_interface__) cannot be Views; fill "
                 "the masked elements first",
                 where);
    goto done;
  }
  if (!PyUnicode_Check(typestr)) {
    PyErr_Format(PyExc_TypeError, "%s: __cuda_array_interface__['typestr'] must be a str, got %.100s", where,
                 Py_TYPE(typestr)->tp_name);
    goto done;
  }
  const char *ts = PyUnicode_AsUTF8(typestr);
  if (!ts) goto done;
  int dtype = kp_dtype_from_typestr(ts);
  if (dtype < 0) {
    PyErr_Format(PyExc_BufferError,
                 "%s: element type %R has no Kokkos View dtype (supported: bool, int8..int64, "
                 "uint8..uint64, float16, float32, float64, complex64, complex128, little-endian)",
                 where, typestr);
    goto done;
  }
  Py_ssize_t itemsize = kp_dtypes[dtype].itemsize;

  shape_seq = PySequence_Fast(shape, "");
  if (!shape_seq) {
    PyErr_Format(PyExc_TypeError, "%s: __cuda_array_interface__['shape'] must be a tuple of ints, got %.100s", where,
                 Py_TYPE(shape)->tp_name);
    goto done;
  }
  Py_ssize_t rank = PySequence_Fast_GET_SIZE(shape_seq);
  if (rank > KP_MAX_RANK) {
    PyErr_Format(PyExc_BufferError, "%s: a rank-%zd array exceeds Kokkos' maximum View rank %d", where, rank,
                 KP_MAX_RANK);
    goto done;
  }
  Py_ssize_t ext[KP_MAX_RANK], str[KP_MAX_RANK];
  for (Py_ssize_t r = 0; r < rank; ++r) {
    ext[r] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(shape_seq, r));
    if (ext[r] == -1 && PyErr_Occurred()) goto done;
    if (ext[r] < 0) {
      PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__['shape'][%zd] is %zd", where, r, ext[r]);
      goto done;
    }
  }
  if (!strides || strides == Py_None) {
    kp_contiguous_strides((int)rank, ext, KP_LAYOUT_RIGHT, str);
  } else {
    strides_seq = PySequence_Fast(strides, "");
    if (!strides_seq) {
      PyErr_Format(PyExc_TypeError,
                   "%s: __cuda_array_interface__['strides'] must be None or a tuple of ints, got %.100s", where,
                   Py_TYPE(strides)->tp_name);
      goto done;
    }
    if (PySequence_Fast_GET_SIZE(strides_seq) != rank) {
      PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__ has %zd strides for a rank-%zd shape", where,
                   PySequence_Fast_GET_SIZE(strides_seq), rank);
      goto done;
    }
    for (Py_ssize_t r = 0; r < rank; ++r) {
      Py_ssize_t b = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(strides_seq, r));
      if (b == -1 && PyErr_Occurred()) goto done;
      if (b % itemsize != 0) {
        PyErr_Format(PyExc_BufferError,
                     "%s: byte stride %zd (dimension %zd) is not a multiple of the %zd-byte element "
                     "size; Kokkos View strides count elements (copy the array into a contiguous one first)",
                     where, b, r, itemsize);
        goto done;
      }
      str[r] = b / itemsize;
    }
  }

  if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 || !PyLong_Check(PyTuple_GET_ITEM(data, 0))) {
    PyErr_Format(PyExc_TypeError, "%s: __cuda_array_interface__['data'] must be a tuple (address, read_only), got %R",
                 where, data);
    goto done;
  }
  void *ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
  if (!ptr && PyErr_Occurred()) goto done;
  int readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
  if (readonly < 0) goto done;

  long long stream_value = 0;
  int has_stream = stream && stream != Py_None;
  if (has_stream) {
    if (!PyLong_Check(stream) || PyBool_Check(stream)) {
      PyErr_Format(PyExc_TypeError, "%s: __cuda_array_interface__['stream'] must be an int or None, got %.100s", where,
                   Py_TYPE(stream)->tp_name);
      goto done;
    }
    stream_value = PyLong_AsLongLong(stream);
    if (stream_value == -1 && PyErr_Occurred()) goto done;
    if (stream_value == 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s: __cuda_array_interface__['stream'] is 0, which the interface forbids (1 is the "
                   "legacy default stream, 2 the per-thread default stream)",
                   where);
      goto done;
    }
  }

  size_t bytes;
  if (kp_checked_bytes((int)rank, ext, itemsize, &bytes, where) < 0) goto done;
  if (kp_check_span((int)rank, ext, str, itemsize, where) < 0) goto done;
  if (bytes > 0 && !ptr) {
    PyErr_Format(PyExc_BufferError, "%s: __cuda_array_interface__ describes %zu bytes at address 0", where, bytes);
    goto done;
  }

  /* Which CUDA memory this is: the runtime knows (device, managed, pinned). */
  if (!kp_bridge_space_available(KP_SPACE_CUDA)) {
    PyErr_Format(PyExc_BufferError,
                 "%s: %.100s holds CUDA memory, but this Kokkos has no CUDA backend (CudaSpace is not "
                 "enabled); copy the array to the host first (e.g. numpy.asarray(cupy_array.get()))",
                 where, Py_TYPE(obj)->tp_name);
    goto done;
  }
  int space = KP_SPACE_CUDA, device = kp_bridge_device_id(KP_SPACE_CUDA);
  if (ptr) {
    space = kp_bridge_pointer_space(ptr, &device);
    if (space < 0) {
      PyErr_Format(PyExc_BufferError,
                   "%s: address %p of %.100s's __cuda_array_interface__ is not memory the CUDA runtime "
                   "knows (device, managed or pinned host memory)",
                   where, ptr, Py_TYPE(obj)->tp_name);
      goto done;
    }
    if (kp_space_check_available(space, where) < 0) goto done;
    int kid = kp_bridge_device_id(space);
    if (space == KP_SPACE_CUDA && device != kid) {
      PyErr_Format(PyExc_BufferError,
                   "%s: the array lives on CUDA device %d, but Kokkos runs on device %d; move it to "
                   "device %d first",
                   where, device, kid, kid);
      goto done;
    }
    size_t align = (size_t)(itemsize > 8 ? 8 : itemsize);
    if (bytes > 0 && ((uintptr_t)ptr) % align) {
      PyErr_Format(PyExc_BufferError,
                   "%s: address %p is not aligned to the %zd-byte elements; Kokkos Views need aligned "
                   "data",
                   where, ptr, itemsize);
      goto done;
    }
  }
  if (has_stream && kp_order_import(space, (uintptr_t)stream_value, where) < 0) goto done;
  kp_owner *owner = kp_owner_from_pyobject(st, space, ptr, obj, NULL);
  if (!owner) goto done;
  res = kp_view_wrap(st, st->view_type, owner, (char *)ptr, (int)rank, ext, str, dtype, space, KP_TRAIT_UNMANAGED,
                     readonly, label);
  Py_DECREF(owner);
done:
  Py_XDECREF(shape_seq);
  Py_XDECREF(strides_seq);
  Py_DECREF(d);
  return res;
}
