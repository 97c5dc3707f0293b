// nanobind.hpp: nanobind type casters for Kokkos::View and Kokkos::DynRankView.
//
//   #include <kokkos_python/nanobind.hpp>
//   Kokkos::View<double**, Kokkos::HostSpace> generate_view(size_t n);
//   NB_MODULE(ex_generate, m) {
//     if (kokkos_python::import("ex_generate") < 0) throw nanobind::python_error();
//     m.def("generate_view", &generate_view);
//   }
//
// The same rules as the pybind11 casters (kokkos_python/pybind11.hpp):
// fitting kokkos.Views load without a copy; with implicit conversion
// allowed (the default, unless nb::arg().noconvert()) buffer-protocol and
// __array_interface__ objects are wrapped without a copy; None and anything
// else fail to load, so nanobind raises its usual TypeError, where a
// parameter reads as e.g. kokkos.View[float64, 2, LayoutRight, HostSpace].
// The first call before anything initialized Kokkos initializes it. A View
// released at Kokkos finalize, any View once Kokkos was finalized, and a
// View over host memory the GPU cannot read (kokkos.DeviceAccessError) do
// not load: nanobind calls casters from noexcept code (std::vector<View>,
// std::optional<View>), so the caster never throws; it warns with the
// reason (RuntimeWarning: "... 'label' was released ...") and nanobind
// raises its TypeError. (pybind11's casters raise the RuntimeError itself.)
// Return values become kokkos.Views sharing ownership (to_python). Call kokkos_python::import() in NB_MODULE
// so that a Kokkos runtime mismatch is reported at import.
//
// kokkos_python::from_python<ViewT>(handle) is the explicit form; it throws
// nanobind::python_error holding the TypeError / ValueError that says what
// did not fit.
#ifndef KOKKOS_PYTHON_NANOBIND_HPP
#define KOKKOS_PYTHON_NANOBIND_HPP

#include "caster.hpp"

#include <nanobind/nanobind.h>

namespace kokkos_python {

// The View behind obj, as ViewT; throws nanobind::python_error.
template <class ViewT>
ViewT from_python(nanobind::handle arg_obj) {
  ViewT out;
  compat::repair_default_view(out);
  if (!from_python(arg_obj.ptr(), out)) throw nanobind::python_error();
  return out;
}

namespace nanobind_detail {

// nanobind's compile-time text, for caster::signature.
struct text {
  template <size_t N>
  static constexpr auto make(const char (&arg_text)[N]) {
    return nanobind::detail::const_name(arg_text);
  }
  template <size_t N>
  static constexpr auto number() {
    return nanobind::detail::const_name<N>();
  }
};

// The Python error a View argument raised while loading (a released View,
// Kokkos finalized), told as a RuntimeWarning with its message, so that
// the TypeError nanobind raises next ("incompatible function arguments")
// is not all the caller hears. Clears the error; never throws. Under
// -W error the warning itself fails and is dropped: the TypeError remains.
inline void report_load_error() noexcept {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *text = value ? PyObject_Str(value) : nullptr;
  const char *msg = text ? PyUnicode_AsUTF8(text) : nullptr;
  if (!msg) PyErr_Clear();
  if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "%s (the argument cannot be passed to C++; TypeError follows)",
                       msg ? msg : "a kokkos.View argument failed to load") < 0)
    PyErr_Clear();
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
}

}  // namespace nanobind_detail
}  // namespace kokkos_python

namespace nanobind {
namespace detail {
// A caster for any Kokkos View type; NB_TYPE_CASTER wants this namespace.
template <class ViewT>
struct kokkos_python_view_caster {
  NB_TYPE_CASTER(ViewT, (kokkos_python::caster::signature<kokkos_python::nanobind_detail::text, ViewT>()))

  kokkos_python_view_caster() noexcept { kokkos_python::compat::repair_default_view(value); }

  // noexcept: nanobind calls this from its own noexcept casters too
  // (std::vector<View>, std::optional<View>), where a C++ exception would
  // end the process. An error (a released View, Kokkos finalized) is
  // therefore not thrown: it is reported (report_load_error) and the
  // argument does not load, so nanobind raises its TypeError.
  bool from_python(handle arg_src, uint32_t arg_flags, cleanup_list *) noexcept {
    const bool convert = (arg_flags & static_cast<uint32_t>(cast_flags::convert)) != 0;
    const auto r = kokkos_python::caster::load(arg_src.ptr(), convert, value);
    if (r == kokkos_python::caster::load_result::error) kokkos_python::nanobind_detail::report_load_error();
    return r == kokkos_python::caster::load_result::loaded;
  }

  static handle from_cpp(const ViewT &arg_src, rv_policy, cleanup_list *) noexcept {
    return kokkos_python::to_python(arg_src);
  }
};

template <class D, class... P>
struct type_caster<Kokkos::View<D, P...>> : kokkos_python_view_caster<Kokkos::View<D, P...>> {};
template <class D, class... P>
struct type_caster<Kokkos::DynRankView<D, P...>> : kokkos_python_view_caster<Kokkos::DynRankView<D, P...>> {};
}  // namespace detail
}  // namespace nanobind

#endif  // KOKKOS_PYTHON_NANOBIND_HPP
