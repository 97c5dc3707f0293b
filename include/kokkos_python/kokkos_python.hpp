// kokkos_python.hpp: Kokkos::View and Kokkos::DynRankView to Python and back.
//
//   PyObject *obj = kokkos_python::to_python(view);          // new reference
//   auto v = kokkos_python::from_python<Kokkos::View<double**>>(obj);
//
// Both directions share memory, never copy it, and share ownership:
//
// - to_python(view) returns a kokkos.View (a kokkos.DynRankView for a
//   Kokkos::DynRankView) over the same memory. For a managed View it hands a
//   heap copy of the Kokkos::View to Python; the allocation lives while
//   either side holds it. Kokkos-owned memory must go before Kokkos
//   finalizes, so at Kokkos::finalize (Python's or the application's) the
//   heap copy is dropped and the Python View reads as released.
// - from_python<ViewT>(obj) checks dtype, rank, layout (or strides), memory
//   space, const-ness, static extents and alignment against ViewT and
//   returns a ViewT of the same memory. The returned View is managed: its
//   reference count keeps the Python owner of the memory (a kokkos
//   Allocation: Kokkos memory, a NumPy array, ...) alive for as long as any
//   copy of the View lives in C++. A View that came from C++ with exactly
//   this type comes back as a copy of the original Kokkos::View.
//
// The user's module and the kokkos package must use one Kokkos library:
// import() compares the Kokkos runtime both sides see and raises ImportError
// otherwise. Every function needs the GIL. Errors are Python exceptions:
// functions returning PyObject* / bool / int return nullptr / false / -1
// with the exception set; from_python<ViewT>(obj) throws python_error.
//
// Kokkos 3.4 to develop (every version switch is in compat.hpp). Memory spaces without a kokkos counterpart (scratch
// spaces, AnonymousSpace) and element types without a kokkos dtype are
// compile-time errors.
#ifndef KOKKOS_PYTHON_HPP
#define KOKKOS_PYTHON_HPP

#include "compat.hpp"
#include "kokkos_python.h"

#include <Kokkos_Core.hpp>
#include <Kokkos_DynRankView.hpp>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

// Version of the C++ layer; part of every tag that crosses module lines.
#define KOKKOS_PYTHON_CXX_VERSION 1

namespace kokkos_python {

// ---- errors ---------------------------------------------------------------

// A Python exception taken out of the interpreter's error indicator, to
// travel through C++ as an exception. restore() puts it back (so a CPython
// function can `return nullptr`); what() is its message.
class python_error : public std::exception {
 public:
  // Takes the current Python exception (the GIL must be held).
  python_error() {
    PyErr_Fetch(&m_type, &m_value, &m_traceback);
    PyErr_NormalizeException(&m_type, &m_value, &m_traceback);
    if (m_value) {
      PyObject *s = PyObject_Str(m_value);
      const char *c = s ? PyUnicode_AsUTF8(s) : nullptr;
      m_what = c ? c : "Python error";
      Py_XDECREF(s);
      PyErr_Clear();
    } else {
      m_what = "unknown Python error";
    }
  }
  python_error(const python_error &arg_other)
      : m_type(arg_other.m_type),
        m_value(arg_other.m_value),
        m_traceback(arg_other.m_traceback),
        m_what(arg_other.m_what) {
    Py_XINCREF(m_type);
    Py_XINCREF(m_value);
    Py_XINCREF(m_traceback);
  }
  python_error &operator=(const python_error &) = delete;
  ~python_error() override {
    if (!m_type && !m_value && !m_traceback) return;
    if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(m_type);
    Py_XDECREF(m_value);
    Py_XDECREF(m_traceback);
    PyGILState_Release(g);
  }
  // Sets the Python error indicator to this exception (again); call once.
  void restore() {
    PyErr_Restore(m_type, m_value, m_traceback);
    m_type = m_value = m_traceback = nullptr;
  }
  // The exception type (borrowed; nullptr after restore()).
  PyObject *type() const noexcept { return m_type; }
  const char *what() const noexcept override { return m_what.c_str(); }

 private:
  PyObject *m_type = nullptr;
  PyObject *m_value = nullptr;
  PyObject *m_traceback = nullptr;
  std::string m_what;
};

// ---- the C API table ------------------------------------------------------

namespace detail {
inline const kokkos_python_api *&api_slot() noexcept {
  static const kokkos_python_api *s_api = nullptr;
  return s_api;
}
// The exception (a new reference) that initializing Kokkos raised when the
// module was loaded (caster.hpp, the pybind11 and nanobind adapters), for
// import() to raise; nullptr when there was none.
inline PyObject *&load_init_error() noexcept {
  static PyObject *s_error = nullptr;
  return s_error;
}
}  // namespace detail

// Imports the kokkos package, fetches its C API and checks that this module
// and the package share one Kokkos library. Returns 0, or -1 with
// ImportError. Cheap after the first success; to_python / from_python call
// it, and a module may call it in its init function to fail early.
// module_name names the caller in the error message (may be nullptr).
inline int import(const char *module_name = nullptr) noexcept {
  if (PyObject *error = detail::load_init_error()) {
    // Raised once: ImportError, caused by what kokkos.initialize() raised.
    detail::load_init_error() = nullptr;
    PyErr_Format(PyExc_ImportError,
                 "%s: Kokkos could not be initialized when the module was loaded: %S (a module on the kokkos_python "
                 "pybind11 or nanobind header initializes Kokkos at import; call kokkos.initialize() before "
                 "importing it to choose the settings)",
                 module_name ? module_name : "this module", error);
    PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value) {
      PyException_SetContext(value, Py_NewRef(error));
      PyException_SetCause(value, error);  // steals
    } else {
      Py_DECREF(error);
    }
    PyErr_Restore(type, value, tb);
    return -1;
  }
  if (detail::api_slot()) return 0;
  auto *api = static_cast<const kokkos_python_api *>(PyCapsule_Import(KOKKOS_PYTHON_API_CAPSULE, 0));
  if (!api) return -1;
  if (api->version < KOKKOS_PYTHON_API_VERSION) {
    PyErr_Format(PyExc_ImportError,
                 "kokkos._core provides C API version %u, but %s was built against version %d: upgrade the "
                 "kokkos package",
                 static_cast<unsigned>(api->version), module_name ? module_name : "this module",
                 KOKKOS_PYTHON_API_VERSION);
    return -1;
  }
  if (api->check_runtime(reinterpret_cast<const void *>(&Kokkos::is_initialized), KOKKOS_VERSION, module_name) < 0)
    return -1;
  detail::api_slot() = api;
  return 0;
}

