/* tuning.c: the Kokkos Tools tuning interface for Python (part of
 * kokkos._core._tools; kokkos.tools re-exports it).
 *
 * Python equivalent, roughly:
 *
 *     class ValueType(IntEnum): double = 0; int64 = 1; string = 2
 *     class StatisticalCategory(IntEnum): categorical; ordinal; interval; ratio
 *     class CandidateValueType(IntEnum): set; range; unbounded
 *     class OptimizationType(IntEnum): minimize = 0; maximize = 1
 *     ValueRange = namedtuple("ValueRange", "lower upper step open_lower open_upper")
 *     OptimizationGoal = namedtuple("OptimizationGoal", "type_id goal")
 *     class VariableInfo:       # Kokkos_Tools_VariableInfo, immutable
 *         def __init__(self, type, category, candidates=None): ...
 *     class VariableValue:      # Kokkos_Tools_VariableValue
 *         type_id: int; value: int | float | str; type; info
 *     def declare_output_type(name, info) -> int
 *     def declare_input_type(name, info) -> int
 *     def request_output_values(context_id, inputs, outputs) -> None
 *     def begin_context(context_id); def end_context(context_id)
 *     def declare_optimization_goal(context_id, goal)
 *     def get_new_context_id() -> int; def get_current_context_id() -> int
 *     def get_new_variable_id() -> int; def have_tuning_tool() -> bool
 *
 * Callbacks for the six tuning events go through tools.c's table like every
 * other event; the handlers here build the Python arguments. In
 * request_output_values the callback receives lists of VariableValue and
 * sets `.value` on the outputs; the setter checks the value against the
 * variable's type, and only when the callback returns normally (None) are
 * the outputs handed back to Kokkos. Otherwise the error goes to
 * sys.unraisablehook and Kokkos keeps the values it proposed.
 *
 * The classes live in process-wide state (kp_tuning_g), as tools.c's do:
 * Kokkos' callbacks carry no user data, so the handlers find them there.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "tools.h"
#include "tools_bridge.h"
#include "tuning_bridge.h"

#include <stddef.h>
#include <string.h>
#include <structmember.h>

/* ---- names ---------------------------------------------------------------- */

static const char *const kp_value_type_names[KP_TUNING_TYPE_COUNT] = {"double", "int64", "string"};
static const char *const kp_category_names[KP_TUNING_CATEGORY_COUNT] = {"categorical", "ordinal", "interval", "ratio"};
static const char *const kp_quantity_names[KP_TUNING_QUANTITY_COUNT] = {"set", "range", "unbounded"};
static const char *const kp_goal_names[2] = {"minimize", "maximize"};

/* ---- process-wide state ------------------------------------------------------ */

/* Kokkos' enumerations, each an IntEnum made from its names (rows of
 * kp_tuning_enums, below). */
enum { KP_ENUM_VALUE_TYPE, KP_ENUM_CATEGORY, KP_ENUM_QUANTITY, KP_ENUM_OPTIMIZATION_TYPE, KP_ENUM_COUNT };
/* The namedtuples (rows of kp_tuning_tuples) and the types (of
 * kp_tuning_specs). */
enum { KP_TUPLE_VALUE_RANGE, KP_TUPLE_OPTIMIZATION_GOAL, KP_TUPLE_COUNT };
enum { KP_TYPE_VARIABLE_INFO, KP_TYPE_VARIABLE_VALUE, KP_TYPE_COUNT };

static struct {
  PyObject *enums[KP_ENUM_COUNT];
  PyObject *tuples[KP_TUPLE_COUNT];
  PyTypeObject *types[KP_TYPE_COUNT];
} kp_tuning_g;

/* enum_cls(value): new reference or NULL. */
static PyObject *kp_tuning_enum(PyObject *enum_cls, int value) {
  PyObject *v = PyLong_FromLong(value);
  if (!v) return NULL;
  PyObject *r = PyObject_CallOneArg(enum_cls, v);
  Py_DECREF(v);
  return r;
}

/* An enum argument: an int (an IntEnum member is one) in [0, count) or one
 * of names; -1 with TypeError / ValueError. */
static int kp_tuning_enum_arg(PyObject *obj, const char *const *names, int count, const char *where, const char *what,
                              const char *enum_name) {
  if (PyUnicode_Check(obj)) {
    for (int i = 0; i < count; ++i)
      if (PyUnicode_CompareWithASCIIString(obj, names[i]) == 0) return i;
    PyErr_Format(PyExc_ValueError, "%s: %s must be a %s or one of its names, got %R", where, what, enum_name, obj);
    return -1;
  }
  if (!PyLong_Check(obj) || PyBool_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be a %s, got %.100s", where, what, enum_name, Py_TYPE(obj)->tp_name);
    return -1;
  }
  int overflow = 0;
  long v = PyLong_AsLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (overflow || v < 0 || v >= count) {
    PyErr_Format(PyExc_ValueError, "%s: %s must be a %s (0 to %d), got %R", where, what, enum_name, count - 1, obj);
    return -1;
  }
  return (int)v;
}

/* A size_t argument (ids); -1 with TypeError / ValueError. */
static int kp_tuning_size_arg(PyObject *obj, const char *where, const char *what, size_t *out) {
  if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be an int, got %.100s", where, what, Py_TYPE(obj)->tp_name);
    return -1;
  }
  PyObject *index = PyNumber_Index(obj);
  if (!index) return -1;
  size_t v = PyLong_AsSize_t(index);
  Py_DECREF(index);
  if (v == (size_t)-1 && PyErr_Occurred()) {
    PyErr_Format(PyExc_ValueError, "%s: %s must be in [0, 2**%d), got %R", where, what, (int)(8 * sizeof(size_t)), obj);
    return -1;
  }
  *out = v;
  return 0;
}

/* ---- values ------------------------------------------------------------------- */

/* The kind of a Python value (int -> int64, float -> double, str -> string),
 * or -1 for anything else (bool included). */
static int kp_tuning_kind_of(PyObject *obj) {
  if (PyBool_Check(obj)) return -1;
  if (PyFloat_Check(obj)) return KP_TUNING_DOUBLE;
  if (PyUnicode_Check(obj)) return KP_TUNING_STRING;
  if (PyIndex_Check(obj)) return KP_TUNING_INT64;
  return -1;
}

/* Converts obj to a value of type (KP_TUNING_*; -1: the value's own kind,
 * written to *out_type). -1 with TypeError / ValueError naming where/what. */
