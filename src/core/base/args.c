/* args.c: the one argument parser of the kokkos._core functions and the parsing
 * of enumeration arguments (dtype, space, layout, trait) with strict families.
 *
 * Python equivalent of a parsed signature:
 *
 *     def array(shape_label_or_array, shape=None, label=None, ...): ...
 *
 * A call site binds each parameter's keyword name to the variable that
 * receives it (a kp_param list, as NumPy's npy_parse_arguments binds names
 * to destinations), so no code reads arguments by position:
 *
 *     PyObject *src, *copy, *space;
 *     const kp_param params[] = {{KP_KW_SRC, &src}, {KP_KW_COPY, &copy}, {KP_KW_SPACE, &space}};
 *     kp_args_parse(st, &sig, params, KP_PARAM_COUNT(params), args, nargs, kwnames);
 *
 * Keyword names are interned once, in the module state (kp_state.kw), so a
 * call's keywords (interned by the compiler) match by pointer. Messages name
 * the function: "kokkos.array(): got an unexpected keyword argument 'foo'".
 *
 * Enumerations: kokkos.dtype, memory_space, layout, memory_trait and device
 * are IntEnums, so a member of one family is also an int another family
 * would accept. Here a member is accepted only where its family is wanted:
 * layout=kokkos.HostSpace is a TypeError naming the family wanted.
 */
#include "core.h"
#include "base.h"

#include <string.h>

const char *const kp_kw_names[KP_KW_COUNT] = {
    [KP_KW_SHAPE] = "shape",
    [KP_KW_DTYPE] = "dtype",
    [KP_KW_LABEL] = "label",
    [KP_KW_SPACE] = "space",
    [KP_KW_LAYOUT] = "layout",
    [KP_KW_TRAIT] = "trait",
    [KP_KW_INITIALIZE] = "initialize",
    [KP_KW_ARRAY] = "array",
    [KP_KW_DYNAMIC] = "dynamic",
    [KP_KW_ORDER] = "order",
    [KP_KW_COPY] = "copy",
    [KP_KW_SRC] = "src",
    [KP_KW_OBJ] = "obj",
    [KP_KW_FIRST] = "shape_label_or_array",
    [KP_KW_DST] = "dst",
    [KP_KW_STREAM] = "stream",
    [KP_KW_MAX_VERSION] = "max_version",
    [KP_KW_DL_DEVICE] = "dl_device",
    [KP_KW_X] = "x",
    [KP_KW_DEVICE] = "device",
};

int kp_args_init(kp_state *st) {
  for (int i = 0; i < KP_KW_COUNT; ++i) {
    st->kw[i] = PyUnicode_InternFromString(kp_kw_names[i]);
    if (!st->kw[i]) return -1;
  }
  return 0;
}

void kp_args_clear(kp_state *st) {
  for (int i = 0; i < KP_KW_COUNT; ++i) Py_CLEAR(st->kw[i]);
}

/* The slow part of the one parser: the keyword named key, matched by
 * value (a name built at run time, not interned). The parameter's index,
 * or -1 with TypeError. */
static int keyword_by_value(kp_state *st, const kp_signature *sig, const kp_param *params, int count, PyObject *key) {
  for (int i = sig->posonly; i < count; ++i) {
    int eq = PyUnicode_Compare(key, st->kw[params[i].kw]);
    if (eq == -1 && PyErr_Occurred()) return -1;
    if (eq == 0) return i;
  }
  PyErr_Format(PyExc_TypeError, "%s: got an unexpected keyword argument '%U'", sig->name, key);
  return -1;
}

/* The one parser: params[0..count) in signature order, the first
 * sig->positional of which may be given positionally; keywords may name
 * parameters from sig->posonly on. Each argument is written to its
 * parameter's destination (NULL when not given). */
