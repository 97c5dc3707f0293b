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
// e.g. kokkos.View[float64, 2, LayoutRight, HostSpace].
// Return values: to_python(view): a kokkos.View sharing ownership.
//
// kokkos_python::from_python<ViewT>(handle) is the explicit form; it throws
// pybind11::error_already_set holding the TypeError / ValueError that says
// what did not fit.
#ifndef KOKKOS_PYTHON_PYBIND11_HPP
#define KOKKOS_PYTHON_PYBIND11_HPP

#include "kokkos_python.hpp"

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

namespace pd = pybind11::detail;

template <int D>
constexpr auto dtype_descr() {
  if constexpr (D == KOKKOS_PYTHON_INT8)
    return pd::const_name("int8");
  else if constexpr (D == KOKKOS_PYTHON_INT16)
    return pd::const_name("int16");
  else if constexpr (D == KOKKOS_PYTHON_INT32)
    return pd::const_name("int32");
  else if constexpr (D == KOKKOS_PYTHON_INT64)
    return pd::const_name("int64");
  else if constexpr (D == KOKKOS_PYTHON_UINT8)
    return pd::const_name("uint8");
  else if constexpr (D == KOKKOS_PYTHON_UINT16)
    return pd::const_name("uint16");
  else if constexpr (D == KOKKOS_PYTHON_UINT32)
    return pd::const_name("uint32");
  else if constexpr (D == KOKKOS_PYTHON_UINT64)
    return pd::const_name("uint64");
  else if constexpr (D == KOKKOS_PYTHON_FLOAT32)
    return pd::const_name("float32");
  else if constexpr (D == KOKKOS_PYTHON_FLOAT64)
    return pd::const_name("float64");
  else if constexpr (D == KOKKOS_PYTHON_COMPLEX64)
    return pd::const_name("complex64");
  else if constexpr (D == KOKKOS_PYTHON_COMPLEX128)
    return pd::const_name("complex128");
  else
    return pd::const_name("bool");
}

template <int L>
constexpr auto layout_descr() {
  if constexpr (L == KOKKOS_PYTHON_LAYOUT_RIGHT)
    return pd::const_name("LayoutRight");
  else if constexpr (L == KOKKOS_PYTHON_LAYOUT_LEFT)
    return pd::const_name("LayoutLeft");
  else
    return pd::const_name("LayoutStride");
}

template <int S>
constexpr auto space_descr() {
  if constexpr (S == KOKKOS_PYTHON_HOST_SPACE)
    return pd::const_name("HostSpace");
  else if constexpr (S == KOKKOS_PYTHON_CUDA_SPACE)
    return pd::const_name("CudaSpace");
  else if constexpr (S == KOKKOS_PYTHON_CUDA_UVM_SPACE)
    return pd::const_name("CudaUVMSpace");
  else if constexpr (S == KOKKOS_PYTHON_CUDA_HOST_PINNED_SPACE)
    return pd::const_name("CudaHostPinnedSpace");
  else if constexpr (S == KOKKOS_PYTHON_HBW_SPACE)
    return pd::const_name("HBWSpace");
  else if constexpr (S == KOKKOS_PYTHON_HIP_SPACE)
    return pd::const_name("HIPSpace");
  else if constexpr (S == KOKKOS_PYTHON_HIP_HOST_PINNED_SPACE)
    return pd::const_name("HIPHostPinnedSpace");
  else if constexpr (S == KOKKOS_PYTHON_OPENMP_TARGET_SPACE)
    return pd::const_name("OpenMPTargetSpace");
  else if constexpr (S == KOKKOS_PYTHON_SYCL_SHARED_USM_SPACE)
    return pd::const_name("SYCLSharedUSMSpace");
  else
    return pd::const_name("SYCLDeviceUSMSpace");
}

// kokkos.View[float64, 2, LayoutRight, HostSpace] /
// kokkos.DynRankView[const int32, LayoutLeft, HostSpace]
template <class ViewT>
constexpr auto view_descr() {
  using info = detail::view_info<ViewT>;
  constexpr auto head = pd::const_name<info::dynamic>("kokkos.DynRankView[", "kokkos.View[") +
                        pd::const_name<info::is_const>("const ", "") + dtype_descr<info::dtype>();
  if constexpr (info::dynamic)
    return head + pd::const_name(", ") + layout_descr<info::layout>() + pd::const_name(", ") +
           space_descr<info::space>() + pd::const_name("]");
  else
    return head + pd::const_name(", ") + pd::const_name<static_cast<size_t>(detail::static_rank<ViewT>::value)>() +
           pd::const_name(", ") + layout_descr<info::layout>() + pd::const_name(", ") + space_descr<info::space>() +
           pd::const_name("]");
}

template <class ViewT>
class view_caster {
  using info = detail::view_info<ViewT>;

 public:
  PYBIND11_TYPE_CASTER(ViewT, view_descr<ViewT>());

  bool load(pybind11::handle arg_src, bool arg_convert) {
    if (!arg_src || arg_src.is_none()) return false;
    // A Kokkos runtime mismatch is an error to see, not a non-match.
    if (import() < 0) throw pybind11::error_already_set();
    pybind11::object obj = pybind11::reinterpret_borrow<pybind11::object>(arg_src);
    if (!api()->is_view(arg_src.ptr())) {
      if (!arg_convert) return false;
      PyObject *wrapped = api()->view_from_object(arg_src.ptr(), info::is_const ? 0 : 1, info::dynamic ? 1 : 0);
      if (!wrapped) {
        PyErr_Clear();
        return false;
      }
      obj = pybind11::reinterpret_steal<pybind11::object>(wrapped);
    }
    if (!from_python(obj.ptr(), value)) {
      PyErr_Clear();
      return false;
    }
    return true;
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