static int kp_tuning_value_from(PyObject *obj, int type, const char *where, const char *what, kp_tuning_value *out,
                                int *out_type) {
  int kind = kp_tuning_kind_of(obj);
  if (kind < 0) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be an int, float or str, got %.100s", where, what,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  if (type < 0) type = kind;
  memset(out, 0, sizeof(*out));
  switch (type) {
    case KP_TUNING_INT64: {
      if (kind != KP_TUNING_INT64) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be an int (the variable is int64), got %.100s", where, what,
                     Py_TYPE(obj)->tp_name);
        return -1;
      }
      PyObject *index = PyNumber_Index(obj);
      if (!index) return -1;
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
      Py_DECREF(index);
      if (v == -1 && PyErr_Occurred()) return -1;
      if (overflow) {
        PyErr_Format(PyExc_ValueError, "%s: %s must fit in int64, got %R", where, what, obj);
        return -1;
      }
      out->int_value = (int64_t)v;
      break;
    }
    case KP_TUNING_DOUBLE: {
      if (kind == KP_TUNING_STRING) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a float (the variable is double), got str", where, what);
        return -1;
      }
      double v = PyFloat_AsDouble(obj);
      if (v == -1.0 && PyErr_Occurred()) return -1;
      out->double_value = v;
      break;
    }
    default: {
      if (kind != KP_TUNING_STRING) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a str (the variable is string), got %.100s", where, what,
                     Py_TYPE(obj)->tp_name);
        return -1;
      }
      const char *s = kp_kokkos_text(obj, where, what);
      if (!s) return -1;
      size_t n = strlen(s);
      if (n >= KP_TUNING_STRING_SIZE) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be at most %d bytes in UTF-8 (Kokkos' tuning string), got %zu",
                     where, what, KP_TUNING_STRING_SIZE - 1, n);
        return -1;
      }
      memcpy(out->string_value, s, (size_t)n);
      break;
    }
  }
  if (out_type) *out_type = type;
  return 0;
}

/* The Python value (new reference) of v as type; None for an unknown type. */
static PyObject *kp_tuning_value_to_py(const kp_tuning_value *v, int type) {
  switch (type) {
    case KP_TUNING_INT64:
      return PyLong_FromLongLong((long long)v->int_value);
    case KP_TUNING_DOUBLE:
      return PyFloat_FromDouble(v->double_value);
    case KP_TUNING_STRING: {
      size_t n = strnlen(v->string_value, KP_TUNING_STRING_SIZE - 1);
      return PyUnicode_DecodeUTF8(v->string_value, (Py_ssize_t)n, "surrogateescape");
    }
    default:
      Py_RETURN_NONE;
  }
}

/* The normalized Python value of obj as type (new reference), or NULL. */
static PyObject *kp_tuning_normalize(PyObject *obj, int type, const char *where, const char *what) {
  kp_tuning_value v;
  if (kp_tuning_value_from(obj, type, where, what, &v, NULL) < 0) return NULL;
  return type == KP_TUNING_STRING ? Py_NewRef(obj) : kp_tuning_value_to_py(&v, type);
}

/* ---- VariableInfo -------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  PyObject *candidates; /* tuple (set), ValueRange (range) or None (unbounded); kp_tools_holder's */
  int type, category, quantity;
} kp_variable_info;

/* ValueRange(lower, upper, step, open_lower, open_upper) with values of
 * type, normalized (new reference), or NULL. */
static PyObject *kp_tuning_range_from(PyObject *range, int type, const char *where) {
  static const char *const fields[3] = {"candidates.lower", "candidates.upper", "candidates.step"};
  if (type == KP_TUNING_STRING) {
    PyErr_Format(PyExc_ValueError, "%s: a string variable cannot have a ValueRange; give a set of candidates", where);
    return NULL;
  }
  if (PyTuple_GET_SIZE(range) != 5) {
    PyErr_Format(PyExc_TypeError, "%s: candidates is not a ValueRange of 5 fields", where);
    return NULL;
  }
  PyObject *items[5] = {NULL, NULL, NULL, NULL, NULL};
  PyObject *result = NULL;
  for (int i = 0; i < 3; ++i)
    if (!(items[i] = kp_tuning_normalize(PyTuple_GET_ITEM(range, i), type, where, fields[i]))) goto done;
  for (int i = 3; i < 5; ++i) {
    int b = PyObject_IsTrue(PyTuple_GET_ITEM(range, i));
    if (b < 0) goto done;
    items[i] = PyBool_FromLong(b);
  }
  result = PyObject_Vectorcall(kp_tuning_g.tuples[KP_TUPLE_VALUE_RANGE], items, 5, NULL);
done:
  for (int i = 0; i < 5; ++i) Py_XDECREF(items[i]);
  return result;
}

static PyObject *kp_variable_info_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  static const char *where = "kokkos.tools.VariableInfo()";
  static char *kwlist[] = {"type", "category", "candidates", NULL};
  PyObject *type_obj, *category_obj, *candidates = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:VariableInfo", kwlist, &type_obj, &category_obj, &candidates))
    return NULL;
  int vtype;
  if (type_obj == (PyObject *)&PyLong_Type)
    vtype = KP_TUNING_INT64;
  else if (type_obj == (PyObject *)&PyFloat_Type)
    vtype = KP_TUNING_DOUBLE;
  else if (type_obj == (PyObject *)&PyUnicode_Type)
    vtype = KP_TUNING_STRING;
  else if (PyType_Check(type_obj)) {
    PyErr_Format(PyExc_TypeError, "%s: type must be a ValueType, int, float or str, got the class %.100s", where,
                 ((PyTypeObject *)type_obj)->tp_name);
    return NULL;
  } else if ((vtype = kp_tuning_enum_arg(type_obj, kp_value_type_names, KP_TUNING_TYPE_COUNT, where, "type",
                                         "ValueType (or int, float, str)")) < 0)
    return NULL;
  int category = kp_tuning_enum_arg(category_obj, kp_category_names, KP_TUNING_CATEGORY_COUNT, where, "category",
                                    "StatisticalCategory");
  if (category < 0) return NULL;

  int quantity;
  PyObject *normalized = NULL;
  if (candidates == Py_None) {
    quantity = KP_TUNING_UNBOUNDED;
    normalized = Py_NewRef(Py_None);
  } else if (PyObject_TypeCheck(candidates, (PyTypeObject *)kp_tuning_g.tuples[KP_TUPLE_VALUE_RANGE])) {
    quantity = KP_TUNING_RANGE;
    if (!(normalized = kp_tuning_range_from(candidates, vtype, where))) return NULL;
  } else if (PyUnicode_Check(candidates) || PyBytes_Check(candidates) || !PySequence_Check(candidates)) {
    PyErr_Format(PyExc_TypeError,
                 "%s: candidates must be a sequence of values (a set), a ValueRange or None (unbounded), got %.100s",
                 where, Py_TYPE(candidates)->tp_name);
    return NULL;
  } else {
    quantity = KP_TUNING_SET;
    PyObject *seq = PySequence_Tuple(candidates);
    if (!seq) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n == 0) {
      Py_DECREF(seq);
      PyErr_Format(PyExc_ValueError, "%s: candidates must not be empty", where);
      return NULL;
    }
    normalized = PyTuple_New(n);
    for (Py_ssize_t i = 0; normalized && i < n; ++i) {
      char what[48];
      snprintf(what, sizeof(what), "candidates[%zd]", i);
      PyObject *v = kp_tuning_normalize(PyTuple_GET_ITEM(seq, i), vtype, where, what);
      if (!v)
        Py_CLEAR(normalized);
      else
        PyTuple_SET_ITEM(normalized, i, v);
    }
    Py_DECREF(seq);
    if (!normalized) return NULL;
  }
  kp_variable_info *self = (kp_variable_info *)type->tp_alloc(type, 0);
  if (!self) {
    Py_DECREF(normalized);
    return NULL;
  }
  self->type = vtype;
  self->category = category;
  self->quantity = quantity;
  self->candidates = normalized;
  return (PyObject *)self;
}

