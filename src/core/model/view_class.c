/* view_class.c: the per-combination View classes, named as the original
 * package named its pybind11 classes.
 *
 * Python equivalent:
 *
 *     class KokkosView_float64_HostSpace_LayoutRight_2(kokkos.View): ...
 *     class KokkosView_int32_HostSpace_LayoutLeft_RandomAccess_1(kokkos.View): ...
 *     class KokkosDynRankView_int32_HostSpace_LayoutRight(kokkos.DynRankView): ...
 *
 * Every View the core makes is an instance of the class of its (dtype,
 * memory space, layout, memory traits, rank) combination, so
 * str(type(view)) reads "<class 'kokkos.KokkosView_float64_HostSpace_
 * LayoutRight_2'>" as with the original, which code written for it parses
 * (pykokkos reads the dtype from it). The classes add nothing to View or
 * DynRankView: isinstance(view, kokkos.View) holds and every method is
 * View's. A class is a module attribute of the kokkos package from when it
 * is made (kokkos.KokkosView_float64_HostSpace_LayoutRight_2), so the
 * package needs no module __getattr__, which would keep Python from caching
 * every kokkos.<name> lookup. They are made on first use and cached in the module state, in a
 * sparse table indexed by the combination (base/slots.c: blocks allocated
 * on first use), so finding one is two array loads and the first View costs
 * a few KiB, not the 120,960-slot table.
 *
 * Unmanaged is not part of the class, as in the original (which named a
 * class for the traits other than Managed and Unmanaged): a View over
 * foreign memory, an unpickled View and a Kokkos allocation of the same
 * combination share one class, so type(pickle.loads(pickle.dumps(v))) is
 * type(v).
 */
#include "core.h"
#include "base.h"
#include "model.h"

#include <string.h>

/* Memory traits that name a class: all but Managed (no flag) and Unmanaged,
 * in flag order (RandomAccess is 2 << 0, Aligned 2 << 3). */
enum { KP_CLASS_TRAIT_BITS = 4 };

enum {
  KP_CLASS_SLOTS =
      2 * KP_DTYPE_COUNT * KP_SPACE_COUNT * KP_LAYOUT_COUNT * (1 << KP_CLASS_TRAIT_BITS) * (KP_MAX_RANK + 1)
};

static Py_ssize_t class_slot(int dynamic, int dtype, int space, int layout, unsigned traits, int rank) {
  unsigned t = (traits & ~(unsigned)KP_TRAIT_UNMANAGED & (unsigned)KP_TRAIT_ALL) >> 1;
  if (dynamic) rank = 0; /* a DynRankView class does not name the rank */
  Py_ssize_t i = dynamic ? 1 : 0;
  i = i * KP_DTYPE_COUNT + dtype;
  i = i * KP_SPACE_COUNT + space;
  i = i * KP_LAYOUT_COUNT + layout;
  i = i * (1 << KP_CLASS_TRAIT_BITS) + (Py_ssize_t)t;
  return i * (KP_MAX_RANK + 1) + rank;
}

int kp_view_class_is_combination(kp_state *st, PyTypeObject *type) {
  /* Python subclasses of View never carry Py_TPFLAGS_IMMUTABLETYPE;
   * DynRankView (a subclass of View, immutable too) is not a combination. */
  return type != st->dyn_rank_view_type &&
         (type->tp_base == st->view_type || type->tp_base == st->dyn_rank_view_type) &&
         (type->tp_flags & Py_TPFLAGS_IMMUTABLETYPE) && type->tp_basicsize == (Py_ssize_t)sizeof(kp_view);
}

/* Writes the class name of a combination, "KokkosView_float64_HostSpace_
 * LayoutRight_2", with dtype_name standing for the dtype; the length. */
static int class_name(char *out, size_t size, int dynamic, const char *dtype_name, int space, int layout,
                      unsigned traits, int rank) {
  int n = snprintf(out, size, "%s_%s_%s_%s", dynamic ? "KokkosDynRankView" : "KokkosView", dtype_name,
                   kp_spaces[space].name, kp_layout_names[layout]);
  for (int i = 0; i < KP_TRAIT_COUNT; ++i)
    if (kp_traits[i].flag > KP_TRAIT_UNMANAGED && (traits & kp_traits[i].flag))
      n += snprintf(out + n, size - (size_t)n, "_%s", kp_traits[i].name);
  if (!dynamic) n += snprintf(out + n, size - (size_t)n, "_%d", rank);
  return n;
}

/* Makes cls a module attribute of the kokkos package under its name and
 * under the names the dtype's aliases give it (kokkos.KokkosView_double_
 * HostSpace_LayoutRight_1 is kokkos.KokkosView_float64_HostSpace_LayoutRight_1):
 * 0, or -1 with an exception. Nothing before the package hands its
 * namespace over (kp_py_publish_view_classes). */
static int publish_class(kp_state *st, PyObject *cls, int dynamic, int dtype, int space, int layout, unsigned traits,
                         int rank) {
  if (!st->view_class_namespace) return 0;
  char name[256];
  class_name(name, sizeof name, dynamic, kp_dtypes[dtype].name, space, layout, traits, rank);
  if (PyDict_SetItemString(st->view_class_namespace, name, cls) < 0) return -1;
  for (int a = 0; a < (int)(sizeof kp_dtypes[dtype].aliases / sizeof kp_dtypes[dtype].aliases[0]); ++a) {
    const char *alias = kp_dtypes[dtype].aliases[a];
    if (!alias) break;
    class_name(name, sizeof name, dynamic, alias, space, layout, traits, rank);
    if (PyDict_SetItemString(st->view_class_namespace, name, cls) < 0) return -1;
  }
  return 0;
}

