// pybind11.hpp: pybind11 type casters for Kokkos::View and Kokkos::DynRankView,
// and for the execution spaces of the enabled backends (Kokkos::Serial,
// Kokkos::OpenMP, Kokkos::Cuda, ...), which bound functions take from
// kokkos.KokkosExecutionSpace_<Backend> objects.
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
// RuntimeError instead, and a View over host memory the GPU cannot read
// kokkos.DeviceAccessError, also from an explicit obj.cast<ViewT>() (where
// pybind11 would otherwise say only "Unable to cast"); before anything initialized Kokkos, the first call
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

#include <cstdint>
#include <memory>
#include <string>

namespace kokkos_python {

// The View behind obj, as ViewT; throws pybind11::error_already_set.
template <class ViewT>
ViewT from_python(pybind11::handle arg_obj) {
  ViewT out;
  compat::repair_default_view(out);
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

 public:
  view_caster() noexcept { compat::repair_default_view(value); }

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

// ---- execution-space instances -------------------------------------------------

// What the caster needs per backend: its name (kokkos.KokkosExecutionSpace_<name>)
// and how to build the C++ instance from the Python one.
template <class ExecSpace>
struct exec_space_info;

#define KOKKOS_PYTHON_DETAIL_PLAIN_EXEC_SPACE(TYPE, NAME)                       \
  template <>                                                                   \
  struct exec_space_info<TYPE> {                                                \
    static constexpr const char *name() { return NAME; }                        \
    static TYPE make(pybind11::handle) { return TYPE(); }                       \
    static constexpr auto text() { return pybind11::detail::const_name(NAME); } \
  };
#if defined(KOKKOS_ENABLE_SERIAL)
KOKKOS_PYTHON_DETAIL_PLAIN_EXEC_SPACE(Kokkos::Serial, "Serial")
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
KOKKOS_PYTHON_DETAIL_PLAIN_EXEC_SPACE(Kokkos::OpenMP, "OpenMP")
#endif
#if defined(KOKKOS_ENABLE_THREADS)
KOKKOS_PYTHON_DETAIL_PLAIN_EXEC_SPACE(Kokkos::Threads, "Threads")
#endif
#undef KOKKOS_PYTHON_DETAIL_PLAIN_EXEC_SPACE

// CUDA and HIP instances carry the address of a stream (None: the default
// one); Kokkos uses that stream and does not destroy it.
#define KOKKOS_PYTHON_DETAIL_STREAM_EXEC_SPACE(TYPE, NAME, STREAM_T)                                      \
  template <>                                                                                             \
  struct exec_space_info<TYPE> {                                                                          \
    static constexpr const char *name() { return NAME; }                                                  \
    static TYPE make(pybind11::handle arg_src) {                                                          \
      pybind11::object stream = arg_src.attr("stream");                                                   \
      if (stream.is_none()) return TYPE();                                                                \
      return TYPE(reinterpret_cast<STREAM_T>(static_cast<uintptr_t>(stream.cast<unsigned long long>()))); \
    }                                                                                                     \
    static constexpr auto text() { return pybind11::detail::const_name(NAME); }                           \
  };
#if defined(KOKKOS_ENABLE_CUDA)
KOKKOS_PYTHON_DETAIL_STREAM_EXEC_SPACE(Kokkos::Cuda, "Cuda", cudaStream_t)
#endif
#if defined(KOKKOS_ENABLE_HIP)
KOKKOS_PYTHON_DETAIL_STREAM_EXEC_SPACE(kokkos_python::compat::hip::HIP, "HIP", hipStream_t)
#endif
#undef KOKKOS_PYTHON_DETAIL_STREAM_EXEC_SPACE

// kokkos.KokkosExecutionSpace_<Backend> (a kokkos.ExecutionSpaceInstance)
// -> the C++ execution-space instance; C++ -> a new Python instance (without
// its stream). Kokkos is initialized first if nothing has initialized it.
template <class ExecSpace>
class exec_space_caster {
  using info = exec_space_info<ExecSpace>;

 public:
  // Not PYBIND11_TYPE_CASTER: it default-constructs the value when the call
  // starts, and a Kokkos::Cuda (or HIP) made before Kokkos is initialized
  // aborts the process. The instance is made in load(), after
  // runtime_ensure().
  static constexpr auto name = pybind11::detail::const_name("kokkos.KokkosExecutionSpace_") + info::text();
  template <class T>
  using cast_op_type = pybind11::detail::movable_cast_op_type<T>;
  operator ExecSpace *() { return m_value.get(); }
  operator ExecSpace &() { return *m_value; }
  operator ExecSpace &&() && { return std::move(*m_value); }

  bool load(pybind11::handle arg_src, bool) {
    if (!arg_src || arg_src.is_none()) return false;
    if (import() < 0) throw pybind11::error_already_set();
    pybind11::module_ kokkos = pybind11::module_::import("kokkos");
    if (!pybind11::isinstance(arg_src, kokkos.attr("ExecutionSpaceInstance"))) return false;
    pybind11::object backend = arg_src.attr("backend");
    if (!pybind11::isinstance<pybind11::str>(backend) || backend.cast<std::string>() != info::name()) return false;
    if (api()->runtime_ensure() < 0) throw pybind11::error_already_set();
    m_value.reset(new ExecSpace(info::make(arg_src)));
    return true;
  }

  static pybind11::handle cast(const ExecSpace &, pybind11::return_value_policy, pybind11::handle) {
    pybind11::module_ kokkos = pybind11::module_::import("kokkos");
    return kokkos.attr((std::string("KokkosExecutionSpace_") + info::name()).c_str())().release();
  }
  static pybind11::handle cast(const ExecSpace *arg_src, pybind11::return_value_policy arg_policy,
                               pybind11::handle arg_parent) {
    if (!arg_src) return pybind11::none().release();
    return cast(*arg_src, arg_policy, arg_parent);
  }

 private:
  std::unique_ptr<ExecSpace> m_value;
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
#if defined(KOKKOS_ENABLE_SERIAL)
template <>
struct type_caster<Kokkos::Serial> : kokkos_python::pybind11_detail::exec_space_caster<Kokkos::Serial> {};
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template <>
struct type_caster<Kokkos::OpenMP> : kokkos_python::pybind11_detail::exec_space_caster<Kokkos::OpenMP> {};
#endif
#if defined(KOKKOS_ENABLE_THREADS)
template <>
struct type_caster<Kokkos::Threads> : kokkos_python::pybind11_detail::exec_space_caster<Kokkos::Threads> {};
#endif
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct type_caster<Kokkos::Cuda> : kokkos_python::pybind11_detail::exec_space_caster<Kokkos::Cuda> {};
#endif
#if defined(KOKKOS_ENABLE_HIP)
template <>
struct type_caster<kokkos_python::compat::hip::HIP>
    : kokkos_python::pybind11_detail::exec_space_caster<kokkos_python::compat::hip::HIP> {};
#endif
}  // namespace detail
}  // namespace pybind11

#endif  // KOKKOS_PYTHON_PYBIND11_HPP