/* A VariableInfo (new reference) for Kokkos' description, or NULL. */
static PyObject *kp_variable_info_from_c(const kp_tuning_info *info) {
  PyTypeObject *type = kp_tuning_g.types[KP_TYPE_VARIABLE_INFO];
  PyObject *candidates = NULL;
  if (info->quantity == KP_TUNING_SET) {
    size_t n = info->set_values ? info->set_size : 0;
    if (n > (size_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
    candidates = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; candidates && i < n; ++i) {
      kp_tuning_value v;
      memset(&v, 0, sizeof(v));
      if (info->type == KP_TUNING_INT64)
        v.int_value = ((const int64_t *)info->set_values)[i];
      else if (info->type == KP_TUNING_DOUBLE)
        v.double_value = ((const double *)info->set_values)[i];
      else
        memcpy(v.string_value, ((const char(*)[KP_TUNING_STRING_SIZE])info->set_values)[i], KP_TUNING_STRING_SIZE);
      PyObject *item = kp_tuning_value_to_py(&v, info->type);
      if (!item)
        Py_CLEAR(candidates);
      else
        PyTuple_SET_ITEM(candidates, (Py_ssize_t)i, item);
    }
  } else if (info->quantity == KP_TUNING_RANGE) {
    PyObject *items[5] = {kp_tuning_value_to_py(&info->lower, info->type),
                          kp_tuning_value_to_py(&info->upper, info->type),
                          kp_tuning_value_to_py(&info->step, info->type), PyBool_FromLong(info->open_lower),
                          PyBool_FromLong(info->open_upper)};
    if (items[0] && items[1] && items[2])
      candidates = PyObject_Vectorcall(kp_tuning_g.tuples[KP_TUPLE_VALUE_RANGE], items, 5, NULL);
    for (int i = 0; i < 5; ++i) Py_XDECREF(items[i]);
  } else {
    candidates = Py_NewRef(Py_None);
  }
  if (!candidates) return NULL;
  kp_variable_info *self = (kp_variable_info *)type->tp_alloc(type, 0);
  if (!self) {
    Py_DECREF(candidates);
    return NULL;
  }
  self->type = info->type;
  self->category = info->category;
  self->quantity = info->quantity;
  self->candidates = candidates;
  return (PyObject *)self;
}

/* Fills *out from self; a set's values go to *owned (PyMem_Free it). */
static int kp_variable_info_to_c(kp_variable_info *self, kp_tuning_info *out, void **owned) {
  memset(out, 0, sizeof(*out));
  *owned = NULL;
  out->type = self->type;
  out->category = self->category;
  out->quantity = self->quantity;
  if (self->quantity == KP_TUNING_SET) {
    Py_ssize_t n = PyTuple_GET_SIZE(self->candidates);
    size_t item = self->type == KP_TUNING_STRING ? KP_TUNING_STRING_SIZE : 8;
    if ((size_t)n > SIZE_MAX / item) {
      PyErr_NoMemory();
      return -1;
    }
    char *buf = PyMem_Calloc((size_t)n ? (size_t)n : 1, item);
    if (!buf) {
      PyErr_NoMemory();
      return -1;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
      kp_tuning_value v;
      if (kp_tuning_value_from(PyTuple_GET_ITEM(self->candidates, i), self->type, "kokkos.tools", "a candidate", &v,
                               NULL) < 0) {
        PyMem_Free(buf);
        return -1;
      }
      memcpy(buf + (size_t)i * item, &v, item);
    }
    out->set_size = (size_t)n;
    out->set_values = buf;
    *owned = buf;
  } else if (self->quantity == KP_TUNING_RANGE) {
    PyObject *r = self->candidates;
    if (kp_tuning_value_from(PyTuple_GET_ITEM(r, 0), self->type, "kokkos.tools", "lower", &out->lower, NULL) < 0 ||
        kp_tuning_value_from(PyTuple_GET_ITEM(r, 1), self->type, "kokkos.tools", "upper", &out->upper, NULL) < 0 ||
        kp_tuning_value_from(PyTuple_GET_ITEM(r, 2), self->type, "kokkos.tools", "step", &out->step, NULL) < 0)
      return -1;
    out->open_lower = PyTuple_GET_ITEM(r, 3) == Py_True;
    out->open_upper = PyTuple_GET_ITEM(r, 4) == Py_True;
  }
  return 0;
}

static PyObject *kp_variable_info_get_type(PyObject *self, void *closure) {
  return kp_tuning_enum(kp_tuning_g.enums[KP_ENUM_VALUE_TYPE], ((kp_variable_info *)self)->type);
}
static PyObject *kp_variable_info_get_category(PyObject *self, void *closure) {
  return kp_tuning_enum(kp_tuning_g.enums[KP_ENUM_CATEGORY], ((kp_variable_info *)self)->category);
}
static PyObject *kp_variable_info_get_quantity(PyObject *self, void *closure) {
  return kp_tuning_enum(kp_tuning_g.enums[KP_ENUM_QUANTITY], ((kp_variable_info *)self)->quantity);
}
static PyObject *kp_variable_info_get_candidates(PyObject *self, void *closure) {
  PyObject *c = ((kp_variable_info *)self)->candidates;
  return Py_NewRef(c ? c : Py_None);
}

static PyObject *kp_variable_info_repr(PyObject *self) {
  kp_variable_info *v = (kp_variable_info *)self;
  return PyUnicode_FromFormat("VariableInfo(ValueType.%s, StatisticalCategory.%s, candidates=%R)",
                              kp_value_type_names[v->type], kp_category_names[v->category],
                              v->candidates ? v->candidates : Py_None);
}

static PyObject *kp_variable_info_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, Py_TYPE(a)) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  kp_variable_info *x = (kp_variable_info *)a, *y = (kp_variable_info *)b;
  int eq = x->type == y->type && x->category == y->category && x->quantity == y->quantity;
  if (eq && x->candidates && y->candidates) {
    eq = PyObject_RichCompareBool(x->candidates, y->candidates, Py_EQ);
    if (eq < 0) return NULL;
  }
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyGetSetDef kp_variable_info_getset[] = {
    {"type", kp_variable_info_get_type, NULL, "ValueType: double, int64 or string.", NULL},
    {"category", kp_variable_info_get_category, NULL, "StatisticalCategory: categorical, ordinal, interval or ratio.",
     NULL},
    {"value_quantity", kp_variable_info_get_quantity, NULL,
     "CandidateValueType: set, range or unbounded (from candidates).", NULL},
    {"candidates", kp_variable_info_get_candidates, NULL,
     "A tuple of values (set), a ValueRange (range) or None (unbounded).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot kp_variable_info_slots[] = {
    {Py_tp_new, kp_variable_info_new},
    KP_TOOLS_HOLDER_SLOTS,
    {Py_tp_repr, kp_variable_info_repr},
    {Py_tp_richcompare, kp_variable_info_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_getset, kp_variable_info_getset},
    {Py_tp_doc,
     "VariableInfo(type, category, candidates=None): a tuning variable's description "
     "(Kokkos_Tools_VariableInfo).\n\n"
     "type: a ValueType, or int (int64), float (double), str (string). category: a "
     "StatisticalCategory or its name. candidates: a sequence of values (a set), a ValueRange "
     "(int64 or double only) or None (unbounded). Immutable."},
    {0, NULL}};

/* ---- VariableValue --------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  PyObject *info; /* VariableInfo or None; kp_tools_holder's */
  unsigned long long type_id;
  int type;      /* kp_tuning_type of value; -1: none yet (unknown variable) */
  char declared; /* type comes from the variable's declaration: values must match */
  char readonly; /* an input handed to a callback */
  kp_tuning_value value;
} kp_variable_value;

