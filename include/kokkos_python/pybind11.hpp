// pybind11.hpp: pybind11 type casters for Kokkos::View and Kokkos::DynRankView.
//
//   #include <kokkos_python/pybind11.hpp>
//   Kokkos::View<double**, Kokkos::HostSpace> generate_view(size_t n);
//   PYBIND11_MODULE(ex_generate, m) {
//     if (kokkos_python::import("ex_generate") < 0) throw pybind11::error_already_set();
//     m.def("generate_view", &generate_view);
//   }
//
// Arguments: a kokkos.View that fits the parameter's View type (dtype, rank,
// layout or strides, memory space, const-ness; see kokkos_python.hpp) is
// taken without a copy. When implicit conversion is allowed (the default,
// unless .noconvert()), anything exposing the buffer protocol or
// __array_interface__ (a NumPy array, ...) is wrapped without a copy too.
// None and everything else fail to load, so pybind11 raises its usual
// TypeError listing the accepted signatures, where a parameter reads as
// e.g. kokkos.View[float64, 2, LayoutRight, HostSpace] (caster.hpp). A View
// released at Kokkos finalize, or any View once Kokkos was finalized, raises
// RuntimeError instead; before anything initialized Kokkos, the first call
// initializes it, as creating a View does.
// Return values: to_python(view): a kokkos.View sharing ownership.
//
// kokkos_python::from_python<ViewT>(handle) is the explicit form; it throws
// pybind11::error_already_set holding the TypeError / ValueError that says
// what did not fit.
#ifndef KOKKOS_PYTHON_PYBIND11_HPP
#define KOKKOS_PYTHON_PYBIND11_HPP

#include "caster.hpp"

#include <pybind11/pybind11.h>

namespace kokkos_python {

// The View behind obj, as ViewT; throws pybind11::error_already_set.
template <class ViewT>
ViewT from_python(pybind11::handle arg_obj) {
  ViewT out;
  if (!from_python(arg_obj.ptr(), out)) throw pybind11::error_already_set();
  return out;
}

namespace pybind11_detail {

// pybind11's compile-time text, for caster::signature.
struct text {
  template <size_t N>
  static constexpr auto make(const char (&arg_text)[N]) {
    return pybind11::detail::const_name(arg_text);
  }
  template <size_t N>
  static constexpr auto number() {
    return pybind11::detail::const_name<N>();
  }
};

template <class ViewT>
class view_caster {
 public:
  PYBIND11_TYPE_CASTER(ViewT, (caster::signature<text, ViewT>()));

  bool load(pybind11::handle arg_src, bool arg_convert) {
    const caster::load_result r = caster::load(arg_src.ptr(), arg_convert, value);
    if (r == caster::load_result::error) throw pybind11::error_already_set();
    return r == caster::load_result::loaded;
  }

  static pybind11::handle cast(const ViewT &arg_src, pybind11::return_value_policy, pybind11::handle) {
    PyObject *obj = to_python(arg_src);
    if (!obj) throw pybind11::error_already_set();
    return obj;
  }
};

}  // namespace pybind11_detail
}  // namespace kokkos_python

namespace pybind11 {
namespace detail {
template <class D, class... P>
struct type_caster<Kokkos::View<D, P...>> : kokkos_python::pybind11_detail::view_caster<Kokkos::View<D, P...>> {};
template <class D, class... P>
struct type_caster<Kokkos::DynRankView<D, P...>>
    : kokkos_python::pybind11_detail::view_caster<Kokkos::DynRankView<D, P...>> {};
}  // namespace detail
}  // namespace pybind11

#endif  // KOKKOS_PYTHON_PYBIND11_HPP