int kp_args_parse(kp_state *st, const kp_signature *sig, const kp_param *params, int count, PyObject *const *args,
                  Py_ssize_t nargs, PyObject *kwnames) {
  if (nargs > sig->positional) {
    PyErr_Format(PyExc_TypeError, "%s: takes %d positional argument%s but %zd were given", sig->name, sig->positional,
                 sig->positional == 1 ? "" : "s", nargs);
    return -1;
  }
  int p = 0;
  for (; p < (int)nargs; ++p) *params[p].dest = args[p];
  for (; p < count; ++p) *params[p].dest = NULL;
  Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  /* Keywords mostly come in the signature's order: each search starts
   * after the parameter the previous keyword named, and wraps around. */
  int next = sig->posonly < (int)nargs ? (int)nargs : sig->posonly;
  for (Py_ssize_t k = 0; k < nk; ++k) {
    PyObject *key = PyTuple_GET_ITEM(kwnames, k);
    /* Keyword names at call sites are interned: compare pointers first. */
    int found = -1;
    for (int n = sig->posonly; n < count; ++n) {
      if (next >= count) next = sig->posonly;
      if (key == st->kw[params[next].kw]) {
        found = next;
        break;
      }
      ++next;
    }
    if (found < 0 && (found = keyword_by_value(st, sig, params, count, key)) < 0) return -1;
    if (*params[found].dest) {
      PyErr_Format(PyExc_TypeError, "%s: got multiple values for argument '%s'", sig->name,
                   kp_kw_names[params[found].kw]);
      return -1;
    }
    *params[found].dest = args[nargs + k];
    next = found + 1;
  }
  for (int i = (int)nargs; i < sig->required; ++i) {
    if (!*params[i].dest) {
      PyErr_Format(PyExc_TypeError, "%s: missing required argument '%s'", sig->name, kp_kw_names[params[i].kw]);
      return -1;
    }
  }
  return 0;
}

int kp_args_bool(PyObject *obj, const char *where, const char *name, int dflt) {
  if (!obj) return dflt;
  if (obj == Py_True) return 1;
  if (obj == Py_False) return 0;
  int v = PyObject_IsTrue(obj);
  if (v < 0) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: %s must be True or False, got %.100s", where, name, Py_TYPE(obj)->tp_name);
  }
  return v;
}

/* ---- enumeration families ------------------------------------------------------------ */

/* What an argument of a family must be, for messages: "a kokkos memory
 * trait (kokkos.Managed, ...)"; the names come from the tables. */
static void family_wanted(int family, char *out, size_t size) {
  char traits[256];
  switch (family) {
    case KP_FAMILY_SPACE:
      snprintf(out, size, "a kokkos memory space (kokkos.%s, kokkos.%s, ...) or its name",
               kp_spaces[KP_SPACE_HOST].name, kp_spaces[KP_SPACE_CUDA].name);
      return;
    case KP_FAMILY_LAYOUT:
      snprintf(out, size, "a kokkos layout (kokkos.%s, kokkos.%s, kokkos.%s) or its name", kp_layout_names[0],
               kp_layout_names[1], kp_layout_names[2]);
      return;
    case KP_FAMILY_TRAIT:
      kp_trait_list("kokkos.", traits, sizeof traits);
      snprintf(out, size, "a kokkos memory trait (%s, or several combined with |)", traits);
      return;
    case KP_FAMILY_DEVICE:
      snprintf(out, size, "a kokkos execution space (kokkos.device.%s, ...)", kp_exec_names[KP_EXEC_SERIAL]);
      return;
    default:
      snprintf(out, size, "a kokkos dtype (kokkos.float64, kokkos.int32, ...), a NumPy dtype or a dtype name");
      return;
  }
}

static const char *const family_prefix[KP_FAMILY_COUNT] = {
    [KP_FAMILY_DTYPE] = "kokkos.", [KP_FAMILY_SPACE] = "kokkos.",         [KP_FAMILY_LAYOUT] = "kokkos.",
    [KP_FAMILY_TRAIT] = "kokkos.", [KP_FAMILY_DEVICE] = "kokkos.device.",
};

