/* dtype.c: the dtype table, made from the public header's rows (tables.h:
 * a dtype is one row there), each row's element reader and writer, and the
 * conversions from Python objects naming a dtype. */
#include "core.h"
#include "base.h"

#include <math.h>
#include <string.h>

/* ---- converting one element ------------------------------------------------- */

/* Each row of KOKKOS_PYTHON_DTYPE_ROWS gets a reader and a writer made by its
 * kind from its C type (KP_GET_<kind>, KP_SET_<kind>): a new dtype of a known
 * kind is its row alone. The helpers below are those the kinds share. */

static int reject(PyObject *obj, const char *what) {
  PyErr_Format(PyExc_TypeError, "cannot store a %.100s in a View of %s", Py_TYPE(obj)->tp_name, what);
  return -1;
}

/* Integer value of obj for a View of a size-byte integer type: ints and
 * objects with __index__ exactly, real numbers truncated toward zero (as
 * NumPy does); OverflowError outside the type's range. Sets the value in *s
 * (signed) or *u (unsigned). */
static int int_value(PyObject *obj, const char *what, int is_unsigned, size_t size, long long *s,
                     unsigned long long *u) {
  if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyComplex_Check(obj)) return reject(obj, what);
  PyObject *num = NULL;
  if (PyLong_Check(obj)) {
    num = Py_NewRef(obj);
  } else if (Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_index) {
    num = PyNumber_Index(obj);
  } else if (PyFloat_Check(obj) || (Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_float)) {
    double d = PyFloat_AsDouble(obj);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    if (!isfinite(d)) {
      PyErr_Format(PyExc_ValueError, "cannot store %R in a View of %s (not a finite number)", obj, what);
      return -1;
    }
    num = PyLong_FromDouble(d);
  } else {
    return reject(obj, what);
  }
  if (!num) return -1;
  int overflow = 0;
  if (is_unsigned) {
    int sign_overflow = 0;
    long long sv = PyLong_AsLongLongAndOverflow(num, &sign_overflow);
    if (sign_overflow < 0 || (sign_overflow == 0 && sv < 0))
      overflow = 1;
    else {
      *u = PyLong_AsUnsignedLongLong(num);
      if (*u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        overflow = 1;
      }
    }
  } else {
    *s = PyLong_AsLongLongAndOverflow(num, &overflow);
    if (*s == -1 && PyErr_Occurred()) {
      Py_DECREF(num);
      return -1;
    }
  }
  /* the type's range, from its size */
  const long long smax = (long long)(~0ULL >> (65 - 8 * size));
  if (is_unsigned ? *u > (~0ULL >> (64 - 8 * size)) : (*s > smax || *s < -smax - 1)) overflow = 1;
  if (overflow) {
    PyErr_Format(PyExc_OverflowError, "value %S is out of range for a View of %s", num, what);
    Py_DECREF(num);
    return -1;
  }
  Py_DECREF(num);
  return 0;
}

static int real_value(PyObject *obj, const char *what, double *out) {
  if (PyFloat_CheckExact(obj)) {
    *out = PyFloat_AS_DOUBLE(obj);
    return 0;
  }
  if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyComplex_Check(obj)) return reject(obj, what);
  PyNumberMethods *nb = Py_TYPE(obj)->tp_as_number;
  if (!nb || (!nb->nb_float && !nb->nb_index)) return reject(obj, what);
  *out = PyFloat_AsDouble(obj);
  return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

static int complex_value(PyObject *obj, const char *what, Py_complex *out) {
  if (PyUnicode_Check(obj) || PyBytes_Check(obj)) return reject(obj, what);
  PyNumberMethods *nb = Py_TYPE(obj)->tp_as_number;
  if (!PyComplex_Check(obj) && (!nb || (!nb->nb_float && !nb->nb_index)) && !PyObject_HasAttrString(obj, "__complex__"))
    return reject(obj, what);
  *out = PyComplex_AsCComplex(obj);
  return (out->real == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

static int bool_value(PyObject *obj, const char *what) {
  if (PyUnicode_Check(obj) || PyBytes_Check(obj)) return reject(obj, what);
  PyNumberMethods *nb = Py_TYPE(obj)->tp_as_number;
  if (!PyBool_Check(obj) && (!nb || (!nb->nb_bool && !nb->nb_index && !nb->nb_float))) return reject(obj, what);
  return PyObject_IsTrue(obj);
}

/* The smallest magnitude that rounds past binary16's largest finite value
 * (65504) under round-to-nearest-even: halfway to 2**16. NumPy stores
 * infinity from there on, where PyFloat_Pack2 raises OverflowError. */
#define KP_F16_OVERFLOW 65520.0

/* KP_GET_<kind>(id, T): get_<id>, which reads one element at p as a new
 * Python object. */
#define KP_GET_INT(id, T)                     \
  static PyObject *get_##id(const char *p) {  \
    T v;                                      \
    memcpy(&v, p, sizeof v);                  \
    return PyLong_FromLongLong((long long)v); \
  }
#define KP_GET_UINT(id, T)                                     \
  static PyObject *get_##id(const char *p) {                   \
    T v;                                                       \
    memcpy(&v, p, sizeof v);                                   \
    return PyLong_FromUnsignedLongLong((unsigned long long)v); \
  }
