// caster.hpp: what the pybind11 and nanobind casters share (pybind11.hpp,
// nanobind.hpp): the signature a bound function shows for a View parameter,
// and the rules for loading a Python object as a View argument. The
// adapters only say how their binding library spells text and errors, so
// the two can never disagree. C++14 (pybind11 allows it; nanobind needs 17).
//
// Signatures read e.g. kokkos.View[float64, 2, LayoutRight, HostSpace] or
// kokkos.DynRankView[const int32, LayoutLeft, HostSpace]; the names come
// from the rows in kokkos_python.hpp.
#ifndef KOKKOS_PYTHON_CASTER_HPP
#define KOKKOS_PYTHON_CASTER_HPP

#include "kokkos_python.hpp"

#include <cstddef>

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
#define KOKKOS_PYTHON_DETAIL_DTYPE_TEXT(VALUE, NAME) KOKKOS_PYTHON_DETAIL_TEXT(dtype_text, VALUE, NAME)
#define KOKKOS_PYTHON_DETAIL_SPACE_TEXT(VALUE, NAME) KOKKOS_PYTHON_DETAIL_TEXT(space_text, VALUE, NAME)
#define KOKKOS_PYTHON_DETAIL_LAYOUT_TEXT(VALUE, NAME) KOKKOS_PYTHON_DETAIL_TEXT(layout_text, VALUE, NAME)
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
             // was released at finalize, Kokkos was finalized (Python error set)
};

// Loads arg_src as a ViewT. A kokkos.View that fits is taken without a copy;
// with arg_convert, anything exposing the buffer protocol or
// __array_interface__ is wrapped without a copy too. None and everything
// else do not match. A released View, or any View once Kokkos was
// finalized, is an error to raise rather than a mismatch: the caller would
// otherwise only hear that no overload matched.
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
}  // namespace kokkos_python

#endif  // KOKKOS_PYTHON_CASTER_HPP
