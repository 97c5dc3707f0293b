// misc.hpp: the test modules' functions beyond the type matrix: ownership
// in every order, traits, layouts, fixed extents, explicit from_python
// errors, finalize from C++. Module is pybind11::module_ or nanobind::module_,
// Handle the matching handle type.
#pragma once

#include "views.hpp"

#include <kokkos_python/kokkos_python.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kp_test {

using V1 = Kokkos::View<double *, Kokkos::HostSpace>;
using V2 = Kokkos::View<double **, Kokkos::HostSpace>;
using DRV = Kokkos::DynRankView<double, Kokkos::HostSpace>;

// Views this module keeps in C++ (dropped by a Kokkos finalize hook, as a
// Kokkos program must drop its Views before finalize).
inline std::vector<V2> &held() {
  static std::vector<V2> s_held;
  return s_held;
}

inline double s_unmanaged_storage[8] = {1, 2, 3, 4, 5, 6, 7, 8};

template <class V>
std::tuple<std::uintptr_t, int, std::string> probe(const V &v) {
  return {reinterpret_cast<std::uintptr_t>(v.data()), static_cast<int>(v.use_count()), v.label()};
}

template <class Handle, class Module>
void register_misc(Module &m) {
  Kokkos::push_finalize_hook([] { held().clear(); });

  m.def("kokkos_version", [] { return KOKKOS_VERSION; });
  // The kokkos dtype of Kokkos::Experimental::half_t and whether Kokkos
  // made it float (no 16-bit type on this backend).
  m.def("half_t_dtype", [] {
    return std::make_tuple(kokkos_python::detail::dtype_of<Kokkos::Experimental::half_t>::value,
                           static_cast<bool>(KOKKOS_HALF_T_IS_FLOAT),
                           static_cast<int>(sizeof(Kokkos::Experimental::half_t)));
  });
  m.def("probe", [](V2 v) { return probe(v); });
  m.def("probe_1d", [](V1 v) { return probe(v); });
  m.def("probe_drv", [](DRV v) { return std::make_tuple(probe(v), static_cast<int>(v.rank())); });

  // ownership
  m.def("hold", [](V2 v) { held().push_back(v); });
  m.def("held_count", [] { return held().size(); });
  m.def("held_sum", [] {
    double s = 0;
    for (auto &v : held())
      for (std::size_t i = 0; i < v.extent(0); ++i)
        for (std::size_t j = 0; j < v.extent(1); ++j) s += v(i, j);
    return s;
  });
  m.def("held_use_counts", [] {
    std::vector<int> counts;
    for (auto &v : held()) counts.push_back(static_cast<int>(v.use_count()));
    return counts;
  });
  m.def("set_held", [](double x) {
    for (auto &v : held()) v(0, 0) = x;
  });
  m.def("release_held", [] { held().clear(); });
  m.def("get_held", [](std::size_t i) { return held().at(i); });
  m.def("make_kept", [](std::size_t n) {
    V2 v = make<V2>("kept", {n, 2});
    held().push_back(v);
    return v;
  });
  m.def("echo_2d", [](V2 v) { return v; });
  m.def("use_count_2d", [](V2 v) { return static_cast<int>(v.use_count()); });

  // layouts, traits, const, fixed extents, rank 0, empty
  m.def("make_left_1d", [](std::size_t n) {
    return make<Kokkos::View<double *, Kokkos::LayoutLeft, Kokkos::HostSpace>>("left_1d", {n});
  });
  m.def("make_random_access", [](std::size_t n) {
    return make<Kokkos::View<double *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>>("random_access",
                                                                                                       {n});
  });
  m.def("make_atomic", [](std::size_t n) {
    return Kokkos::View<std::int64_t *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Atomic>>("atomic", n);
  });
  m.def("make_unmanaged", [] {
    return Kokkos::View<double *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(s_unmanaged_storage, 8);
  });
  m.def("make_const", [](std::size_t n) {
    Kokkos::View<const double *, Kokkos::HostSpace> c = make<V1>("const_view", {n});
    return c;
  });
  m.def("sum_const", [](Kokkos::View<const double *, Kokkos::HostSpace> v) {
    double s = 0;
    for (std::size_t i = 0; i < v.extent(0); ++i) s += v(i);
    return s;
  });
  // Views inside containers: the binding library loads them from its own
  // casters (nanobind's are noexcept), so a load error must not throw.
  m.def("sum_list", [](std::vector<V1> vs) {
    double s = 0;
    for (auto &v : vs)
      for (std::size_t i = 0; i < v.extent(0); ++i) s += v(i);
    return s;
  });
  m.def("sum_optional", [](std::optional<V1> v) {
    double s = 0;
    if (v)
      for (std::size_t i = 0; i < v->extent(0); ++i) s += (*v)(i);
    return s;
  });
  m.def("scale", [](V1 v, double a) {
    for (std::size_t i = 0; i < v.extent(0); ++i) v(i) *= a;
  });
  m.def("make_rank0", [](double x) {
    Kokkos::View<double, Kokkos::HostSpace> v("rank0");
    v() = x;
    return v;
  });
  m.def("echo_rank0", [](Kokkos::View<double, Kokkos::HostSpace> v) { return v; });
  m.def("get_rank0", [](Kokkos::View<const double, Kokkos::HostSpace> v) { return v(); });
  m.def("make_fixed", [](std::size_t n) {
    Kokkos::View<double *[3], Kokkos::HostSpace> v("fixed", n);
    fill(v);
    return v;
  });
  m.def("echo_fixed", [](Kokkos::View<double *[3], Kokkos::HostSpace> v) { return v; });
  m.def("make_empty", [] { return V1("empty", 0); });
  m.def("make_default", [] { return V1(); });
  m.def("make_drv", [](std::vector<std::size_t> e) { return make<DRV>("drv", e); });

  // explicit conversions: errors say what did not fit
  m.def("as_f64_2d", [](Handle h) { return kokkos_python::from_python<V2>(h).extent(0); });
  m.def("as_f64_2d_left", [](Handle h) {
    return kokkos_python::from_python<Kokkos::View<double **, Kokkos::LayoutLeft, Kokkos::HostSpace>>(h).extent(0);
  });
  m.def("as_f64_2d_stride", [](Handle h) {
    auto v = kokkos_python::from_python<Kokkos::View<double **, Kokkos::LayoutStride, Kokkos::HostSpace>>(h);
    return std::make_tuple(v.stride(0), v.stride(1));
  });
  m.def("as_f64_1d", [](Handle h) { return kokkos_python::from_python<V1>(h).extent(0); });
  m.def("as_const_f64_1d", [](Handle h) {
    return kokkos_python::from_python<Kokkos::View<const double *, Kokkos::HostSpace>>(h).extent(0);
  });
  m.def("as_i32_1d", [](Handle h) {
    return kokkos_python::from_python<Kokkos::View<std::int32_t *, Kokkos::HostSpace>>(h).extent(0);
  });
  m.def("as_fixed3",
        [](Handle h) { return kokkos_python::from_python<Kokkos::View<double *[3], Kokkos::HostSpace>>(h).extent(0); });
  m.def("as_aligned", [](Handle h) {
    return kokkos_python::from_python<Kokkos::View<double *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Aligned>>>(
               h)
        .extent(0);
  });
  m.def("as_unmanaged", [](Handle h) {
    auto v =
        kokkos_python::from_python<Kokkos::View<double *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>>(
            h);
    return static_cast<int>(v.use_count());
  });
  m.def("as_drv", [](Handle h) { return static_cast<int>(kokkos_python::from_python<DRV>(h).rank()); });
  m.def("type_name_2d", [] {
    return kokkos_python::type_name<Kokkos::View<const double **, Kokkos::LayoutLeft, Kokkos::HostSpace,
                                                 Kokkos::MemoryTraits<Kokkos::RandomAccess>>>();
  });

  m.def("finalize_from_cpp", [] { Kokkos::finalize(); });
}

}  // namespace kp_test