#define KP_GET_REAL(id, T)                   \
  static PyObject *get_##id(const char *p) { \
    T v;                                     \
    memcpy(&v, p, sizeof v);                 \
    return PyFloat_FromDouble((double)v);    \
  }
#define KP_GET_COMPLEX(id, T)                                 \
  static PyObject *get_##id(const char *p) {                  \
    T v[2];                                                   \
    memcpy(v, p, sizeof v);                                   \
    return PyComplex_FromDoubles((double)v[0], (double)v[1]); \
  }
#define KP_GET_BOOL(id, T) \
  static PyObject *get_##id(const char *p) { return PyBool_FromLong(*p != 0); }
/* binary16 converts through kp_pack_half / kp_unpack_half (compat.h). */
#define KP_GET_HALF(id, T)                          \
  static PyObject *get_##id(const char *p) {        \
    double v = kp_unpack_half(p);                   \
    if (v == -1.0 && PyErr_Occurred()) return NULL; \
    return PyFloat_FromDouble(v);                   \
  }

/* KP_SET_<kind>(id, T, name): set_<id>, which converts obj and stores it at
 * p; -1 with an exception on failure. */
/* Integers of either signedness: int_value checks the range. */
#define KP_SET_INTEGER(id, T, name, is_unsigned)                             \
  static int set_##id(char *p, PyObject *obj) {                              \
    long long s = 0;                                                         \
    unsigned long long u = 0;                                                \
    if (int_value(obj, name, is_unsigned, sizeof(T), &s, &u) < 0) return -1; \
    T v = is_unsigned ? (T)u : (T)s;                                         \
    memcpy(p, &v, sizeof v);                                                 \
    return 0;                                                                \
  }
#define KP_SET_INT(id, T, name) KP_SET_INTEGER(id, T, name, 0)
#define KP_SET_UINT(id, T, name) KP_SET_INTEGER(id, T, name, 1)
#define KP_SET_REAL(id, T, name)                  \
  static int set_##id(char *p, PyObject *obj) {   \
    double d = 0.0;                               \
    if (real_value(obj, name, &d) < 0) return -1; \
    T v = (T)d;                                   \
    memcpy(p, &v, sizeof v);                      \
    return 0;                                     \
  }
#define KP_SET_COMPLEX(id, T, name)                  \
  static int set_##id(char *p, PyObject *obj) {      \
    Py_complex c = {0.0, 0.0};                       \
    if (complex_value(obj, name, &c) < 0) return -1; \
    T v[2] = {(T)c.real, (T)c.imag};                 \
    memcpy(p, v, sizeof v);                          \
    return 0;                                        \
  }
#define KP_SET_BOOL(id, T, name)                \
  static int set_##id(char *p, PyObject *obj) { \
    int t = bool_value(obj, name);              \
    if (t < 0) return -1;                       \
    *p = (char)(t != 0);                        \
    return 0;                                   \
  }
#define KP_SET_HALF(id, T, name)                               \
  static int set_##id(char *p, PyObject *obj) {                \
    double d = 0.0;                                            \
    if (real_value(obj, name, &d) < 0) return -1;              \
    if (fabs(d) >= KP_F16_OVERFLOW) d = copysign(HUGE_VAL, d); \
    return kp_pack_half(d, p);                                 \
  }

#define KP_ACCESSORS(id, number, name, aliases, kind, T, format, typestr) \
  KP_GET_##kind(id, T) KP_SET_##kind(id, T, name)
KOKKOS_PYTHON_DTYPE_ROWS(KP_ACCESSORS)
#undef KP_ACCESSORS

/* ---- the table ---------------------------------------------------------------- */

/* What a row's kind gives: the core's kind, the number of C-type values in
 * an element, and DLPack's type code (kDLInt 0, kDLUInt 1, kDLFloat 2,
 * kDLComplex 5, kDLBool 6). */