/* New class for the combination, registered in st; NULL with an exception. */
static PyTypeObject *make_class(kp_state *st, Py_ssize_t slot, int dynamic, int dtype, int space, int layout,
                                unsigned traits, int rank) {
  char name[256] = "kokkos.";
  class_name(name + 7, sizeof name - 7, dynamic, kp_dtypes[dtype].name, space, layout, traits, rank);
  /* The type may keep spec->name as its tp_name (Python 3.10): the bytes
   * object holding it lives in st->view_classes with the type. */
  PyObject *keep = PyBytes_FromString(name);
  if (!keep) return NULL;
  PyType_Spec spec = {PyBytes_AS_STRING(keep), sizeof(kp_view), 0,
                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE, st->view_class_slots};
  PyTypeObject *base = dynamic ? st->dyn_rank_view_type : st->view_type;
  PyObject *cls = PyType_FromModuleAndSpec(st->module, &spec, (PyObject *)base);
  if (!cls) {
    Py_DECREF(keep);
    return NULL;
  }
  PyObject *entry = Py_BuildValue("(NNiiiiIi)", cls, keep, dynamic, dtype, space, layout, traits, rank);
  if (!entry || PyList_Append(st->view_classes, entry) < 0) {
    Py_XDECREF(entry);
    return NULL;
  }
  Py_DECREF(entry); /* st->view_classes holds the class; the table borrows */
  if (kp_slots_set(&st->view_class_table, (size_t)slot, cls) < 0) return NULL;
  if (publish_class(st, cls, dynamic, dtype, space, layout, traits, rank) < 0) return NULL;
  return (PyTypeObject *)cls;
}

PyTypeObject *kp_view_class(kp_state *st, int dynamic, int dtype, int space, int layout, unsigned traits, int rank) {
  Py_ssize_t slot = class_slot(dynamic, dtype, space, layout, traits, rank);
  PyTypeObject *cls = (PyTypeObject *)kp_slots_get(&st->view_class_table, (size_t)slot);
  if (cls) return cls;
  return make_class(st, slot, dynamic, dtype, space, layout, traits, rank);
}

int kp_view_retype(kp_view *v) {
  PyTypeObject *old = Py_TYPE(v);
  kp_state *st = kp_state_from_type(old);
  if (!kp_view_class_is_combination(st, old)) return 0; /* View, DynRankView or a Python subclass: kept */
  int dynamic = old->tp_base == st->dyn_rank_view_type;
  PyTypeObject *cls = kp_view_class(st, dynamic, v->dtype, v->space, v->layout, v->traits, v->rank);
  if (!cls) return -1;
  if (cls != old) {
    Py_SET_TYPE(v, (PyTypeObject *)Py_NewRef(cls));
    Py_DECREF(old);
  }
  return 0;
}

int kp_view_classes_init(kp_state *st, PyType_Slot *slots) {
  st->view_class_slots = slots;
  return kp_slots_init(&st->view_class_table, KP_CLASS_SLOTS);
}

void kp_view_classes_free(kp_state *st) { kp_slots_free(&st->view_class_table, NULL); }

PyObject *kp_py_publish_view_classes(PyObject *module, PyObject *namespace) {
  if (!PyDict_Check(namespace)) {
    PyErr_Format(PyExc_TypeError, "kokkos._core._publish_view_classes() takes a dict, got %.100s",
                 Py_TYPE(namespace)->tp_name);
    return NULL;
  }
  kp_state *st = (kp_state *)PyModule_GetState(module);
  Py_XSETREF(st->view_class_namespace, Py_NewRef(namespace));
  /* the classes made before (their entries: class, name, combination) */
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(st->view_classes); ++i) {
    PyObject *entry = PyList_GET_ITEM(st->view_classes, i);
    int dynamic, dtype, space, layout, rank;
    unsigned traits;
    PyObject *cls, *name;
    if (!PyArg_ParseTuple(entry, "OOiiiiIi", &cls, &name, &dynamic, &dtype, &space, &layout, &traits, &rank))
      return NULL;
    if (publish_class(st, cls, dynamic, dtype, space, layout, traits, rank) < 0) return NULL;
  }
  Py_RETURN_NONE;
}

PyObject *kp_py_view_class(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
  static const char *where = "kokkos._core._view_class()";
  if (nargs != 6) {
    PyErr_Format(PyExc_TypeError, "%s takes (dynamic, dtype, space, layout, traits, rank), got %zd arguments", where,
                 nargs);
    return NULL;
  }
  kp_state *st = (kp_state *)PyModule_GetState(module);
  int dynamic = PyObject_IsTrue(args[0]);
  if (dynamic < 0) return NULL;
  int dtype = kp_dtype_from_object(args[1], where);
  if (dtype < 0) return NULL;
  int space = kp_space_from_object(args[2], where);
  if (space < 0) return NULL;
  int layout = kp_layout_from_object(args[3], where);
  if (layout < 0) return NULL;
  int traits = kp_trait_from_object(args[4], where);
  if (traits < 0) return NULL;
  long rank = PyLong_AsLong(args[5]);
  if (rank == -1 && PyErr_Occurred()) return NULL;
  int max_rank = dynamic ? KP_MAX_RANK - 1 : KP_MAX_RANK;
  if (rank < 0 || rank > max_rank) {
    PyErr_Format(PyExc_ValueError, "%s: rank must be 0..%d, got %ld", where, max_rank, rank);
    return NULL;
  }
  PyTypeObject *cls = kp_view_class(st, dynamic, dtype, space, layout, (unsigned)traits, (int)rank);
  return cls ? Py_NewRef((PyObject *)cls) : NULL;
}
