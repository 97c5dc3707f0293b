/* cai.c: __cuda_array_interface__ (version 3) both ways.
 *
 * Python equivalent:
 *
 *     class View:
 *         @property
 *         def __cuda_array_interface__(self) -> dict   # CUDA memory spaces only
 *     kp_view_from_cai(...)   # behind _from_cuda_array_interface (import.c)
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
#include "base.h"
#include "model.h"

#include <string.h>

#include "exchange.h"
#include "exchange_bridge.h"

/* ---- export ------------------------------------------------------------------------- */

PyObject *kp_view_cuda_array_interface(PyObject *self, void *closure) {
  kp_view *v = (kp_view *)self;
  if (!kp_dl_is_cuda_device(kp_spaces[v->space].dlpack_device)) {
    PyErr_Format(PyExc_AttributeError,
                 "View '%U' lives in %s: __cuda_array_interface__ is offered by Views in CUDA memory spaces only "
                 "(%s, %s, %s); use __dlpack__, __array_interface__ or the buffer protocol",
                 v->label, kp_spaces[v->space].name, kp_spaces[KP_SPACE_CUDA].name, kp_spaces[KP_SPACE_CUDA_UVM].name,
                 kp_spaces[KP_SPACE_CUDA_HOST_PINNED].name);
    return NULL;
  }
  if (kp_view_check_released(v)) return NULL;
  if (kp_view_require_device_reach(v, PyExc_BufferError, "__cuda_array_interface__") < 0) return NULL;
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
  shape = kp_view_extents_tuple(v, 0);
  if (!shape) goto done;
  strides = kp_view_is_c_contiguous(v) ? Py_NewRef(Py_None) : kp_view_extents_tuple(v, 1);
  if (!strides) goto done;
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

int kp_cai_read(PyObject *dict, const char *where, kp_interface *out) {
  kp_interface_ctx ctx = {where, "__cuda_array_interface__", KP_MAX_RANK, 1};
  return kp_interface_read(dict, &ctx, out);
}

kp_view *kp_view_from_cai_interface(kp_state *st, PyObject *obj, const kp_interface *in, PyObject *label,
                                    const char *where) {
  void *ptr = in->data;
  Py_ssize_t itemsize = kp_dtypes[in->dtype].itemsize;

  /* Which CUDA memory this is: the runtime knows (device, managed, pinned). */
  if (!kp_bridge_space_available(KP_SPACE_CUDA)) {
    PyErr_Format(PyExc_BufferError,
                 "%s: %.100s holds CUDA memory, but this Kokkos has no CUDA backend (%s is not "
                 "enabled); copy the array to the host first (e.g. numpy.asarray(cupy_array.get()))",
                 where, Py_TYPE(obj)->tp_name, kp_spaces[KP_SPACE_CUDA].name);
    return NULL;
  }
  int space = KP_SPACE_CUDA, device = kp_bridge_device_id(KP_SPACE_CUDA);
  if (ptr) {
    space = kp_bridge_pointer_space(ptr, &device);
    if (space < 0) {
      PyErr_Format(PyExc_BufferError,
                   "%s: address %p of %.100s's __cuda_array_interface__ is not memory the CUDA runtime "
                   "knows (device, managed or pinned host memory)",
                   where, ptr, Py_TYPE(obj)->tp_name);
      return NULL;
    }
    if (kp_space_check_available(space, where) < 0) return NULL;
    int kid = kp_bridge_device_id(space);
    if (space == KP_SPACE_CUDA && device != kid) {
      PyErr_Format(PyExc_BufferError,
                   "%s: the array lives on CUDA device %d, but Kokkos runs on device %d; move it to "
                   "device %d first",
                   where, device, kid, kid);
      return NULL;
    }
    size_t align = (size_t)(itemsize > 8 ? 8 : itemsize);
    if (in->bytes > 0 && ((uintptr_t)ptr) % align) {
      PyErr_Format(PyExc_BufferError,
                   "%s: address %p is not aligned to the %zd-byte elements; Kokkos Views need aligned "
                   "data",
                   where, ptr, itemsize);
      return NULL;
    }
  }
  if (in->has_stream && kp_order_import(space, (uintptr_t)in->stream, where) < 0) return NULL;
  kp_owner *owner = kp_owner_from_pyobject(st, space, ptr, obj, NULL);
  if (!owner) return NULL;
  kp_view *res = kp_view_wrap(st, st->view_type, owner, (char *)ptr, in->rank, in->shape, in->strides, in->dtype, space,
                              KP_TRAIT_UNMANAGED, in->readonly, label);
  Py_DECREF(owner);
  return res;
}

kp_view *kp_view_from_cai(kp_state *st, PyObject *obj, PyObject *label, const char *where) {
  PyObject *d = PyObject_GetAttr(obj, st->dl[KP_DL_STR_CAI]);
  if (!d) return NULL;
  kp_interface in;
  kp_view *res = kp_cai_read(d, where, &in) < 0 ? NULL : kp_view_from_cai_interface(st, obj, &in, label, where);
  Py_DECREF(d);
  return res;
}
