/* space.c: the memory-space table and the layout and memory-trait names
 * (made from the public header's rows, where each name is spelled once:
 * the View repr, the class names, messages and the Python enumerations
 * read them here), the execution-space names, and the parsing of space /
 * layout / trait arguments. */
#include "core.h"
#include "base.h"

#include <string.h>

/* Built from the public header's KOKKOS_PYTHON_SPACE_ROWS (bridge.h
 * includes it): a new space is a row there. */
#define KP_SPACE_LIST(...) __VA_ARGS__
#define KP_SPACE_INFO_ROW(id, number, name, aliases, dlpack, backend, kind) \
  [KP_SPACE_##id] = {name, {KP_SPACE_LIST aliases NULL}, dlpack, KP_BACKEND_##backend, KP_MEMORY_##kind},
const kp_space_info kp_spaces[KP_SPACE_COUNT] = {KOKKOS_PYTHON_SPACE_ROWS(KP_SPACE_INFO_ROW)};
#undef KP_SPACE_INFO_ROW
#undef KP_SPACE_LIST

const char *const kp_backend_names[KP_BACKEND_COUNT] = {
    [KP_BACKEND_HOST] = "host",
    [KP_BACKEND_CUDA] = "cuda",
    [KP_BACKEND_HIP] = "hip",
    [KP_BACKEND_SYCL] = "sycl",
    [KP_BACKEND_OPENMP_TARGET] = "openmp_target",
};
const char *const kp_memory_kind_names[KP_MEMORY_KIND_COUNT] = {
    [KP_MEMORY_HOST] = "host",
    [KP_MEMORY_DEVICE] = "device",
    [KP_MEMORY_MANAGED] = "managed",
    [KP_MEMORY_PINNED] = "pinned",
};

int kp_dlpack_device_backend(int32_t device_type) {
  if (device_type <= 0) return -1;
  for (int i = 0; i < KP_SPACE_COUNT; ++i)
    if (kp_spaces[i].dlpack_device == device_type) return kp_spaces[i].backend;
  return -1;
}

/* Layout and memory-trait names: the public header's rows, as the space's. */
#define KP_NAME_OF(id, number, name) [KP_LAYOUT_##id] = name,
const char *const kp_layout_names[KP_LAYOUT_COUNT] = {KOKKOS_PYTHON_LAYOUT_ROWS(KP_NAME_OF)};
#undef KP_NAME_OF
#define KP_TRAIT_INFO_ROW(id, flag, name) {name, KP_TRAIT_##id},
const kp_trait_info kp_traits[KP_TRAIT_COUNT] = {KOKKOS_PYTHON_TRAIT_ROWS(KP_TRAIT_INFO_ROW)};
#undef KP_TRAIT_INFO_ROW

const char *kp_trait_name(unsigned flag) {
  for (int i = 0; i < KP_TRAIT_COUNT; ++i)
    if (kp_traits[i].flag == flag) return kp_traits[i].name;
  return "?";
}

void kp_trait_list(const char *prefix, char *out, size_t size) {
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < KP_TRAIT_COUNT && n < size; ++i)
    n += (size_t)snprintf(out + n, size - n, "%s%s%s", i ? ", " : "", prefix, kp_traits[i].name);
}

void kp_trait_names(unsigned traits, char *out, size_t size) {
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < KP_TRAIT_COUNT; ++i)
    if (kp_traits[i].flag && (traits & kp_traits[i].flag) && n < size)
      n += (size_t)snprintf(out + n, size - n, "%s%s", n ? "|" : "", kp_traits[i].name);
  if (!out[0]) snprintf(out, size, "%s", kp_traits[0].name);
}

const char *const kp_exec_names[KP_EXEC_COUNT] = {
    [KP_EXEC_SERIAL] = "Serial", [KP_EXEC_THREADS] = "Threads",
    [KP_EXEC_OPENMP] = "OpenMP", [KP_EXEC_CUDA] = "Cuda",
    [KP_EXEC_HPX] = "HPX",       [KP_EXEC_HIP] = "HIP",
    [KP_EXEC_SYCL] = "SYCL",     [KP_EXEC_OPENMP_TARGET] = "OpenMPTarget",
};

static int index_from_int(PyObject *obj, int count, const char *what, const char *where) {
  long v = PyLong_AsLong(obj);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v < 0 || v >= count) {
    PyErr_Format(PyExc_ValueError, "%s: %ld is not a valid %s", where, v, what);
    return -1;
  }
  return (int)v;
}