// The table, or nullptr before a successful import().
inline const kokkos_python_api *api() noexcept { return detail::api_slot(); }

// True if obj is a kokkos.View (a DynRankView included). Never fails.
inline bool is_view(PyObject *obj) noexcept {
  if (import() < 0) {
    PyErr_Clear();
    return false;
  }
  return obj && api()->is_view(obj);
}

namespace detail {

// ---- compile-time facts about View types ------------------------------------

template <class T>
struct dependent_false : std::false_type {};

// ---- the C++ types of the rows of tables.h -------------------------------------

// An element type T is of a dtype row when it matches the row's kind and C
// type (tables.h says what each kind takes): element_of_<kind><T, C>.
template <class T, class C>
struct element_of_INT : std::integral_constant<bool, std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                                                         std::is_signed<T>::value && sizeof(T) == sizeof(C)> {};
template <class T, class C>
struct element_of_UINT : std::integral_constant<bool, std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                                                          std::is_unsigned<T>::value && sizeof(T) == sizeof(C)> {};
template <class T, class C>
struct element_of_REAL : std::is_same<T, C> {};
template <class T, class C>
struct element_of_COMPLEX : std::integral_constant<bool, std::is_same<T, Kokkos::complex<C>>::value ||
                                                             std::is_same<T, std::complex<C>>::value> {};
template <class T, class C>
struct element_of_BOOL : std::is_same<T, bool> {};
// Half precision: every 16-bit binary16 type the toolchain has.
// Kokkos::Experimental::half_t is 16 bits wide only where a backend
// supplies one (CUDA, HIP, SYCL); elsewhere Kokkos defines it as float
// (KOKKOS_HALF_T_IS_FLOAT, Kokkos 3.4 to 4.x), and it is float32 above. The
// compiler's _Float16 (GCC 12+ and Clang on x86-64 and AArch64; C++23's
// std::float16_t) counts too, except under CUDA's compiler, whose front end
// does not know it.
//
// KOKKOS_PYTHON_FLOAT16_TYPE names the one to use in portable code (half_t
// where it is 16 bits, else _Float16); it is undefined where neither exists.
template <class T, class C>
struct element_of_HALF : std::false_type {};
#if defined(KOKKOS_HALF_T_IS_FLOAT) && !KOKKOS_HALF_T_IS_FLOAT
static_assert(sizeof(Kokkos::Experimental::half_t) == 2, "kokkos_python: Kokkos' half_t is not 16 bits wide");
template <class C>
struct element_of_HALF<Kokkos::Experimental::half_t, C> : std::true_type {};
#define KOKKOS_PYTHON_FLOAT16_TYPE Kokkos::Experimental::half_t
#endif
#if defined(__FLT16_MANT_DIG__) && !defined(__CUDACC__)
template <class C>
struct element_of_HALF<_Float16, C> : std::true_type {};
#if !defined(KOKKOS_PYTHON_FLOAT16_TYPE)
#define KOKKOS_PYTHON_FLOAT16_TYPE _Float16
#endif
#endif

// The number of the first dtype row element type T is of, or -1.
template <class T>
constexpr int dtype_number() {
#define KOKKOS_PYTHON_DETAIL_ROW(ID, VALUE, NAME, ALIASES, KIND, C, ...) \
  if (element_of_##KIND<T, C>::value) return VALUE;
  KOKKOS_PYTHON_DTYPE_ROWS(KOKKOS_PYTHON_DETAIL_ROW)
#undef KOKKOS_PYTHON_DETAIL_ROW
  return -1;
}
template <class T>
struct dtype_of {
  static constexpr int value = dtype_number<T>();
};

// The memory space of a Kokkos memory space type (compat.hpp's table of the
// spaces this Kokkos has), or -1.
template <class Space>
struct space_of {
  static constexpr int value = -1;
};
#define KOKKOS_PYTHON_DETAIL_SPACE(ID, TYPE)                 \
  template <>                                                \
  struct space_of<TYPE> {                                    \
    static constexpr int value = KOKKOS_PYTHON_##ID##_SPACE; \
  };
KOKKOS_PYTHON_COMPAT_SPACE_TYPES(KOKKOS_PYTHON_DETAIL_SPACE)
#undef KOKKOS_PYTHON_DETAIL_SPACE

// The layout of a Kokkos layout type, or -1.
template <class Layout>
struct layout_of {
  static constexpr int value = -1;
};
#define KOKKOS_PYTHON_DETAIL_LAYOUT(TYPE, VALUE) \
  template <>                                    \
  struct layout_of<TYPE> {                       \
    static constexpr int value = VALUE;          \
  };
KOKKOS_PYTHON_DETAIL_LAYOUT(Kokkos::LayoutRight, KOKKOS_PYTHON_LAYOUT_RIGHT)
KOKKOS_PYTHON_DETAIL_LAYOUT(Kokkos::LayoutLeft, KOKKOS_PYTHON_LAYOUT_LEFT)
KOKKOS_PYTHON_DETAIL_LAYOUT(Kokkos::LayoutStride, KOKKOS_PYTHON_LAYOUT_STRIDE)
#undef KOKKOS_PYTHON_DETAIL_LAYOUT

template <class Traits>
constexpr uint32_t trait_flags() {
  return (Traits::is_unmanaged ? uint32_t(KOKKOS_PYTHON_UNMANAGED) : 0u) |
         (Traits::is_random_access ? uint32_t(KOKKOS_PYTHON_RANDOM_ACCESS) : 0u) |
         (Traits::is_atomic ? uint32_t(KOKKOS_PYTHON_ATOMIC) : 0u) |
         (Traits::is_restrict ? uint32_t(KOKKOS_PYTHON_RESTRICT) : 0u) |
         (Traits::is_aligned ? uint32_t(KOKKOS_PYTHON_ALIGNED) : 0u);
}

template <class T>
struct is_view_type : std::false_type {};
template <class D, class... P>
struct is_view_type<Kokkos::View<D, P...>> : std::true_type {};
template <class D, class... P>
struct is_view_type<Kokkos::DynRankView<D, P...>> : std::true_type {};

// What kokkos_python needs to know about a View type.
template <class ViewT>
struct view_info {
  static_assert(is_view_type<ViewT>::value, "kokkos_python converts Kokkos::View and Kokkos::DynRankView only");
  static constexpr bool dynamic = Kokkos::is_dyn_rank_view<ViewT>::value;
  using value_type = typename ViewT::value_type;
  using element_type = typename ViewT::non_const_value_type;
  using array_layout = typename ViewT::array_layout;
  using memory_space = typename ViewT::memory_space;
  using memory_traits = typename ViewT::memory_traits;
  using pointer_type = typename ViewT::pointer_type;
  static constexpr bool is_const = std::is_const<value_type>::value;
  static constexpr int dtype = dtype_of<element_type>::value;
  static constexpr int space = space_of<memory_space>::value;
  static constexpr int layout = layout_of<array_layout>::value;
  static constexpr uint32_t traits = trait_flags<memory_traits>();
  static_assert(dtype >= 0,
                "kokkos_python: this View's element type has no kokkos dtype (use bool, int8..int64, uint8..uint64, "
                "Kokkos::Experimental::half_t, _Float16, float, double, Kokkos::complex<float> or "
                "Kokkos::complex<double>)");
  static_assert(space >= 0,
                "kokkos_python: this View's memory space has no kokkos counterpart (scratch and anonymous spaces "
                "cannot go to Python)");
  static_assert(layout >= 0, "kokkos_python: only LayoutRight, LayoutLeft and LayoutStride Views go to Python");
};

// Rank known at compile time (View) or its limit (DynRankView: 7).
template <class ViewT, bool Dynamic = Kokkos::is_dyn_rank_view<ViewT>::value>
struct static_rank {
  static constexpr int value = static_cast<int>(ViewT::traits::rank);
  static constexpr int dynamic_extents = static_cast<int>(ViewT::traits::rank_dynamic);
};
template <class ViewT>
struct static_rank<ViewT, true> {
  static constexpr int value = KOKKOS_PYTHON_MAX_DYN_RANK;
  static constexpr int dynamic_extents = KOKKOS_PYTHON_MAX_DYN_RANK;
};

// Tags choosing between the View and the DynRankView forms of a function
// (these headers compile as C++14, without if constexpr).
using view_tag = std::false_type;
using dyn_rank_view_tag = std::true_type;
template <class ViewT>
using kind_tag = std::integral_constant<bool, view_info<ViewT>::dynamic>;

template <class ViewT>
int rank_of(const ViewT &, view_tag) {
  return static_rank<ViewT>::value;
}
template <class ViewT>
int rank_of(const ViewT &arg_view, dyn_rank_view_tag) {
  return static_cast<int>(arg_view.rank());
}
template <class ViewT>
int rank_of(const ViewT &arg_view) {
  return rank_of(arg_view, kind_tag<ViewT>{});
}

// The View underneath a DynRankView (it holds the tracker).
template <class ViewT>
const ViewT &underlying(const ViewT &arg_view, view_tag) {
  return arg_view;
}
template <class ViewT>
auto underlying(const ViewT &arg_view, dyn_rank_view_tag) -> decltype(arg_view.ConstDownCast()) {
  return arg_view.ConstDownCast();
}
template <class ViewT>
auto underlying(const ViewT &arg_view) -> decltype(underlying(arg_view, kind_tag<ViewT>{})) {
  return underlying(arg_view, kind_tag<ViewT>{});
}

// ---- names ---------------------------------------------------------------------

// The names of the rows of tables.h, the one place they are spelled: the
// messages below and the pybind11 / nanobind signatures (caster.hpp) read
// them, and tests/test_cxx.py checks them against kokkos' own.
#define KOKKOS_PYTHON_DETAIL_CASE(ID, VALUE, NAME, ...) \
  case VALUE:                                           \
    return NAME;
inline const char *dtype_name(int arg_dtype) {
  switch (arg_dtype) { KOKKOS_PYTHON_DTYPE_ROWS(KOKKOS_PYTHON_DETAIL_CASE) }
  return "?";
}
inline const char *space_name(int arg_space) {
  switch (arg_space) { KOKKOS_PYTHON_SPACE_ROWS(KOKKOS_PYTHON_DETAIL_CASE) }
  return "?";
}
inline const char *layout_name(int arg_layout) {
  switch (arg_layout) { KOKKOS_PYTHON_LAYOUT_ROWS(KOKKOS_PYTHON_DETAIL_CASE) }
  return "?";
}
#undef KOKKOS_PYTHON_DETAIL_CASE

// The "**[3]" of a View's data type; nothing for a DynRankView.
template <class ViewT>
void append_extents(std::string &arg_text, view_tag) {
  for (int r = 0; r < static_rank<ViewT>::value; ++r) {
    if (r < static_rank<ViewT>::dynamic_extents)
      arg_text += "*";
    else
      arg_text += "[" + std::to_string(ViewT::static_extent(static_cast<unsigned>(r))) + "]";
  }
}
template <class ViewT>
void append_extents(std::string &, dyn_rank_view_tag) {}

// "Kokkos::View<const float64**, LayoutRight, HostSpace, RandomAccess>"
template <class ViewT>
std::string type_name() {
  using info = view_info<ViewT>;
  std::string s = info::dynamic ? "Kokkos::DynRankView<" : "Kokkos::View<";
  if (info::is_const) s += "const ";
  s += dtype_name(info::dtype);
  append_extents<ViewT>(s, kind_tag<ViewT>{});
  s += ", ";
  s += layout_name(info::layout);
  s += ", ";
  s += space_name(info::space);
#define KOKKOS_PYTHON_DETAIL_TRAIT(ID, FLAG, NAME) \
  if (info::traits & (FLAG)) {                     \
    s += ", ";                                     \
    s += NAME;                                     \
  }
  KOKKOS_PYTHON_TRAIT_ROWS(KOKKOS_PYTHON_DETAIL_TRAIT)
#undef KOKKOS_PYTHON_DETAIL_TRAIT
  s += ">";
  return s;
}

// ---- C++ -> Python ------------------------------------------------------------------

// Describes arg_view; arg_label must outlive arg_desc's use. Extents and
// strides past the rank are left as they were: nobody reads them (and
// clearing the whole description, a `rep stos` of 152 bytes, was the
// costliest step of handing a View over).
template <class ViewT>
void describe(const ViewT &arg_view, const std::string &arg_label, kokkos_python_view_desc &arg_desc) {
  using info = view_info<ViewT>;
  arg_desc.reserved = 0;
  const int rank = rank_of(arg_view);
  size_t strides[KOKKOS_PYTHON_MAX_RANK + 1] = {};
  arg_view.stride(strides);
  arg_desc.data = const_cast<void *>(static_cast<const void *>(arg_view.data()));
  arg_desc.rank = rank;
  arg_desc.dtype = info::dtype;
  arg_desc.space = info::space;
  arg_desc.layout = info::layout;
  arg_desc.traits = info::traits;
  arg_desc.readonly = info::is_const ? 1 : 0;
  arg_desc.dynamic = info::dynamic ? 1 : 0;
  for (int r = 0; r < rank; ++r) {
    arg_desc.extents[r] = static_cast<int64_t>(arg_view.extent(static_cast<unsigned>(r)));
    arg_desc.strides[r] = static_cast<int64_t>(strides[r]);
  }
  arg_desc.label = arg_label.c_str();
}

// What a Python View over a C++ View's memory keeps: a share of the View's
// reference count (its allocation tracker), built inside the Python View's
// owner through the C API's view_from_inline, so handing a View over
// allocates nothing besides the Python objects. Every module in the process
// shares one Kokkos library (import() checks it), so the tracker means the
// same to all of them and the tag names no View type: from_python in any
// module sees a View of this owner as memory of that Kokkos allocation and
// returns a View tracked by its record (the original Kokkos::View, for the
// View that went over; a subview of it, for a Python subview).
struct tracker_context {
  using tracker = Kokkos::Impl::SharedAllocationTracker;
  static const char *tag() noexcept { return "kokkos_python::SharedAllocationTracker"; }
  static void construct(void *arg_storage, const void *arg_src) noexcept {
    new (arg_storage) tracker(*static_cast<const tracker *>(arg_src));
  }
  static void destroy(void *arg_storage) noexcept { static_cast<tracker *>(arg_storage)->~tracker(); }
};

// The heap copy of a Kokkos::View that a Python View owned before the C API
// had view_from_inline (modules built with C++ layer version 1). Its tag
// names the exact View type; from_python still recognizes the Views such
// modules hand over and returns the original View.
template <class ViewT, int Version = KOKKOS_PYTHON_CXX_VERSION>
struct view_holder {
  ViewT m_view;
  explicit view_holder(const ViewT &arg_view) : m_view(arg_view) {}
  static const char *tag() noexcept { return typeid(view_holder).name(); }
  static void release(void *arg_ctx) noexcept { delete static_cast<view_holder *>(arg_ctx); }
};

inline bool same_description(const kokkos_python_view_desc &arg_a, const kokkos_python_view_desc &arg_b) {
  if (arg_a.data != arg_b.data || arg_a.rank != arg_b.rank || arg_a.dtype != arg_b.dtype ||
      arg_a.space != arg_b.space || arg_a.layout != arg_b.layout || arg_a.traits != arg_b.traits ||
      arg_a.readonly != arg_b.readonly || arg_a.dynamic != arg_b.dynamic)
    return false;
  for (int r = 0; r < arg_a.rank; ++r)
    if (arg_a.extents[r] != arg_b.extents[r] || (arg_a.extents[r] > 1 && arg_a.strides[r] != arg_b.strides[r]))
      return false;
  return true;
}

// The Kokkos allocation record behind a View that wraps Python memory:
// while any C++ View references it, it holds a reference to the Python View
// it came from (and so to the memory's owner). Kokkos calls deallocate when
// the last C++ View referencing it goes. The version parameter keeps records
// of different header versions apart.
template <int Version>
class python_record_t final : public Kokkos::Impl::SharedAllocationRecord<void, void> {
  using base = Kokkos::Impl::SharedAllocationRecord<void, void>;
  using header = Kokkos::Impl::SharedAllocationHeader;

 public:
  // Steals arg_view (a new reference to the kokkos.View described by arg_desc).
  python_record_t(PyObject *arg_view, const kokkos_python_view_desc &arg_desc, const std::string &arg_label)
      : base(
#if defined(KOKKOS_ENABLE_DEBUG)
            &debug_root(),
#endif
            reinterpret_cast<header *>(m_header), sizeof(header),
            &python_record_t::deallocate KOKKOS_PYTHON_COMPAT_RECORD_LABEL(arg_label)),
        m_view(arg_view),
        m_desc(arg_desc),
        m_label(arg_label) {
    m_desc.label = nullptr;  // borrowed from the View; m_label holds it
    // The header Kokkos reads labels from: the record, then the label.
    base *self = this;
    std::memcpy(m_header, &self, sizeof self);
    const size_t room = sizeof(header) - sizeof self - 1;
    const size_t n = arg_label.size() < room ? arg_label.size() : room;
    std::memcpy(m_header + sizeof self, arg_label.data(), n);
    m_header[sizeof self + n] = 0;
  }
  ~python_record_t() override {
    if (!m_view || !Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
    if (PyGILState_Check()) {
      Py_DECREF(m_view);
      return;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(m_view);
    PyGILState_Release(g);
  }
  std::string get_label() const override { return m_label; }
  // The Python View this record came from (borrowed).
  PyObject *view() const noexcept { return m_view; }
  // Its description (label: nullptr).
  const kokkos_python_view_desc &description() const noexcept { return m_desc; }
  // The label as Python knows it.
  const std::string &label() const noexcept { return m_label; }

  // The record behind arg_view when it is one of ours (made by this
  // module), else nullptr. Recognized by its deallocation function, which
  // is cheaper than a dynamic_cast on every call.
  template <class ViewT>
  static const python_record_t *of(const ViewT &arg_view) noexcept {
    const base *rec = underlying(arg_view).impl_track().template get_record<void>();
    if (!rec || rec->*(&python_record_t::m_dealloc) != &python_record_t::deallocate) return nullptr;
    return static_cast<const python_record_t *>(rec);
  }

 private:
  static void deallocate(base *arg_record) { delete static_cast<python_record_t *>(arg_record); }
#if defined(KOKKOS_ENABLE_DEBUG)
  static base &debug_root() {
    static base s_root;
    return s_root;
  }
#endif
  alignas(alignof(void *)) unsigned char m_header[sizeof(header)] = {};
  PyObject *m_view;
  kokkos_python_view_desc m_desc;
  std::string m_label;
};
using python_record = python_record_t<KOKKOS_PYTHON_CXX_VERSION>;

template <class ViewT>
bool is_managed(const ViewT &arg_view) noexcept {
  return underlying(arg_view).impl_track().template get_record<void>() != nullptr;
}

// ---- Python -> C++ ----------------------------------------------------------------

template <class Layout>
void set_stride(Layout &, int, size_t) {}  // LayoutRight / LayoutLeft: implied by the extents
inline void set_stride(Kokkos::LayoutStride &arg_layout, int arg_r, size_t arg_stride) {
  arg_layout.stride[arg_r] = arg_stride;
}

template <class Layout>
Layout make_layout(const kokkos_python_view_desc &arg_desc) {
  Layout layout;
  for (int r = 0; r < KOKKOS_PYTHON_MAX_RANK; ++r) {
    // Extents beyond the rank are KOKKOS_INVALID_INDEX: DynRankView deduces
    // its rank from them (Kokkos 3.x defaults them to 0, 4.x to invalid).
    const bool used = r < arg_desc.rank;
    layout.dimension[r] = used ? static_cast<size_t>(arg_desc.extents[r]) : KOKKOS_INVALID_INDEX;
    set_stride(layout, r, used ? static_cast<size_t>(arg_desc.strides[r]) : 0);
  }
  return layout;
}

// Whether the extents a View type fixes at compile time (View<double*[3]>)
// match arg_desc's; sets ValueError naming want when not.
template <class ViewT, class Want>
bool check_static_extents(const kokkos_python_view_desc &arg_desc, const char *arg_label, Want &arg_want, view_tag) {
  for (int r = static_rank<ViewT>::dynamic_extents; r < static_rank<ViewT>::value; ++r) {
    const auto n = static_cast<int64_t>(ViewT::static_extent(static_cast<unsigned>(r)));
    if (arg_desc.extents[r] != n) {
      PyErr_Format(PyExc_ValueError,
                   "kokkos_python::from_python: View '%s' has extent %lld in dimension %d, but %s fixes it to %lld",
                   arg_label, static_cast<long long>(arg_desc.extents[r]), r, arg_want.c_str(),
                   static_cast<long long>(n));
      return false;
    }
  }
  return true;
}
template <class ViewT, class Want>
bool check_static_extents(const kokkos_python_view_desc &, const char *, Want &, dyn_rank_view_tag) {
  return true;
}

inline bool strides_are(const kokkos_python_view_desc &arg_desc, int arg_layout) {
  int64_t expect = 1;
  for (int i = 0; i < arg_desc.rank; ++i)
    if (arg_desc.extents[i] == 0) return true;  // empty: any strides describe it
  for (int i = 0; i < arg_desc.rank; ++i) {
    const int r = arg_layout == KOKKOS_PYTHON_LAYOUT_LEFT ? i : arg_desc.rank - 1 - i;
    if (arg_desc.extents[r] != 1 && arg_desc.strides[r] != expect) return false;
    expect *= arg_desc.extents[r];
  }
  return true;
}

inline std::string strides_text(const kokkos_python_view_desc &arg_desc) {
  std::string s = "(";
  for (int r = 0; r < arg_desc.rank; ++r) {
    if (r) s += ", ";
    s += std::to_string(arg_desc.strides[r]);
  }
  return s + (arg_desc.rank == 1 ? ",)" : ")");
}

// Sets a Python exception and returns false when the View described by
// arg_desc cannot be seen as a ViewT.
template <class ViewT>
bool check(const kokkos_python_view_desc &arg_desc) {
  using info = view_info<ViewT>;
  // Built only for a message: this runs on every call of a bound function.
  struct type_text {
    std::string m_text;
    const char *c_str() {
      if (m_text.empty()) m_text = type_name<ViewT>();
      return m_text.c_str();
    }
  } want;
  const char *label = arg_desc.label ? arg_desc.label : "";
  if (arg_desc.dtype != info::dtype) {
    PyErr_Format(PyExc_TypeError, "kokkos_python::from_python: View '%s' holds %s, but %s needs %s", label,
                 dtype_name(arg_desc.dtype), want.c_str(), dtype_name(info::dtype));
    return false;
  }
  if (info::dynamic) {
    if (arg_desc.rank > KOKKOS_PYTHON_MAX_DYN_RANK) {
      PyErr_Format(PyExc_TypeError,
                   "kokkos_python::from_python: View '%s' has rank %d, but a Kokkos::DynRankView holds rank 0..%d",
                   label, static_cast<int>(arg_desc.rank), KOKKOS_PYTHON_MAX_DYN_RANK);
      return false;
    }
  } else if (arg_desc.rank != static_rank<ViewT>::value) {
    PyErr_Format(PyExc_TypeError, "kokkos_python::from_python: View '%s' has rank %d, but %s has rank %d", label,
                 static_cast<int>(arg_desc.rank), want.c_str(), static_rank<ViewT>::value);
    return false;
  }
  if (arg_desc.space != info::space) {
    PyErr_Format(PyExc_TypeError,
                 "kokkos_python::from_python: View '%s' lives in %s, but %s needs %s (copy it with "
                 "kokkos.deep_copy into a View of that space)",
                 label, space_name(arg_desc.space), want.c_str(), space_name(info::space));
    return false;
  }
  if (arg_desc.readonly && !info::is_const) {
    PyErr_Format(PyExc_TypeError,
                 "kokkos_python::from_python: View '%s' is read-only, but %s would write to it; take a View of "
                 "const %s or pass writable memory",
                 label, want.c_str(), dtype_name(info::dtype));
    return false;
  }
  if (info::layout == KOKKOS_PYTHON_LAYOUT_STRIDE) {
    for (int r = 0; r < arg_desc.rank; ++r)
      if (arg_desc.strides[r] < 0) {
        PyErr_Format(PyExc_TypeError,
                     "kokkos_python::from_python: View '%s' has a negative stride %s; Kokkos::LayoutStride needs "
                     "strides >= 0 (copy it first)",
                     label, strides_text(arg_desc).c_str());
        return false;
      }
  } else if (!strides_are(arg_desc, info::layout)) {
    PyErr_Format(PyExc_TypeError,
                 "kokkos_python::from_python: View '%s' has strides %s (in elements), which are not contiguous "
                 "%s; %s needs them: take Kokkos::LayoutStride or pass a contiguous copy",
                 label, strides_text(arg_desc).c_str(), layout_name(info::layout), want.c_str());
    return false;
  }
  if (!check_static_extents<ViewT>(arg_desc, label, want, kind_tag<ViewT>{})) return false;
  const auto address = reinterpret_cast<uintptr_t>(arg_desc.data);
  if (address % alignof(typename info::element_type) != 0) {
    PyErr_Format(PyExc_ValueError,
                 "kokkos_python::from_python: View '%s' data at %p is not aligned for %s (%zu bytes); pass an "
                 "aligned copy",
                 label, arg_desc.data, dtype_name(info::dtype), alignof(typename info::element_type));
    return false;
  }
  if (info::traits & KOKKOS_PYTHON_ALIGNED && address % compat::memory_alignment != 0) {
    PyErr_Format(PyExc_ValueError,
                 "kokkos_python::from_python: View '%s' data at %p is not aligned to %zu bytes, which the Aligned "
                 "memory trait of %s requires",
                 label, arg_desc.data, compat::memory_alignment, want.c_str());
    return false;
  }
  return true;
}

template <class ViewT>
bool same_geometry(const ViewT &arg_view, const kokkos_python_view_desc &arg_desc) {
  if (static_cast<const void *>(arg_view.data()) != arg_desc.data) return false;
  if (rank_of(arg_view) != arg_desc.rank) return false;
  size_t strides[KOKKOS_PYTHON_MAX_RANK + 1] = {};
  arg_view.stride(strides);
  for (int r = 0; r < arg_desc.rank; ++r) {
    if (static_cast<int64_t>(arg_view.extent(static_cast<unsigned>(r))) != arg_desc.extents[r]) return false;
    if (arg_desc.extents[r] > 1 && static_cast<int64_t>(strides[r]) != arg_desc.strides[r]) return false;
  }
  return true;
}

// A View of ViewT's kind over arg_desc's memory, tracked by arg_track (may
// be empty: then unmanaged).
template <class ViewT>
ViewT make_view(const kokkos_python_view_desc &arg_desc, const Kokkos::Impl::SharedAllocationTracker &arg_track,
                bool arg_tracked) {
  using info = view_info<ViewT>;
  auto ptr = static_cast<typename info::pointer_type>(arg_desc.data);
  auto layout = make_layout<typename info::array_layout>(arg_desc);
  ViewT raw(ptr, layout);
  if (!arg_tracked) return raw;
  return compat::view_with_tracker(raw, arg_track);
}

// DynRankView: build a View of the runtime rank, then convert.
template <class ViewT, int Rank>
struct ranked {
  using type = typename ranked<ViewT, Rank - 1>::type *;
};
template <class ViewT>
struct ranked<ViewT, 0> {
  using type = typename ViewT::value_type;
};

template <class ViewT, int Rank, bool Past = (Rank > KOKKOS_PYTHON_MAX_DYN_RANK)>
struct dyn_rank_maker {
  static ViewT make(const kokkos_python_view_desc &arg_desc, const Kokkos::Impl::SharedAllocationTracker &arg_track,
                    bool arg_tracked) {
#if defined(KOKKOS_PYTHON_COMPAT_DYN_RANK_FROM_RANK7)
    using view_7 = Kokkos::View<typename ranked<ViewT, KOKKOS_PYTHON_MAX_DYN_RANK>::type, typename ViewT::array_layout,
                                typename ViewT::device_type, typename ViewT::memory_traits>;
    kokkos_python_view_desc full = arg_desc;
    for (int r = arg_desc.rank; r < KOKKOS_PYTHON_MAX_DYN_RANK; ++r) full.extents[r] = full.strides[r] = 1;
    full.rank = KOKKOS_PYTHON_MAX_DYN_RANK;
    return ViewT(make_view<view_7>(full, arg_track, arg_tracked), static_cast<size_t>(arg_desc.rank));
#else
    if (arg_desc.rank != Rank) return dyn_rank_maker<ViewT, Rank + 1>::make(arg_desc, arg_track, arg_tracked);
    using view_r = Kokkos::View<typename ranked<ViewT, Rank>::type, typename ViewT::array_layout,
                                typename ViewT::device_type, typename ViewT::memory_traits>;
    return ViewT(make_view<view_r>(arg_desc, arg_track, arg_tracked));
#endif
  }
};
template <class ViewT, int Rank>
struct dyn_rank_maker<ViewT, Rank, true> {
  static ViewT make(const kokkos_python_view_desc &, const Kokkos::Impl::SharedAllocationTracker &, bool) {
    ViewT empty;
    compat::repair_default_view(empty);
    return empty;
  }
};

template <class ViewT>
ViewT build(const kokkos_python_view_desc &arg_desc, const Kokkos::Impl::SharedAllocationTracker &arg_track,
            bool arg_tracked, view_tag) {
  return make_view<ViewT>(arg_desc, arg_track, arg_tracked);
}
template <class ViewT>
ViewT build(const kokkos_python_view_desc &arg_desc, const Kokkos::Impl::SharedAllocationTracker &arg_track,
            bool arg_tracked, dyn_rank_view_tag) {
  return dyn_rank_maker<ViewT, 0>::make(arg_desc, arg_track, arg_tracked);
}
template <class ViewT>
ViewT build(const kokkos_python_view_desc &arg_desc, const Kokkos::Impl::SharedAllocationTracker &arg_track,
            bool arg_tracked) {
  return build<ViewT>(arg_desc, arg_track, arg_tracked, kind_tag<ViewT>{});
}

// Runs arg_f() at the boundary to Python: a C++ exception becomes a Python
// exception naming arg_where (MemoryError for bad_alloc, RuntimeError
// otherwise) and the result arg_failed.
template <class R, class F>
R python_boundary(const char *arg_where, R arg_failed, F &&arg_f) noexcept {
  try {
    return arg_f();
  } catch (const std::bad_alloc &) {
    PyErr_NoMemory();
  } catch (const std::exception &e) {
    PyErr_Format(PyExc_RuntimeError, "%s: %s", arg_where, e.what());
  }
  return arg_failed;
}

}  // namespace detail

// ---- public conversions ----------------------------------------------------------------

// New reference to a kokkos.View (kokkos.DynRankView for a DynRankView) over
// arg_view's memory whose lifetime arg_owner guarantees (a new reference to
// it is taken); for Unmanaged Views whose memory some Python object owns.
// nullptr with an exception on failure.
template <class ViewT>
PyObject *to_python(const ViewT &arg_view, PyObject *arg_owner) noexcept {
  if (import() < 0) return nullptr;
  return detail::python_boundary<PyObject *>("kokkos_python::to_python", nullptr, [&]() -> PyObject * {
    kokkos_python_view_desc desc;
    std::string label;
    if (const auto *rec = detail::python_record::of(arg_view)) {
      detail::describe(arg_view, rec->label(), desc);
      // Foreign memory (a NumPy array, ...) stays Unmanaged as Python saw it.
      desc.traits |= rec->description().traits & KOKKOS_PYTHON_UNMANAGED;
      // The very View Python passed in, unchanged: hand it back.
      if (arg_owner == rec->view() && detail::same_description(desc, rec->description())) return Py_NewRef(rec->view());
    } else {
      label = arg_view.label();
      detail::describe(arg_view, label, desc);
      if (!detail::is_managed(arg_view)) desc.traits |= KOKKOS_PYTHON_UNMANAGED;
    }
    return api()->view_from_owner(&desc, arg_owner ? arg_owner : Py_None);
  });
}

// New reference to a kokkos.View (kokkos.DynRankView for a DynRankView) over
// arg_view's memory, sharing ownership: a managed View's allocation lives
// while the Python View or any C++ copy lives (but goes at Kokkos finalize,
// which marks the Python View released). A View that came from Python
// shares its Python owner again. An unmanaged View gives a Python View that
// does not keep the memory alive (trait Unmanaged); see the two-argument
// form. nullptr with an exception on failure.
template <class ViewT>
PyObject *to_python(const ViewT &arg_view) noexcept {
  using context = detail::tracker_context;
  static_assert(sizeof(context::tracker) <= 64 && alignof(context::tracker) <= 16,
                "kokkos_python: a View's tracker must fit the 64 bytes view_from_inline promises");
  if (import() < 0) return nullptr;
  return detail::python_boundary<PyObject *>("kokkos_python::to_python", nullptr, [&]() -> PyObject * {
    if (const auto *rec = detail::python_record::of(arg_view)) return to_python(arg_view, rec->view());
    if (!detail::is_managed(arg_view)) return to_python(arg_view, Py_None);
    const std::string label = arg_view.label();
    kokkos_python_view_desc desc;
    detail::describe(arg_view, label, desc);
    // A DynRankView's underlying View may be a temporary: it lives to the end of this statement.
    return api()->view_from_inline(&desc, sizeof(context::tracker), &context::construct,
                                   &detail::underlying(arg_view).impl_track(), &context::destroy, 1, context::tag());
  });
}

// Makes arg_out a View of arg_obj's memory (arg_obj: a kokkos.View). On a
// mismatch (dtype, rank, layout/strides, memory space, const-ness, static
// extents, alignment) returns false with TypeError / ValueError naming what
// did not fit; RuntimeError if the View was released at Kokkos finalize or
// Kokkos was finalized. Initializes Kokkos if nothing did yet.
// The result keeps the memory's Python owner alive (see the top of this
// file); for an Unmanaged ViewT it does not.
template <class ViewT>
bool from_python(PyObject *arg_obj, ViewT &arg_out) noexcept {
  using info = detail::view_info<ViewT>;
  using holder = detail::view_holder<ViewT>;
  if (import() < 0) return false;
  if (!arg_obj || !api()->is_view(arg_obj)) {
    std::string want;
    try {
      want = detail::type_name<ViewT>();
    } catch (...) {
    }
    PyErr_Format(PyExc_TypeError, "kokkos_python::from_python: expected a kokkos.View for %s, got %s", want.c_str(),
                 arg_obj ? Py_TYPE(arg_obj)->tp_name : "NULL");
    return false;
  }
  return detail::python_boundary("kokkos_python::from_python", false, [&]() -> bool {
    kokkos_python_view_desc desc;
    if (api()->describe(arg_obj, &desc) < 0) return false;
    if (!detail::check<ViewT>(desc)) return false;
    // A View of Python memory is tracked by Kokkos: before anything
    // initialized Kokkos this initializes it (as creating a View does);
    // once Kokkos was finalized this is a RuntimeError rather than an abort.
    if (api()->runtime_ensure() < 0) return false;
    bool empty = false;
    for (int r = 0; r < desc.rank; ++r) empty = empty || desc.extents[r] == 0;
    if (info::memory_traits::is_unmanaged || empty) {
      arg_out = detail::build<ViewT>(desc, Kokkos::Impl::SharedAllocationTracker(), false);
      return true;
    }
    // Memory of a Kokkos allocation that C++ handed over: a View tracked by
    // that allocation's record, as the original was.
    void *ctx = nullptr;
    int mine = api()->external_owner(arg_obj, detail::tracker_context::tag(), &ctx);
    if (mine < 0) return false;
    if (mine == 1) {
      arg_out = detail::build<ViewT>(desc, *static_cast<const detail::tracker_context::tracker *>(ctx), true);
      return true;
    }
    // Handed over by a module built with C++ layer version 1: its heap copy.
    mine = api()->external_owner(arg_obj, holder::tag(), &ctx);
    if (mine < 0) return false;
    if (mine == 1 && detail::same_geometry(static_cast<holder *>(ctx)->m_view, desc)) {
      arg_out = static_cast<holder *>(ctx)->m_view;
      return true;
    }
    Kokkos::Impl::SharedAllocationTracker track;
    const std::string label = desc.label ? desc.label : "";
    Py_INCREF(arg_obj);
    detail::python_record *rec;
    try {
      rec = new detail::python_record(arg_obj, desc, label);
    } catch (...) {
      Py_DECREF(arg_obj);
      throw;
    }
    track.assign_allocated_record_to_uninitialized(rec);
    arg_out = detail::build<ViewT>(desc, track, true);
    return true;
  });
}

// As above, returning the View; throws python_error (holding the Python
// exception) on failure.
template <class ViewT>
ViewT from_python(PyObject *arg_obj) {
  ViewT out;
  compat::repair_default_view(out);
  if (!from_python(arg_obj, out)) throw python_error();
  return out;
}

// The readable name from_python uses for ViewT in messages, e.g.
// "Kokkos::View<float64**, LayoutRight, HostSpace>".
template <class ViewT>
std::string type_name() {
  return detail::type_name<ViewT>();
}

}  // namespace kokkos_python

#endif  // KOKKOS_PYTHON_HPP
