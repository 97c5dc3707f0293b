// views.hpp: what the test modules share, whatever binds them (pybind11 or
// nanobind): the dtype x rank x layout matrix of View types, a C++ fill
// whose values Python recomputes, and View factories.
#pragma once

#include <Kokkos_Core.hpp>
#include <Kokkos_DynRankView.hpp>
#include <kokkos_python/kokkos_python.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kp_test {

// The 16-bit float the public header picks for this toolchain
// (KOKKOS_PYTHON_FLOAT16_TYPE: Kokkos' half_t on GPU backends, else the
// compiler's _Float16), where there is one.
#if defined(KOKKOS_PYTHON_FLOAT16_TYPE)
using float16 = KOKKOS_PYTHON_FLOAT16_TYPE;
#define KP_TEST_FLOAT16(X) X(kp_test::float16, "float16")
#else
#define KP_TEST_FLOAT16(X)
#endif

template <class T>
constexpr bool is_float16() {
  return kokkos_python::detail::dtype_of<T>::value == KOKKOS_PYTHON_FLOAT16;
}

// The value C++ writes at flat (C-order) index k; tests/test_cxx.py
// computes the same.
template <class T>
T value_at(std::int64_t k) {
  if constexpr (std::is_same_v<T, bool>)
    return k % 2 == 1;
  else if constexpr (std::is_same_v<T, Kokkos::complex<float>> || std::is_same_v<T, Kokkos::complex<double>>)
    return T(static_cast<typename T::value_type>(k + 1), -static_cast<typename T::value_type>(k % 7));
  else if constexpr (std::is_floating_point_v<T> || is_float16<T>())
    return static_cast<T>(static_cast<float>(k) + 0.5f);
  else
    return static_cast<T>(k % 100 + 1);
}

template <class V>
int rank_of(const V &v) {
  if constexpr (Kokkos::is_dyn_rank_view<V>::value)
    return static_cast<int>(v.rank());
  else
    return static_cast<int>(V::traits::rank);
}

// Writes value_at(k) at every element through Kokkos' own indexing, k the
// element's position in C order of the logical indices.
template <class V>
void fill(const V &v) {
  using T = typename V::non_const_value_type;
  const int rank = rank_of(v);
  std::size_t ext[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  std::size_t n = 1;
  for (int r = 0; r < rank; ++r) {
    ext[r] = v.extent(r);
    n *= ext[r];
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t i[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::size_t rest = k;
    for (int r = rank - 1; r >= 0; --r) {
      i[r] = rest % ext[r];
      rest /= ext[r];
    }
    if constexpr (Kokkos::is_dyn_rank_view<V>::value)
      v.access(i[0], i[1], i[2], i[3], i[4], i[5], i[6]) = value_at<T>(static_cast<std::int64_t>(k));
    else
      v.access(i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]) = value_at<T>(static_cast<std::int64_t>(k));
  }
}

// A layout with these extents; LayoutStride gets dimension 1 fastest, then
// 0, then the rest, so it is neither LayoutLeft nor LayoutRight.
template <class Layout>
Layout layout_for(const std::vector<std::size_t> &e) {
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutStride>) {
    int order[8];
    std::size_t dims[8];
    const int rank = static_cast<int>(e.size());
    for (int r = 0; r < rank; ++r) {
      order[r] = r;
      dims[r] = e[r];
    }
    if (rank >= 2) {
      order[0] = 1;
      order[1] = 0;
    }
    Kokkos::LayoutStride layout = Kokkos::LayoutStride::order_dimensions(rank, order, dims);
    // Unused extents KOKKOS_INVALID_INDEX, as Kokkos 4 does (3.4 leaves 0,
    // which a DynRankView would read as rank 7).
    for (int r = rank; r < 8; ++r) layout.dimension[r] = KOKKOS_INVALID_INDEX;
    return layout;
  } else {
    Layout layout;
    for (std::size_t r = 0; r < 8; ++r) layout.dimension[r] = r < e.size() ? e[r] : KOKKOS_INVALID_INDEX;
    return layout;
  }
}

// A new View allocated by Kokkos in C++, filled.
template <class V>
V make(const std::string &label, const std::vector<std::size_t> &e) {
  V v(label, layout_for<typename V::array_layout>(e));
  fill(v);
  return v;
}

template <class T, int R>
struct ranked {
  using type = typename ranked<T, R - 1>::type *;
};
template <class T>
struct ranked<T, 0> {
  using type = T;
};

template <class Layout>
const char *layout_suffix() {
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutRight>)
    return "right";
  else if constexpr (std::is_same_v<Layout, Kokkos::LayoutLeft>)
    return "left";
  else
    return "stride";
}

// Registers echo_<name>, fill_<name> and make_<name> for View type V:
//   echo: Python -> C++ -> Python;  fill: C++ writes into Python memory;
//   make: C++ allocates, fills and hands over.
template <class V, class Module>
void register_view(Module &m, const std::string &name) {
  m.def(("echo_" + name).c_str(), [](V v) { return v; });
  m.def(("fill_" + name).c_str(), [](V v) { fill(v); });
  m.def(("make_" + name).c_str(), [name](std::vector<std::size_t> e) { return make<V>("made_" + name, e); });
}

template <class T, class Layout, int R, class Module>
void register_ranks(Module &m, const char *dtype) {
  if constexpr (R <= 8) {
    using V = Kokkos::View<typename ranked<T, R>::type, Layout, Kokkos::HostSpace>;
    register_view<V>(m, std::string(dtype) + "_" + std::to_string(R) + "_" + layout_suffix<Layout>());
    register_ranks<T, Layout, R + 1>(m, dtype);
  }
}

// clang-format off
#define KP_TEST_DTYPES(X)                                                                    \
  X(std::int8_t, "int8") X(std::int16_t, "int16") X(std::int32_t, "int32")                   \
  X(std::int64_t, "int64") X(std::uint8_t, "uint8") X(std::uint16_t, "uint16")              \
  X(std::uint32_t, "uint32") X(std::uint64_t, "uint64") X(float, "float32")                  \
  X(double, "float64") X(Kokkos::complex<float>, "complex64")                                \
  X(Kokkos::complex<double>, "complex128") X(bool, "bool") KP_TEST_FLOAT16(X)
// clang-format on

// Every dtype, ranks 1..8, one layout: <dtype>_<rank>_<layout>.
template <class Layout, class Module>
void register_matrix(Module &m) {
#define KP_TEST_X(T, NAME) register_ranks<T, Layout, 1>(m, NAME);
  KP_TEST_DTYPES(KP_TEST_X)
#undef KP_TEST_X
}

// DynRankView of every dtype and layout: drv_<dtype>_<layout>.
template <class Module>
void register_dyn_rank(Module &m) {
#define KP_TEST_X(T, NAME)                                                                                \
  register_view<Kokkos::DynRankView<T, Kokkos::LayoutRight, Kokkos::HostSpace>>(m, "drv_" NAME "_right"); \
  register_view<Kokkos::DynRankView<T, Kokkos::LayoutLeft, Kokkos::HostSpace>>(m, "drv_" NAME "_left");   \
  register_view<Kokkos::DynRankView<T, Kokkos::LayoutStride, Kokkos::HostSpace>>(m, "drv_" NAME "_stride");
  KP_TEST_DTYPES(KP_TEST_X)
#undef KP_TEST_X
}

}  // namespace kp_test