_Static_assert(offsetof(kp_variable_info, candidates) == offsetof(kp_tools_holder, held) &&
                   offsetof(kp_variable_value, info) == offsetof(kp_tools_holder, held),
               "VariableInfo and VariableValue hold their object where kp_tools_holder does (tools.h)");

/* A new VariableValue (new reference) or NULL. */
static PyObject *kp_variable_value_make(size_t type_id, int type, int declared, int readonly,
                                        const kp_tuning_value *value, PyObject *info) {
  PyTypeObject *tp = kp_tuning_g.types[KP_TYPE_VARIABLE_VALUE];
  kp_variable_value *self = (kp_variable_value *)tp->tp_alloc(tp, 0);
  if (!self) return NULL;
  self->type_id = type_id;
  self->type = type;
  self->declared = (char)declared;
  self->readonly = (char)readonly;
  if (value) self->value = *value;
  self->info = Py_NewRef(info ? info : Py_None);
  return (PyObject *)self;
}

/* From the bridge's view of a Kokkos value (new reference) or NULL. */
static PyObject *kp_variable_value_from_c(const kp_tuning_variable *v, int readonly) {
  PyObject *info = NULL;
  if (v->info) {
    info = kp_variable_info_from_c(v->info);
    if (!info) return NULL;
  }
  PyObject *r = kp_variable_value_make(v->type_id, v->type, v->type >= 0, readonly, &v->value, info);
  Py_XDECREF(info);
  return r;
}

static PyObject *kp_variable_value_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  static const char *where = "kokkos.tools.VariableValue()";
  static char *kwlist[] = {"type_id", "value", NULL};
  PyObject *id_obj, *value_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:VariableValue", kwlist, &id_obj, &value_obj)) return NULL;
  size_t id;
  if (kp_tuning_size_arg(id_obj, where, "type_id", &id) < 0) return NULL;
  int declared_type = kp_tuning_bridge_type_of(id);
  kp_tuning_value v;
  int vtype;
  if (kp_tuning_value_from(value_obj, declared_type, where, "value", &v, &vtype) < 0) return NULL;
  kp_variable_value *self = (kp_variable_value *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->type_id = id;
  self->type = vtype;
  self->declared = declared_type >= 0;
  self->value = v;
  self->info = Py_NewRef(Py_None);
  return (PyObject *)self;
}

static PyObject *kp_variable_value_get_value(PyObject *self, void *closure) {
  kp_variable_value *v = (kp_variable_value *)self;
  return kp_tuning_value_to_py(&v->value, v->type);
}

static int kp_variable_value_set_value(PyObject *self, PyObject *value, void *closure) {
  kp_variable_value *v = (kp_variable_value *)self;
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "kokkos.tools.VariableValue: value cannot be deleted");
    return -1;
  }
  if (v->readonly) {
    PyErr_Format(PyExc_AttributeError,
                 "kokkos.tools.VariableValue.value: variable %llu is an input; only outputs can be set", v->type_id);
    return -1;
  }
  char what[64];
  snprintf(what, sizeof(what), "the value of variable %llu", v->type_id);
  kp_tuning_value nv;
  int ntype;
  if (kp_tuning_value_from(value, v->declared ? v->type : -1, "kokkos.tools.VariableValue.value", what, &nv, &ntype) <
      0)
    return -1;
  v->value = nv;
  v->type = ntype;
  return 0;
}

static PyObject *kp_variable_value_get_type(PyObject *self, void *closure) {
  kp_variable_value *v = (kp_variable_value *)self;
  if (v->type < 0) Py_RETURN_NONE;
  return kp_tuning_enum(kp_tuning_g.enums[KP_ENUM_VALUE_TYPE], v->type);
}

static PyObject *kp_variable_value_get_info(PyObject *self, void *closure) {
  PyObject *i = ((kp_variable_value *)self)->info;
  return Py_NewRef(i ? i : Py_None);
}

static PyObject *kp_variable_value_get_readonly(PyObject *self, void *closure) {
  return PyBool_FromLong(((kp_variable_value *)self)->readonly);
}

