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
// Return values become kokkos.Views sharing ownership (to_python). Call
// kokkos_python::import() in NB_MODULE: a caster cannot raise, so a Kokkos
// runtime mismatch is best reported at import.
//
// kokkos_python::from_python<ViewT>(handle) is the explicit form; it throws
// nanobind::python_error holding the TypeError / ValueError that says what
// did not fit.
#ifndef KOKKOS_PYTHON_NANOBIND_HPP
#define KOKKOS_PYTHON_NANOBIND_HPP

#include "kokkos_python.hpp"

#include <nanobind/nanobind.h>

namespace kokkos_python {

// The View behind obj, as ViewT; throws nanobind::python_error.
template <class ViewT>
ViewT from_python(nanobind::handle arg_obj) {
  ViewT out;
  if (!from_python(arg_obj.ptr(), out)) throw nanobind::python_error();
  return out;
}

namespace nanobind_detail {

namespace nd = nanobind::detail;

template <int D>
constexpr auto dtype_descr() {
  if constexpr (D == KOKKOS_PYTHON_INT8)
    return nd::const_name("int8");
  else if constexpr (D == KOKKOS_PYTHON_INT16)
    return nd::const_name("int16");
  else if constexpr (D == KOKKOS_PYTHON_INT32)
    return nd::const_name("int32");
  else if constexpr (D == KOKKOS_PYTHON_INT64)
    return nd::const_name("int64");
  else if constexpr (D == KOKKOS_PYTHON_UINT8)
    return nd::const_name("uint8");
  else if constexpr (D == KOKKOS_PYTHON_UINT16)
    return nd::const_name("uint16");
  else if constexpr (D == KOKKOS_PYTHON_UINT32)
    return nd::const_name("uint32");
  else if constexpr (D == KOKKOS_PYTHON_UINT64)
    return nd::const_name("uint64");
  else if constexpr (D == KOKKOS_PYTHON_FLOAT32)
    return nd::const_name("float32");
  else if constexpr (D == KOKKOS_PYTHON_FLOAT64)
    return nd::const_name("float64");
  else if constexpr (D == KOKKOS_PYTHON_COMPLEX64)
    return nd::const_name("complex64");
  else if constexpr (D == KOKKOS_PYTHON_COMPLEX128)
    return nd::const_name("complex128");
  else
    return nd::const_name("bool");
}

template <int L>
constexpr auto layout_descr() {
  if constexpr (L == KOKKOS_PYTHON_LAYOUT_RIGHT)
    return nd::const_name("LayoutRight");
  else if constexpr (L == KOKKOS_PYTHON_LAYOUT_LEFT)
    return nd::const_name("LayoutLeft");
  else
    return nd::const_name("LayoutStride");
}

template <int S>
constexpr auto space_descr() {
  if constexpr (S == KOKKOS_PYTHON_HOST_SPACE)
    return nd::const_name("HostSpace");
  else if constexpr (S == KOKKOS_PYTHON_CUDA_SPACE)
    return nd::const_name("CudaSpace");
  else if constexpr (S == KOKKOS_PYTHON_CUDA_UVM_SPACE)
    return nd::const_name("CudaUVMSpace");
  else if constexpr (S == KOKKOS_PYTHON_CUDA_HOST_PINNED_SPACE)
    return nd::const_name("CudaHostPinnedSpace");
  else if constexpr (S == KOKKOS_PYTHON_HBW_SPACE)
    return nd::const_name("HBWSpace");
  else if constexpr (S == KOKKOS_PYTHON_HIP_SPACE)
    return nd::const_name("HIPSpace");
  else if constexpr (S == KOKKOS_PYTHON_HIP_HOST_PINNED_SPACE)
    return nd::const_name("HIPHostPinnedSpace");
  else if constexpr (S == KOKKOS_PYTHON_OPENMP_TARGET_SPACE)
    return nd::const_name("OpenMPTargetSpace");
  else if constexpr (S == KOKKOS_PYTHON_SYCL_SHARED_USM_SPACE)
    return nd::const_name("SYCLSharedUSMSpace");
  else
    return nd::const_name("SYCLDeviceUSMSpace");
}

template <class ViewT>
constexpr auto view_descr() {
  using info = detail::view_info<ViewT>;
  constexpr auto head = nd::const_name<info::dynamic>("kokkos.DynRankView[", "kokkos.View[") +
                        nd::const_name<info::is_const>("const ", "") + dtype_descr<info::dtype>();
  if constexpr (info::dynamic)
    return head + nd::const_name(", ") + layout_descr<info::layout>() + nd::const_name(", ") +
           space_descr<info::space>() + nd::const_name("]");
  else
    return head + nd::const_name(", ") + nd::const_name<static_cast<size_t>(detail::static_rank<ViewT>::value)>() +
           nd::const_name(", ") + layout_descr<info::layout>() + nd::const_name(", ") + space_descr<info::space>() +
           nd::const_name("]");
}

}  // namespace nanobind_detail
}  // namespace kokkos_python

namespace nanobind {
namespace detail {
// A caster for any Kokkos View type; NB_TYPE_CASTER wants this namespace.
template <class ViewT>
struct kokkos_python_view_caster {
  using info = kokkos_python::detail::view_info<ViewT>;
  NB_TYPE_CASTER(ViewT, kokkos_python::nanobind_detail::view_descr<ViewT>())

  bool from_python(handle arg_src, uint8_t arg_flags, cleanup_list *) noexcept {
    if (!arg_src.is_valid() || arg_src.is_none()) return false;
    if (kokkos_python::import() < 0) {
      PyErr_Clear();
      return false;
    }
    object obj = borrow(arg_src);
    if (!kokkos_python::api()->is_view(arg_src.ptr())) {
      if (!(arg_flags & static_cast<uint8_t>(cast_flags::convert))) return false;
      PyObject *wrapped =
          kokkos_python::api()->view_from_object(arg_src.ptr(), info::is_const ? 0 : 1, info::dynamic ? 1 : 0);
      if (!wrapped) {
        PyErr_Clear();
        return false;
      }
      obj = steal(wrapped);
    }
    if (!kokkos_python::from_python(obj.ptr(), value)) {
      PyErr_Clear();
      return false;
    }
    return true;
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
