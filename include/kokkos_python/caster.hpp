// caster.hpp: what the pybind11 and nanobind casters share (pybind11.hpp,
// nanobind.hpp): the signature a bound function shows for a View parameter,
// and the rules for loading a Python object as a View argument. The
// adapters only say how their binding library spells text and errors, so
// the two can never disagree. C++14 (pybind11 allows it; nanobind needs 17).
//
// Signatures read e.g. kokkos.View[float64, 2, LayoutRight, HostSpace] or
// kokkos.DynRankView[const int32, LayoutLeft, HostSpace]; the names come
// from the rows of tables.h.
#ifndef KOKKOS_PYTHON_CASTER_HPP
#define KOKKOS_PYTHON_CASTER_HPP

#include "kokkos_python.hpp"

#include <cstddef>
#include <string>

#if !defined(_WIN32)
#include <dlfcn.h>
#endif

namespace kokkos_python {
namespace caster {

// ---- signatures -----------------------------------------------------------------

// Text: the binding library's compile-time text, as
//   struct Text {
//     template <size_t N> static constexpr auto make(const char (&)[N]);  // a literal
//     template <size_t N> static constexpr auto number();                 // N in decimal
//   };
// whose results concatenate with +.

template <class Text, int Dtype>
struct dtype_text;
template <class Text, int Space>
struct space_text;
template <class Text, int Layout>
struct layout_text;

#define KOKKOS_PYTHON_DETAIL_TEXT(TRAIT, VALUE, NAME)        \
  template <class Text>                                      \
  struct TRAIT<Text, VALUE> {                                \
    static constexpr auto get() { return Text::make(NAME); } \
  };
#define KOKKOS_PYTHON_DETAIL_DTYPE_TEXT(ID, VALUE, NAME, ...) KOKKOS_PYTHON_DETAIL_TEXT(dtype_text, VALUE, NAME)
#define KOKKOS_PYTHON_DETAIL_SPACE_TEXT(ID, VALUE, NAME, ...) KOKKOS_PYTHON_DETAIL_TEXT(space_text, VALUE, NAME)
#define KOKKOS_PYTHON_DETAIL_LAYOUT_TEXT(ID, VALUE, NAME) KOKKOS_PYTHON_DETAIL_TEXT(layout_text, VALUE, NAME)
KOKKOS_PYTHON_DTYPE_ROWS(KOKKOS_PYTHON_DETAIL_DTYPE_TEXT)
KOKKOS_PYTHON_SPACE_ROWS(KOKKOS_PYTHON_DETAIL_SPACE_TEXT)
KOKKOS_PYTHON_LAYOUT_ROWS(KOKKOS_PYTHON_DETAIL_LAYOUT_TEXT)
#undef KOKKOS_PYTHON_DETAIL_DTYPE_TEXT
#undef KOKKOS_PYTHON_DETAIL_SPACE_TEXT
#undef KOKKOS_PYTHON_DETAIL_LAYOUT_TEXT
#undef KOKKOS_PYTHON_DETAIL_TEXT

// "kokkos.View[" or "kokkos.DynRankView[", then "const " for a const View.
template <class Text, bool Dynamic, bool Const>
struct head_text {
  static constexpr auto get() { return Text::make("kokkos.View[") + Text::make("const "); }
};
template <class Text>
struct head_text<Text, false, false> {
  static constexpr auto get() { return Text::make("kokkos.View["); }
};
template <class Text>
struct head_text<Text, true, true> {
  static constexpr auto get() { return Text::make("kokkos.DynRankView[const "); }
};
template <class Text>
struct head_text<Text, true, false> {
  static constexpr auto get() { return Text::make("kokkos.DynRankView["); }
};

// ", <rank>" for a View; nothing for a DynRankView, whose rank is a run-time value.
template <class Text, class ViewT, bool Dynamic = detail::view_info<ViewT>::dynamic>
struct rank_text {
  static constexpr auto get() {
    return Text::make(", ") + Text::template number<static_cast<size_t>(detail::static_rank<ViewT>::value)>();
  }
};
template <class Text, class ViewT>
struct rank_text<Text, ViewT, true> {
  static constexpr auto get() { return Text::make(""); }
};

// The signature of ViewT in the binding library's text.
template <class Text, class ViewT>
constexpr auto signature() {
  using info = detail::view_info<ViewT>;
  return head_text<Text, info::dynamic, info::is_const>::get() + dtype_text<Text, info::dtype>::get() +
         rank_text<Text, ViewT>::get() + Text::make(", ") + layout_text<Text, info::layout>::get() + Text::make(", ") +
         space_text<Text, info::space>::get() + Text::make("]");
}

// ---- loading an argument ---------------------------------------------------------

enum class load_result {
  loaded,    // arg_out holds the View
  no_match,  // the object is not such a View: try the next overload (no Python error set)
  error      // a Python error to raise: the package could not be imported, the View
             // was released at finalize, Kokkos was finalized, the device cannot read
             // the View's memory (kokkos.DeviceAccessError) (Python error set)
};

// Loads arg_src as a ViewT. A kokkos.View that fits is taken without a copy;
// with arg_convert, anything exposing the buffer protocol or
// __array_interface__ is wrapped without a copy too. None and everything
// else do not match. A released View, any View once Kokkos was finalized,
// and a View over memory the device cannot read (RuntimeErrors, all) are an
// error to raise rather than a mismatch: no View type could take them, and
// the caller would otherwise only hear that no overload matched.
template <class ViewT>
load_result load(PyObject *arg_src, bool arg_convert, ViewT &arg_out) noexcept {
  using info = detail::view_info<ViewT>;
  if (!arg_src || arg_src == Py_None) return load_result::no_match;
  // A Kokkos runtime mismatch is an error to see, not a non-match.
  if (import() < 0) return load_result::error;
  PyObject *obj = arg_src;
  PyObject *wrapped = nullptr;
  if (!api()->is_view(arg_src)) {
    if (!arg_convert) return load_result::no_match;
    wrapped = api()->view_from_object(arg_src, info::is_const ? 0 : 1, info::dynamic ? 1 : 0);
    if (!wrapped) {
      PyErr_Clear();
      return load_result::no_match;
    }
    obj = wrapped;
  }
  load_result result = load_result::loaded;
  if (!from_python(obj, arg_out))
    result = PyErr_ExceptionMatches(PyExc_RuntimeError) ? load_result::error : load_result::no_match;
  if (result == load_result::no_match) PyErr_Clear();
  Py_XDECREF(wrapped);
  return result;
}

}  // namespace caster

// ---- Kokkos initialized at import ---------------------------------------------
//
// A module built on the pybind11 or nanobind adapter (pybind11.hpp,
// nanobind.hpp) initializes Kokkos when Python loads it, if nothing has
// (docs/building.md, "The auto-initialization rule"): its C++ code may make
// a Kokkos::View before any View crosses a caster, and a View made before
// Kokkos::initialize aborts the process. The package does it as a plain
// kokkos.initialize() would (the --kokkos-* flags of sys.argv included) and
// remembers the module, so that a later kokkos.initialize(num_threads=...)
// whose settings can no longer apply warns, naming it.
//
// This runs from a static object's constructor, i.e. while the dynamic
// loader loads the module: for Python's import that is under the GIL. When
// the library is loaded another way (a C++ program linking it, before
// Py_Initialize or without the GIL) it does nothing: Kokkos belongs to that
// program. A failure is kept and raised by import() (which the module's
// init function calls, and every caster calls first) as ImportError.
namespace detail {

// The name of the module whose library holds arg_address (the file name up
// to its first '.'), or "" when the platform cannot say.
inline std::string module_name_at(const void *arg_address) {
#if !defined(_WIN32)
  Dl_info info;
  if (dladdr(arg_address, &info) && info.dli_fname) {
    std::string path = info.dli_fname;
    const auto slash = path.find_last_of('/');
    if (slash != std::string::npos) path = path.substr(slash + 1);
    return path.substr(0, path.find('.'));
  }
#else
  (void)arg_address;
#endif
  return "";
}

// arg_self: an object of the module's own library (names the module).
inline void initialize_at_load(const void *arg_self) noexcept {
  static bool s_done = false;  // once per module (a module loaded later finds Kokkos initialized)
  if (s_done) return;
  s_done = true;
  if (!Py_IsInitialized() || !PyGILState_Check()) return;
  if (Kokkos::is_initialized()) return;
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);  // nothing should be pending; keep it if it is
  try {
    const std::string name = module_name_at(arg_self);
    PyObject *runtime = PyImport_ImportModule("kokkos.runtime");
    if (!runtime) {
      // No kokkos package: import() reports that itself, better than here.
      PyErr_Clear();
      PyErr_Restore(type, value, tb);
      return;
    }
    PyObject *r = PyObject_HasAttrString(runtime, "_initialize_at_import")
                      ? PyObject_CallMethod(runtime, "_initialize_at_import", "s", name.empty() ? "?" : name.c_str())
                      : PyObject_CallMethod(runtime, "initialize", nullptr);  // an older package
    Py_DECREF(runtime);
    if (r) {
      Py_DECREF(r);
    } else {
      PyObject *t = nullptr, *v = nullptr, *b = nullptr;
      PyErr_Fetch(&t, &v, &b);
      PyErr_NormalizeException(&t, &v, &b);
      if (v && b) PyException_SetTraceback(v, b);
      Py_XDECREF(t);
      Py_XDECREF(b);
      Py_XDECREF(load_init_error());
      load_init_error() = v;
    }
  } catch (...) {
    PyErr_Clear();
  }
  PyErr_Restore(type, value, tb);
}

// Runs initialize_at_load() when the module's library is loaded. The
// object's own address (internal linkage: one per file, in the module's
// library) tells which module that is.
struct initialize_at_load_t {
  initialize_at_load_t() noexcept { initialize_at_load(this); }
};

}  // namespace detail
}  // namespace kokkos_python

namespace {
// One per file that includes an adapter; the first one to run does the work.
const kokkos_python::detail::initialize_at_load_t kokkos_python_initialize_at_load;
}  // namespace

#endif  // KOKKOS_PYTHON_CASTER_HPP