static PyObject *kp_variable_value_repr(PyObject *self) {
  kp_variable_value *v = (kp_variable_value *)self;
  PyObject *value = kp_tuning_value_to_py(&v->value, v->type);
  if (!value) return NULL;
  PyObject *r = PyUnicode_FromFormat("VariableValue(type_id=%llu, value=%R)", v->type_id, value);
  Py_DECREF(value);
  return r;
}

static PyMemberDef kp_variable_value_members[] = {
    {"type_id", T_ULONGLONG, offsetof(kp_variable_value, type_id), READONLY,
     "The variable's id (what declare_output_type / declare_input_type returned)."},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef kp_variable_value_getset[] = {
    {"value", kp_variable_value_get_value, kp_variable_value_set_value,
     "The value: int (int64), float (double) or str (string, at most 63 bytes). In a "
     "request_output_values callback, set it on the outputs to choose what Kokkos receives; it must "
     "match the variable's type.",
     NULL},
    {"type", kp_variable_value_get_type, NULL, "ValueType of the value (None if unknown).", NULL},
    {"info", kp_variable_value_get_info, NULL,
     "The variable's VariableInfo when Kokkos passed it (in callbacks), else None.", NULL},
    {"readonly", kp_variable_value_get_readonly, NULL, "True for inputs handed to a callback.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot kp_variable_value_slots[] = {
    {Py_tp_new, kp_variable_value_new},
    KP_TOOLS_HOLDER_SLOTS,
    {Py_tp_repr, kp_variable_value_repr},
    {Py_tp_members, kp_variable_value_members},
    {Py_tp_getset, kp_variable_value_getset},
    {Py_tp_doc,
     "VariableValue(type_id, value): a tuning variable's value (Kokkos_Tools_VariableValue; "
     "Kokkos::Tools::Experimental::make_variable_value).\n\n"
     "value is an int, float or str; for a variable this process declared it must match the "
     "declared type (an int is accepted for a double)."},
    {0, NULL}};

/* ---- the handlers the bridge calls: each says its arguments' kinds ------------------- */

static PyObject *kp_variable_info_build(void *info) { return kp_variable_info_from_c(info); }

static void kp_on_declare_type(int output, const char *name, size_t id, const kp_tuning_info *info) {
  KP_TOOLS_FIRE(output ? KP_TOOLS_DECLARE_OUTPUT_TYPE : KP_TOOLS_DECLARE_INPUT_TYPE, NULL, NULL, KP_ARG_STR(name),
                KP_ARG_SIZE(id), KP_ARG_BUILT(kp_variable_info_build, (void *)info));
}

/* request_output_values: the callback receives lists of VariableValue and
 * sets .value on the outputs, which go back to Kokkos if it returns None.
 * The handler keeps its own references to the outputs: the callback may
 * empty its list. */
typedef struct kp_tuning_request {
  size_t n;
  kp_tuning_variable *vars;
  int outputs;
  PyObject **keep; /* outputs: strong references to the items, PyMem */
} kp_tuning_request;

/* A list of VariableValue for a kp_tuning_request's vars (inputs read-only). */
static PyObject *kp_tuning_list_build(void *ctx) {
  kp_tuning_request *r = ctx;
  if (r->n > (size_t)PY_SSIZE_T_MAX / sizeof(PyObject *)) return PyErr_NoMemory();
  if (r->outputs && r->n > 0 && !(r->keep = PyMem_Calloc(r->n, sizeof(PyObject *)))) return PyErr_NoMemory();
  PyObject *list = PyList_New((Py_ssize_t)r->n);
  for (size_t i = 0; list && i < r->n; ++i) {
    PyObject *v = kp_variable_value_from_c(&r->vars[i], !r->outputs);
    if (!v) {
      Py_CLEAR(list);
      break;
    }
    if (r->keep) r->keep[i] = Py_NewRef(v);
    PyList_SET_ITEM(list, (Py_ssize_t)i, v);
  }
  return list;
}

static void kp_tuning_outputs_take(kp_tools_call *c, PyObject *res, void *ctx) {
  kp_tuning_request *r = ctx;
  if (res && res != Py_None) {
    PyErr_Format(PyExc_TypeError,
                 "the kokkos.tools request_output_values callback returned %.100s; it must set .value on the "
                 "outputs and return None (Kokkos keeps its values)",
                 Py_TYPE(res)->tp_name);
    kp_tools_report(c);
  } else if (res) {
    /* Returned normally: hand every output's value to Kokkos. */
    for (size_t i = 0; r->keep && i < r->n; ++i) {
      kp_variable_value *v = (kp_variable_value *)r->keep[i];
      if (!v || v->type < 0) continue;
      r->vars[i].value = v->value;
      r->vars[i].type = v->type;
    }
  }
  Py_XDECREF(res);
  for (size_t i = 0; r->keep && i < r->n; ++i) Py_XDECREF(r->keep[i]);
  PyMem_Free(r->keep);
  r->keep = NULL;
}

static void kp_on_request_values(size_t context_id, size_t n_inputs, const kp_tuning_variable *inputs, size_t n_outputs,
                                 kp_tuning_variable *outputs) {
  kp_tuning_request in = {n_inputs, (kp_tuning_variable *)inputs, 0, NULL}, out = {n_outputs, outputs, 1, NULL};
  KP_TOOLS_FIRE(KP_TOOLS_REQUEST_OUTPUT_VALUES, kp_tuning_outputs_take, &out, KP_ARG_SIZE(context_id),
                KP_ARG_BUILT(kp_tuning_list_build, &in), KP_ARG_BUILT(kp_tuning_list_build, &out));
}

static void kp_on_begin_context(size_t context_id) {
  KP_TOOLS_FIRE(KP_TOOLS_BEGIN_CONTEXT, NULL, NULL, KP_ARG_SIZE(context_id));
}

static PyObject *kp_input_value_build(void *value) { return kp_variable_value_from_c(value, 1); }

static void kp_on_end_context(size_t context_id, const kp_tuning_variable *value) {
  KP_TOOLS_FIRE(KP_TOOLS_END_CONTEXT, NULL, NULL, KP_ARG_SIZE(context_id),
                KP_ARG_BUILT(kp_input_value_build, (void *)value));
}

typedef struct kp_tuning_goal_args {
  size_t type_id;
  int goal;
} kp_tuning_goal_args;

/* OptimizationGoal(type_id, OptimizationType(goal)) for a kp_tuning_goal_args. */
static PyObject *kp_tuning_goal_build(void *ctx) {
  const kp_tuning_goal_args *g = ctx;
  PyObject *items[2] = {PyLong_FromSize_t(g->type_id), NULL};
  if (g->goal == KP_TUNING_MINIMIZE || g->goal == KP_TUNING_MAXIMIZE)
    items[1] = kp_tuning_enum(kp_tuning_g.enums[KP_ENUM_OPTIMIZATION_TYPE], g->goal);
  else
    items[1] = PyLong_FromLong(g->goal); /* not Kokkos': pass it on as it came */
  PyObject *r = NULL;
  if (items[0] && items[1]) r = PyObject_Vectorcall(kp_tuning_g.tuples[KP_TUPLE_OPTIMIZATION_GOAL], items, 2, NULL);
  Py_XDECREF(items[0]);
  Py_XDECREF(items[1]);
  return r;
}

static void kp_on_optimization_goal(size_t context_id, size_t type_id, int goal) {
  kp_tuning_goal_args g = {type_id, goal};
  KP_TOOLS_FIRE(KP_TOOLS_DECLARE_OPTIMIZATION_GOAL, NULL, NULL, KP_ARG_SIZE(context_id),
                KP_ARG_BUILT(kp_tuning_goal_build, &g));
}

/* What the bridge calls for the tuning events (tuning_bridge.h). */
static const kp_tuning_handlers kp_tuning_handler_table = {
    .declare_type = kp_on_declare_type,
    .request_values = kp_on_request_values,
    .begin_context = kp_on_begin_context,
    .end_context = kp_on_end_context,
    .optimization_goal = kp_on_optimization_goal,
};

/* ---- calls from Python ------------------------------------------------------------------- */

static PyObject *kp_tuning_declare(PyObject *const *args, Py_ssize_t nargs, int output) {
  const char *where = output ? "kokkos.tools.declare_output_type()" : "kokkos.tools.declare_input_type()";
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "%s takes 2 arguments (name, info), got %zd", where, nargs);
    return NULL;
  }
  const char *name = kp_kokkos_text(args[0], where, "name");
  if (!name) return NULL;
  if (!PyObject_TypeCheck(args[1], kp_tuning_g.types[KP_TYPE_VARIABLE_INFO])) {
    PyErr_Format(PyExc_TypeError, "%s: info must be a kokkos.tools.VariableInfo, got %.100s", where,
                 Py_TYPE(args[1])->tp_name);
    return NULL;
  }
  kp_tuning_info info;
  void *owned = NULL;
  if (kp_variable_info_to_c((kp_variable_info *)args[1], &info, &owned) < 0) return NULL;
  kp_interrupt_state *t = kp_tools_entry_begin(where);
  if (!t) {
    PyMem_Free(owned);
    return NULL;
  }
  kp_error err;
  err.message[0] = 0;
  size_t id = 0;
  kp_status s = kp_tuning_bridge_declare_type(output, name, &info, &id, &err);
  PyMem_Free(owned);
  if (kp_tools_entry_end(t, where, 0, s, &err) < 0) return NULL;
  return PyLong_FromSize_t(id);
}