int kp_space_from_object(PyObject *obj, const char *where) {
  if (PyLong_Check(obj) && !PyBool_Check(obj)) return index_from_int(obj, KP_SPACE_COUNT, "memory space", where);
  if (PyUnicode_Check(obj)) {
    const char *s = PyUnicode_AsUTF8(obj);
    if (!s) return -1;
    if (strcmp(s, "DefaultMemorySpace") == 0) return kp_bridge_default_memory_space();
    if (strcmp(s, "DefaultHostMemorySpace") == 0) return kp_bridge_default_host_memory_space();
    for (int i = 0; i < KP_SPACE_COUNT; ++i) {
      if (strcmp(s, kp_spaces[i].name) == 0) return i;
      for (int a = 0; a < 6 && kp_spaces[i].aliases[a]; ++a)
        if (strcmp(s, kp_spaces[i].aliases[a]) == 0) return i;
    }
    PyErr_Format(PyExc_ValueError, "%s: unknown memory space %R (use kokkos.%s, '%s', ...)", where, obj,
                 kp_spaces[KP_SPACE_HOST].name, kp_spaces[KP_SPACE_HOST].name);
    return -1;
  }
  PyErr_Format(PyExc_TypeError, "%s: space must be a kokkos memory space (kokkos.%s, ...), got %.100s", where,
               kp_spaces[KP_SPACE_HOST].name, Py_TYPE(obj)->tp_name);
  return -1;
}

int kp_space_check_available(int space, const char *where) {
  if (space < 0 || space >= KP_SPACE_COUNT) {
    PyErr_Format(PyExc_ValueError, "%s: %d is not a memory space of this package", where, space);
    return -1;
  }
  if (kp_bridge_space_available(space)) return 0;
  PyErr_Format(PyExc_RuntimeError,
               "%s: memory space %s is not enabled in the installed Kokkos (check "
               "kokkos.get_memory_space_available(...)); %s",
               where, kp_spaces[space].name,
#ifdef KP_KOKKOS_INTERNAL
               /* the package's own Kokkos (a wheel's among them): the way to
                  the backend is a build from source where the device is */
               "that Kokkos is the package's own (a binary wheel's never has a GPU backend): install the "
               "package from source on the machine with the device (pip install . in its source tree), whose own "
               "Kokkos comes with CUDA where nvcc and a GPU are found (other backends: "
               "-Ccmake.define.Kokkos_ENABLE_HIP=ON, ...), or build it against your Kokkos with Kokkos_ROOT "
               "(docs/building.md)"
#else
               "rebuild against a Kokkos with that backend"
#endif
  );
  return -1;
}

int kp_layout_from_object(PyObject *obj, const char *where) {
  if (PyLong_Check(obj) && !PyBool_Check(obj)) return index_from_int(obj, KP_LAYOUT_COUNT, "layout", where);
  if (PyUnicode_Check(obj)) {
    const char *s = PyUnicode_AsUTF8(obj);
    if (!s) return -1;
    for (int i = 0; i < KP_LAYOUT_COUNT; ++i)
      if (strcmp(s, kp_layout_names[i]) == 0 || strcmp(s, kp_layout_names[i] + 6) == 0) return i;
    if (strcmp(s, "C") == 0) return KP_LAYOUT_RIGHT;
    if (strcmp(s, "F") == 0) return KP_LAYOUT_LEFT;
    PyErr_Format(PyExc_ValueError,
                 "%s: unknown layout %R (use kokkos.LayoutRight, kokkos.LayoutLeft or kokkos.LayoutStride)", where,
                 obj);
    return -1;
  }
  PyErr_Format(PyExc_TypeError,
               "%s: layout must be kokkos.LayoutRight, kokkos.LayoutLeft or kokkos.LayoutStride, got %.100s", where,
               Py_TYPE(obj)->tp_name);
  return -1;
}

int kp_trait_from_object(PyObject *obj, const char *where) {
  if (obj == Py_None) return KP_TRAIT_MANAGED;
  if (PyLong_Check(obj) && !PyBool_Check(obj)) {
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || (v & ~(long)KP_TRAIT_ALL)) {
      PyErr_Format(PyExc_ValueError, "%s: %ld is not a combination of kokkos memory traits", where, v);
      return -1;
    }
    return (int)v;
  }
  if (PyUnicode_Check(obj)) {
    const char *s = PyUnicode_AsUTF8(obj);
    if (!s) return -1;
    for (int i = 0; i < KP_TRAIT_COUNT; ++i)
      if (strcmp(s, kp_traits[i].name) == 0) return (int)kp_traits[i].flag;
    PyErr_Format(PyExc_ValueError, "%s: unknown memory trait %R (use kokkos.%s, kokkos.%s, kokkos.%s, ...)", where, obj,
                 kp_traits[0].name, kp_traits[1].name, kp_traits[2].name);
    return -1;
  }
  PyErr_Format(PyExc_TypeError, "%s: trait must be a kokkos memory trait (kokkos.%s, ...), got %.100s", where,
               kp_traits[0].name, Py_TYPE(obj)->tp_name);
  return -1;
}