#define KP_KIND_OF_INT KP_KIND_INT, 1, 0
#define KP_KIND_OF_UINT KP_KIND_UINT, 1, 1
#define KP_KIND_OF_REAL KP_KIND_FLOAT, 1, 2
#define KP_KIND_OF_HALF KP_KIND_FLOAT, 1, 2
#define KP_KIND_OF_COMPLEX KP_KIND_COMPLEX, 2, 5
#define KP_KIND_OF_BOOL KP_KIND_BOOL, 1, 6
#define KP_DTYPE_ENTRY(kind_, values, dlpack_code_, T, name_, aliases_, format_, typestr_, id) \
  {.name = name_,                                                                              \
   .aliases = {KP_LIST aliases_ NULL},                                                         \
   .kind = kind_,                                                                              \
   .itemsize = (Py_ssize_t)(values * sizeof(T)),                                               \
   .format = format_,                                                                          \
   .typestr = typestr_,                                                                        \
   .dlpack_code = dlpack_code_,                                                                \
   .dlpack_bits = (uint8_t)(8 * values * sizeof(T)),                                           \
   .get = get_##id,                                                                            \
   .set = set_##id}
#define KP_DTYPE_ENTRY_OF(...) KP_DTYPE_ENTRY(__VA_ARGS__)
#define KP_LIST(...) __VA_ARGS__
#define KP_DTYPE_ROW(id, number, name, aliases, kind, T, format, typestr) \
  [KP_DTYPE_##id] = KP_DTYPE_ENTRY_OF(KP_KIND_OF_##kind, T, name, aliases, format, typestr, id),

const kp_dtype kp_dtypes[KP_DTYPE_COUNT] = {KOKKOS_PYTHON_DTYPE_ROWS(KP_DTYPE_ROW)};

/* ---- lookups ------------------------------------------------------------------ */

static int dtype_by_kind(kp_dtype_kind kind, Py_ssize_t itemsize) {
  for (int i = 0; i < KP_DTYPE_COUNT; ++i)
    if (kp_dtypes[i].kind == kind && kp_dtypes[i].itemsize == itemsize) return i;
  return -1;
}

int kp_dtype_from_format(const char *f, Py_ssize_t itemsize) {
  if (!f) return KP_DTYPE_UINT8; /* PEP 3118: NULL means "B" */
  if (*f == '@' || *f == '=' || *f == '<')
    ++f;
  else if (*f == '>' || *f == '!')
    return -1; /* big-endian data */
  if (f[0] == 'Z' && (f[1] == 'f' || f[1] == 'd') && f[2] == 0)
    return f[1] == 'f' ? KP_DTYPE_COMPLEX64 : KP_DTYPE_COMPLEX128;
  if (!f[0] || f[1]) return -1;
  switch (f[0]) {
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n':
      return dtype_by_kind(KP_KIND_INT, itemsize);
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
    case 'N':
      return dtype_by_kind(KP_KIND_UINT, itemsize);
    case 'c':
      return KP_DTYPE_INT8;
    case 'e':
    case 'f':
    case 'd':
      return dtype_by_kind(KP_KIND_FLOAT, itemsize);
    case '?':
      return KP_DTYPE_BOOL;
    default:
      return -1;
  }
}

int kp_dtype_from_typestr(const char *t) {
  if (!t || !t[0]) return -1;
  const char *p = t;
  if (*p == '<' || *p == '|' || *p == '=')
    ++p;
  else if (*p == '>') {
    /* Big-endian is fine for single bytes only. */
    if (!(p[1] && p[2] == '1' && p[3] == 0)) return -1;
    ++p;
  }
  char kind = *p++;
  char *end = NULL;
  long size = strtol(p, &end, 10);
  if (end == p || *end) return -1;
  switch (kind) {
    case 'i':
      return dtype_by_kind(KP_KIND_INT, size);
    case 'u':
      return dtype_by_kind(KP_KIND_UINT, size);
    case 'f':
      return dtype_by_kind(KP_KIND_FLOAT, size);
    case 'c':
      return dtype_by_kind(KP_KIND_COMPLEX, size);
    case 'b':
      return size == 1 ? KP_DTYPE_BOOL : -1;
    default:
      return -1;
  }
}

static int dtype_from_name(const char *s) {
  for (int i = 0; i < KP_DTYPE_COUNT; ++i) {
    if (strcmp(s, kp_dtypes[i].name) == 0) return i;
    for (int a = 0; a < 4 && kp_dtypes[i].aliases[a]; ++a)
      if (strcmp(s, kp_dtypes[i].aliases[a]) == 0) return i;
  }
  int t = kp_dtype_from_typestr(s);
  if (t >= 0) return t;
  if (s[0] && !s[1]) {
    /* a one-letter struct format code: b h i l q B H I L Q e f d ? */
    static const char codes[] = "bhilqBHILQefd?";
    static const Py_ssize_t sizes[] = {1, 2, 4, (Py_ssize_t)sizeof(long), 8, 1, 2, 4, (Py_ssize_t)sizeof(long), 8, 2,
                                       4, 8, 1};
    const char *c = strchr(codes, s[0]);
    if (c) return kp_dtype_from_format(s, sizes[c - codes]);
  }
  if (strcmp(s, "complex") == 0) return KP_DTYPE_COMPLEX128;
  return -1;
}

int kp_dtype_from_object(PyObject *obj, const char *where) {
  if (PyBool_Check(obj)) goto bad;
  if (PyLong_Check(obj)) {
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v >= KP_DTYPE_COUNT) {
      PyErr_Format(PyExc_ValueError, "%s: dtype %ld is not a kokkos dtype (0..%d)", where, v, KP_DTYPE_COUNT - 1);
      return -1;
    }
    return (int)v;
  }
  if (PyUnicode_Check(obj)) {
    const char *s = PyUnicode_AsUTF8(obj);
    if (!s) return -1;
    /* The strings "float" and "int" mean float64 / int64 to NumPy but
     * float32 / int32 to the original package (kokkos.float, kokkos.int):
     * refused rather than guessed (issue 26). The attributes stay. */
    if (strcmp(s, "float") == 0 || strcmp(s, "int") == 0) {
      /* the original's (the dtype s is an alias of) and NumPy's (8 bytes of that kind) */
      const int seed = dtype_from_name(s), numpy = dtype_by_kind(kp_dtypes[seed].kind, 8);
      const char *o = kp_dtypes[seed].name, *n = kp_dtypes[numpy].name;
      PyErr_Format(PyExc_ValueError,
                   "%s: dtype '%s' is ambiguous: NumPy reads it as %s, pykokkos-base's kokkos.%s is %s; write '%s' "
                   "or '%s' (or kokkos.%s / kokkos.%s)",
                   where, s, n, s, o, n, o, n, o);
      return -1;
    }
    int d = dtype_from_name(s);
    if (d < 0)
      PyErr_Format(PyExc_ValueError, "%s: unknown dtype %R (use kokkos.float64, 'float64', numpy.float64, ...)", where,
                   obj);
    return d;
  }
  if (PyType_Check(obj)) {
    PyTypeObject *t = (PyTypeObject *)obj;
    if (t == &PyFloat_Type) return KP_DTYPE_FLOAT64;
    if (t == &PyLong_Type) return KP_DTYPE_INT64;
    if (t == &PyBool_Type) return KP_DTYPE_BOOL;
    if (t == &PyComplex_Type) return KP_DTYPE_COMPLEX128;
  }
  {
    /* numpy dtypes and scalar types, or anything with .dtype */
    PyObject *dt = NULL;
    if (PyType_Check(obj)) {
      PyObject *modname = PyObject_GetAttrString(obj, "__module__");
      if (!modname) PyErr_Clear();
      int is_numpy = modname && PyUnicode_Check(modname) && PyUnicode_CompareWithASCIIString(modname, "numpy") == 0;
      Py_XDECREF(modname);
      if (is_numpy) {
        PyObject *np = PyImport_ImportModule("numpy");
        if (!np) return -1;
        dt = PyObject_CallMethod(np, "dtype", "O", obj);
        Py_DECREF(np);
        if (!dt) return -1;
      }
    } else if (PyObject_HasAttrString(obj, "itemsize") && PyObject_HasAttrString(obj, "str")) {
      dt = Py_NewRef(obj);
    } else if (PyObject_HasAttrString(obj, "dtype")) {
      dt = PyObject_GetAttrString(obj, "dtype");
      if (!dt) return -1;
      if (dt == obj) {
        Py_DECREF(dt);
        goto bad;
      }
      int r = kp_dtype_from_object(dt, where);
      Py_DECREF(dt);
      return r;
    }
    if (dt) {
      PyObject *str = PyObject_GetAttrString(dt, "str");
      Py_DECREF(dt);
      if (!str) return -1;
      int d = -1;
      if (PyUnicode_Check(str)) {
        const char *s = PyUnicode_AsUTF8(str);
        d = s ? kp_dtype_from_typestr(s) : -1;
      }
      if (d < 0 && !PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "%s: dtype %S is not supported by Kokkos Views (supported: %s)", where, str,
                     kp_dtype_supported());
      Py_DECREF(str);
      return d;
    }
  }
bad:
  PyErr_Format(PyExc_TypeError,
               "%s: cannot interpret %R as a dtype (use kokkos.float64, 'float64', numpy.float64, ...)", where, obj);
  return -1;
}

const char *kp_dtype_supported(void) {
  /* Built once from the table: kinds in kp_dtype_kind order, each by size. */
  static char text[16 * KP_DTYPE_COUNT];
  if (text[0]) return text;
  size_t n = 0;
  for (int kind = KP_KIND_BOOL; kind <= KP_KIND_COMPLEX; ++kind)
    for (Py_ssize_t size = 1; size <= 16; size *= 2)
      for (int i = 0; i < KP_DTYPE_COUNT; ++i)
        if ((int)kp_dtypes[i].kind == kind && kp_dtypes[i].itemsize == size)
          n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", n ? ", " : "", kp_dtypes[i].name);
  return text;
}