/* The family of an enumeration member, or -1 for anything else. */
static int family_of(const kp_state *st, PyObject *obj) {
  PyTypeObject *t = Py_TYPE(obj);
  if (t == &PyLong_Type || t == &PyUnicode_Type) return -1; /* the common spellings */
  for (int f = 0; f < KP_FAMILY_COUNT; ++f)
    if (st->enum_types[f] && t == (PyTypeObject *)st->enum_types[f]) return f;
  return -1;
}

/* Raises the TypeError for a member of another family; returns -1. */
static int wrong_family(int want, int got, PyObject *obj, const char *where, const char *name) {
  PyObject *member = PyObject_GetAttrString(obj, "name");
  if (!member || !PyUnicode_Check(member)) {
    Py_XDECREF(member);
    PyErr_Clear();
    member = PyObject_Str(obj);
    if (!member) return -1;
  }
  char wanted[320];
  family_wanted(want, wanted, sizeof wanted);
  PyErr_Format(PyExc_TypeError, "%s: %s must be %s, got %s%U", where, name, wanted, family_prefix[got], member);
  Py_DECREF(member);
  return -1;
}

static int member_value(PyObject *obj) {
  long v = PyLong_AsLong(obj);
  return (v == -1 && PyErr_Occurred()) ? -1 : (int)v;
}

int kp_arg_dtype(kp_state *st, PyObject *obj, const char *where) {
  int f = family_of(st, obj);
  if (f == KP_FAMILY_DTYPE) return member_value(obj);
  if (f >= 0) return wrong_family(KP_FAMILY_DTYPE, f, obj, where, "dtype");
  return kp_dtype_from_object(obj, where);
}

int kp_arg_space(kp_state *st, PyObject *obj, const char *where) {
  int f = family_of(st, obj);
  if (f == KP_FAMILY_SPACE) {
    int space = member_value(obj);
    if (space >= KP_SPACE_COUNT) {
      /* a member beyond the core's table: the original's HIPManagedSpace */
      PyObject *name = PyObject_GetAttrString(obj, "name");
      if (name)
        PyErr_Format(PyExc_ValueError,
                     "%s: memory space %U is a name only in this package: no View can live there; use "
                     "kokkos.%s or kokkos.%s",
                     where, name, kp_spaces[KP_SPACE_HIP].name, kp_spaces[KP_SPACE_HIP_HOST_PINNED].name);
      Py_XDECREF(name);
      return -1;
    }
    return space;
  }
  if (f >= 0) return wrong_family(KP_FAMILY_SPACE, f, obj, where, "space");
  return kp_space_from_object(obj, where);
}

int kp_arg_layout(kp_state *st, PyObject *obj, const char *where) {
  int f = family_of(st, obj);
  if (f == KP_FAMILY_LAYOUT) return member_value(obj);
  if (f >= 0) return wrong_family(KP_FAMILY_LAYOUT, f, obj, where, "layout");
  return kp_layout_from_object(obj, where);
}

int kp_arg_trait(kp_state *st, PyObject *obj, const char *where) {
  int f = family_of(st, obj);
  if (f == KP_FAMILY_TRAIT) return member_value(obj);
  if (f >= 0) return wrong_family(KP_FAMILY_TRAIT, f, obj, where, "trait");
  return kp_trait_from_object(obj, where);
}

int kp_args_register_enum_types(kp_state *st) {
  PyObject *members[3] = {st->dtype_members, st->space_members, st->layout_members};
  for (int f = 0; f < 3; ++f)
    if (members[f] && PyTuple_Check(members[f]) && PyTuple_GET_SIZE(members[f]) > 0)
      Py_XSETREF(st->enum_types[f], Py_NewRef((PyObject *)Py_TYPE(PyTuple_GET_ITEM(members[f], 0))));
  if (st->trait_enum && PyType_Check(st->trait_enum))
    Py_XSETREF(st->enum_types[KP_FAMILY_TRAIT], Py_NewRef(st->trait_enum));
  return 0;
}