static PyObject *kp_tuning_declare_output_type(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  return kp_tuning_declare(args, nargs, 1);
}

static PyObject *kp_tuning_declare_input_type(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  return kp_tuning_declare(args, nargs, 0);
}

/* Strong references to the VariableValues of seq in *out_items (n of
 * them) and their C view in *out_vars; both PyMem; -1 with an exception. */
static int kp_tuning_values_arg(PyObject *seq_obj, const char *where, const char *what, int output,
                                PyObject ***out_items, kp_tuning_variable **out_vars, size_t *out_n) {
  *out_items = NULL;
  *out_vars = NULL;
  *out_n = 0;
  if (PyUnicode_Check(seq_obj) || !PySequence_Check(seq_obj)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be a sequence of kokkos.tools.VariableValue, got %.100s", where, what,
                 Py_TYPE(seq_obj)->tp_name);
    return -1;
  }
  PyObject *seq = PySequence_Tuple(seq_obj);
  if (!seq) return -1;
  size_t n = (size_t)PyTuple_GET_SIZE(seq);
  PyObject **items = PyMem_Calloc(n ? n : 1, sizeof(PyObject *));
  kp_tuning_variable *vars = PyMem_Calloc(n ? n : 1, sizeof(kp_tuning_variable));
  if (!items || !vars) {
    PyErr_NoMemory();
    goto fail;
  }
  for (size_t i = 0; i < n; ++i) {
    PyObject *item = PyTuple_GET_ITEM(seq, (Py_ssize_t)i);
    if (!PyObject_TypeCheck(item, kp_tuning_g.types[KP_TYPE_VARIABLE_VALUE])) {
      PyErr_Format(PyExc_TypeError, "%s: %s[%zu] must be a kokkos.tools.VariableValue, got %.100s", where, what, i,
                   Py_TYPE(item)->tp_name);
      goto fail;
    }
    kp_variable_value *v = (kp_variable_value *)item;
    if (output && v->readonly) {
      PyErr_Format(PyExc_ValueError, "%s: %s[%zu] is a read-only input value; make a VariableValue for the output",
                   where, what, i);
      goto fail;
    }
    /* A value made before its variable was declared: check it now. */
    int declared = kp_tuning_bridge_type_of((size_t)v->type_id);
    if (declared >= 0 && declared != v->type) {
      PyObject *value = kp_tuning_value_to_py(&v->value, v->type);
      if (!value) goto fail;
      char name[48];
      snprintf(name, sizeof(name), "%s[%zu].value", what, i);
      kp_tuning_value nv;
      int rc = kp_tuning_value_from(value, declared, where, name, &nv, NULL);
      Py_DECREF(value);
      if (rc < 0) goto fail;
      vars[i].value = nv;
      vars[i].type = declared;
    } else {
      vars[i].value = v->value;
      vars[i].type = v->type;
    }
    vars[i].type_id = (size_t)v->type_id;
    items[i] = Py_NewRef(item);
  }
  Py_DECREF(seq);
  *out_items = items;
  *out_vars = vars;
  *out_n = n;
  return 0;
fail:
  for (size_t i = 0; items && i < n; ++i) Py_XDECREF(items[i]);
  PyMem_Free(items);
  PyMem_Free(vars);
  Py_DECREF(seq);
  return -1;
}

/* request_output_values(context_id, inputs, outputs): set_input_values then
 * request_output_values; the tuner's choices land in outputs[i].value. */
static PyObject *kp_tuning_request_output_values(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  static const char *where = "kokkos.tools.request_output_values()";
  if (nargs != 3) {
    PyErr_Format(PyExc_TypeError, "%s takes 3 arguments (context_id, inputs, outputs), got %zd", where, nargs);
    return NULL;
  }
  size_t context_id, n_in = 0, n_out = 0;
  PyObject **in_items = NULL, **out_items = NULL;
  kp_tuning_variable *in = NULL, *out = NULL;
  PyObject *result = NULL;
  if (kp_tuning_size_arg(args[0], where, "context_id", &context_id) < 0) goto done;
  if (kp_tuning_values_arg(args[1], where, "inputs", 0, &in_items, &in, &n_in) < 0) goto done;
  if (kp_tuning_values_arg(args[2], where, "outputs", 1, &out_items, &out, &n_out) < 0) goto done;
  kp_interrupt_state *t = kp_tools_entry_begin(where);
  if (!t) goto done;
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_tuning_bridge_request_output_values(context_id, n_in, in, n_out, out, &err);
  if (kp_tools_entry_end(t, where, 0, s, &err) < 0) goto done;
  for (size_t i = 0; i < n_out; ++i) {
    kp_variable_value *v = (kp_variable_value *)out_items[i];
    if (out[i].type < 0) continue;
    v->value = out[i].value;
    v->type = out[i].type;
  }
  result = Py_NewRef(Py_None);
done:
  for (size_t i = 0; i < n_in; ++i) Py_XDECREF(in_items[i]);
  for (size_t i = 0; i < n_out; ++i) Py_XDECREF(out_items[i]);
  PyMem_Free(in_items);
  PyMem_Free(out_items);
  PyMem_Free(in);
  PyMem_Free(out);
  return result;
}

#define KP_TUNING_CONTEXT_FN(fname, bridge_fn)                              \
  static PyObject *kp_tuning_##fname(PyObject *mod, PyObject *arg) {        \
    static const char *where = "kokkos.tools." #fname "()";                 \
    size_t id;                                                              \
    if (kp_tuning_size_arg(arg, where, "context_id", &id) < 0) return NULL; \
    kp_interrupt_state *t = kp_tools_entry_begin(where);                    \
    if (!t) return NULL;                                                    \
    kp_error err;                                                           \
    err.message[0] = 0;                                                     \
    kp_status s = bridge_fn(id, &err);                                      \
    if (kp_tools_entry_end(t, where, 0, s, &err) < 0) return NULL;          \
    Py_RETURN_NONE;                                                         \
  }

KP_TUNING_CONTEXT_FN(begin_context, kp_tuning_bridge_begin_context)
KP_TUNING_CONTEXT_FN(end_context, kp_tuning_bridge_end_context)

static PyObject *kp_tuning_declare_optimization_goal(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  static const char *where = "kokkos.tools.declare_optimization_goal()";
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "%s takes 2 arguments (context_id, goal), got %zd", where, nargs);
    return NULL;
  }
  size_t context_id, type_id;
  if (kp_tuning_size_arg(args[0], where, "context_id", &context_id) < 0) return NULL;
  PyObject *goal = args[1];
  if (!PyTuple_Check(goal) || PyTuple_GET_SIZE(goal) != 2) {
    PyErr_Format(PyExc_TypeError, "%s: goal must be an OptimizationGoal(type_id, OptimizationType), got %.100s", where,
                 Py_TYPE(goal)->tp_name);
    return NULL;
  }
  if (kp_tuning_size_arg(PyTuple_GET_ITEM(goal, 0), where, "goal.type_id", &type_id) < 0) return NULL;
  int type = kp_tuning_enum_arg(PyTuple_GET_ITEM(goal, 1), kp_goal_names, 2, where, "goal.goal", "OptimizationType");
  if (type < 0) return NULL;
  kp_interrupt_state *t = kp_tools_entry_begin(where);
  if (!t) return NULL;
  kp_error err;
  err.message[0] = 0;
  kp_status s = kp_tuning_bridge_declare_optimization_goal(context_id, type_id, type, &err);
  if (kp_tools_entry_end(t, where, 0, s, &err) < 0) return NULL;
  Py_RETURN_NONE;
}

/* The calls that only read a number Kokkos keeps. */
#define KP_TUNING_GETTER(fname, TO_PY, bridge_fn) \
  static PyObject *kp_tuning_##fname(PyObject *mod, PyObject *unused) { return TO_PY(bridge_fn()); }

KP_TUNING_GETTER(get_new_context_id, PyLong_FromSize_t, kp_tuning_bridge_new_context_id)
KP_TUNING_GETTER(get_current_context_id, PyLong_FromSize_t, kp_tuning_bridge_current_context_id)
KP_TUNING_GETTER(get_new_variable_id, PyLong_FromSize_t, kp_tuning_bridge_new_variable_id)
KP_TUNING_GETTER(have_tuning_tool, PyBool_FromLong, kp_tuning_bridge_have_tuning_tool)

static PyMethodDef kp_tuning_methods[] = {
    {"declare_output_type", (PyCFunction)(void (*)(void))kp_tuning_declare_output_type, METH_FASTCALL,
     "declare_output_type(name, info) -> int: Kokkos::Tools::Experimental::declare_output_type; a tuning "
     "variable the tuner chooses; returns its id."},
    {"declare_input_type", (PyCFunction)(void (*)(void))kp_tuning_declare_input_type, METH_FASTCALL,
     "declare_input_type(name, info) -> int: Kokkos::Tools::Experimental::declare_input_type; a context "
     "variable the tuner sees; returns its id."},
    {"request_output_values", (PyCFunction)(void (*)(void))kp_tuning_request_output_values, METH_FASTCALL,
     "request_output_values(context_id, inputs, outputs): set_input_values then request_output_values; "
     "inputs and outputs are sequences of VariableValue, and the tuner's choices land in each output's "
     ".value (unchanged if no tuner is set)."},
    {"begin_context", kp_tuning_begin_context, METH_O,
     "begin_context(context_id): Kokkos::Tools::Experimental::begin_context."},
    {"end_context", kp_tuning_end_context, METH_O,
     "end_context(context_id): Kokkos::Tools::Experimental::end_context."},
    {"declare_optimization_goal", (PyCFunction)(void (*)(void))kp_tuning_declare_optimization_goal, METH_FASTCALL,
     "declare_optimization_goal(context_id, goal): goal an OptimizationGoal(type_id, OptimizationType)."},
    {"get_new_context_id", kp_tuning_get_new_context_id, METH_NOARGS,
     "get_new_context_id() -> int: Kokkos::Tools::Experimental::get_new_context_id."},
    {"get_current_context_id", kp_tuning_get_current_context_id, METH_NOARGS,
     "get_current_context_id() -> int: Kokkos::Tools::Experimental::get_current_context_id."},
    {"get_new_variable_id", kp_tuning_get_new_variable_id, METH_NOARGS,
     "get_new_variable_id() -> int: Kokkos::Tools::Experimental::get_new_variable_id."},
    {"have_tuning_tool", kp_tuning_have_tuning_tool, METH_NOARGS,
     "have_tuning_tool() -> bool: whether a request_output_values callback is set."},
    {NULL, NULL, 0, NULL}};

/* ---- registration ---------------------------------------------------------------------------- */

/* enum.IntEnum(name, [(member, i), ...], module="kokkos.tools"): new reference. */
static PyObject *kp_tuning_make_enum(PyObject *int_enum, const char *name, const char *const *members, int count) {
  PyObject *list = PyList_New(count), *args = NULL, *kwargs = NULL, *result = NULL;
  if (!list) return NULL;
  for (int i = 0; i < count; ++i) {
    PyObject *pair = Py_BuildValue("(si)", members[i], i);
    if (!pair) goto done;
    PyList_SET_ITEM(list, i, pair);
  }
  args = Py_BuildValue("(sO)", name, list);
  kwargs = Py_BuildValue("{ss}", "module", "kokkos.tools");
  if (args && kwargs) result = PyObject_Call(int_enum, args, kwargs);
done:
  Py_XDECREF(list);
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  return result;
}

/* collections.namedtuple(name, fields, defaults=..., module="kokkos.tools"). */
static PyObject *kp_tuning_make_tuple(PyObject *namedtuple, const char *name, const char *fields, PyObject *defaults) {
  PyObject *args = Py_BuildValue("(ss)", name, fields);
  PyObject *kwargs = defaults ? Py_BuildValue("{sOss}", "defaults", defaults, "module", "kokkos.tools")
                              : Py_BuildValue("{ss}", "module", "kokkos.tools");
  PyObject *result = NULL;
  if (args && kwargs) result = PyObject_Call(namedtuple, args, kwargs);
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  return result;
}

/* Kokkos' enumerations, the namedtuples and the types, each said once. */
static const struct {
  const char *name;
  const char *const *members;
  int count;
} kp_tuning_enums[KP_ENUM_COUNT] = {
    [KP_ENUM_VALUE_TYPE] = {"ValueType", kp_value_type_names, KP_TUNING_TYPE_COUNT},
    [KP_ENUM_CATEGORY] = {"StatisticalCategory", kp_category_names, KP_TUNING_CATEGORY_COUNT},
    [KP_ENUM_QUANTITY] = {"CandidateValueType", kp_quantity_names, KP_TUNING_QUANTITY_COUNT},
    [KP_ENUM_OPTIMIZATION_TYPE] = {"OptimizationType", kp_goal_names, 2},
};

static const struct {
  const char *name;
  const char *fields;
  int false_defaults; /* how many of the last fields default to False */
} kp_tuning_tuples[KP_TUPLE_COUNT] = {
    [KP_TUPLE_VALUE_RANGE] = {"ValueRange", "lower upper step open_lower open_upper", 2},
    [KP_TUPLE_OPTIMIZATION_GOAL] = {"OptimizationGoal", "type_id goal", 0},
};

static PyType_Spec kp_tuning_specs[KP_TYPE_COUNT] = {
    [KP_TYPE_VARIABLE_INFO] = KP_TOOLS_SPEC("VariableInfo", kp_variable_info,
                                            Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_GC, kp_variable_info_slots),
    [KP_TYPE_VARIABLE_VALUE] = KP_TOOLS_SPEC("VariableValue", kp_variable_value,
                                             Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_GC, kp_variable_value_slots),
};

/* Adds obj (stolen; NULL: making it failed) to sub as name and keeps it in
 * *slot (process-wide: the handlers need it); -1 with an exception. */
static int kp_tuning_add_object(PyObject *sub, const char *name, PyObject *obj, PyObject **slot) {
  if (!obj) return -1;
  if (PyModule_AddObjectRef(sub, name, obj) < 0) {
    Py_DECREF(obj);
    return -1;
  }
  Py_XSETREF(*slot, obj);
  return 0;
}

/* The enums and namedtuples of the rows above, added to sub; -1 on error. */
static int kp_tuning_add_values(PyObject *sub) {
  PyObject *enum_mod = PyImport_ImportModule("enum"), *collections = PyImport_ImportModule("collections");
  PyObject *int_enum = enum_mod ? PyObject_GetAttrString(enum_mod, "IntEnum") : NULL;
  PyObject *namedtuple = collections ? PyObject_GetAttrString(collections, "namedtuple") : NULL;
  int rc = int_enum && namedtuple ? 0 : -1;
  for (int i = 0; rc == 0 && i < KP_ENUM_COUNT; ++i)
    rc = kp_tuning_add_object(
        sub, kp_tuning_enums[i].name,
        kp_tuning_make_enum(int_enum, kp_tuning_enums[i].name, kp_tuning_enums[i].members, kp_tuning_enums[i].count),
        &kp_tuning_g.enums[i]);
  for (int i = 0; rc == 0 && i < KP_TUPLE_COUNT; ++i) {
    PyObject *defaults = NULL;
    if (kp_tuning_tuples[i].false_defaults > 0) {
      defaults = PyTuple_New(kp_tuning_tuples[i].false_defaults);
      for (int d = 0; defaults && d < kp_tuning_tuples[i].false_defaults; ++d)
        PyTuple_SET_ITEM(defaults, d, Py_NewRef(Py_False));
      if (!defaults) rc = -1;
    }
    if (rc == 0)
      rc = kp_tuning_add_object(
          sub, kp_tuning_tuples[i].name,
          kp_tuning_make_tuple(namedtuple, kp_tuning_tuples[i].name, kp_tuning_tuples[i].fields, defaults),
          &kp_tuning_g.tuples[i]);
    Py_XDECREF(defaults);
  }
  Py_XDECREF(enum_mod);
  Py_XDECREF(collections);
  Py_XDECREF(int_enum);
  Py_XDECREF(namedtuple);
  return rc;
}

int kp_tuning_add(PyObject *sub) {
  if (kp_tuning_add_values(sub) < 0) return -1;
  if (kp_tools_add_types(sub, kp_tuning_specs, KP_TYPE_COUNT, kp_tuning_g.types) < 0) return -1;
  if (PyModule_AddFunctions(sub, kp_tuning_methods) < 0) return -1;
  if (PyModule_AddObjectRef(sub, "KOKKOS_ENABLE_TUNING", kp_tuning_bridge_kokkos_enable_tuning() ? Py_True : Py_False) <
      0)
    return -1;
  kp_tuning_bridge_set_handlers(&kp_tuning_handler_table);
  return 0;
}
