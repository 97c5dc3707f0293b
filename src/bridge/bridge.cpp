// bridge.cpp: the runtime half of the bridge (src/bridge/*.cpp, the only code
// of the package that includes Kokkos; the other files are capi_bridge.cpp,
// exchange_bridge.cpp, host_parallel.cpp, tools_bridge.cpp, tuning_bridge.cpp).
//
// Implements bridge.h: initialize / finalize, memory-space queries,
// allocation through each space's allocate(label, size) (so Kokkos Tools see
// every label; no allocation record, whose header a device space would copy
// to and from the device on every allocation and free),
// byte copies through Kokkos::deep_copy and strided copy / fill kernels
// run by each space's execution space. Every entry point is noexcept and
// turns exceptions into a kp_status plus a message. Kokkos-version
// differences are compat.hpp's.

#include "bridge.h"
#include "compat.hpp"
#include "guard.hpp"
#include "space_columns.hpp"

#include "kokkos_python/compat.hpp"

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kokkos_python::impl {

// ---- errors ---------------------------------------------------------------

// How many bridge calls this thread is inside: more than one means Kokkos
// called back into Python (a Kokkos Tools callback) in the middle of one.
thread_local int t_depth = 0;

struct depth_guard {
  depth_guard() noexcept { ++t_depth; }
  ~depth_guard() { --t_depth; }
  depth_guard(const depth_guard &) = delete;
  depth_guard &operator=(const depth_guard &) = delete;
};

template <class F>
kp_status guarded(kp_error *arg_err, F &&arg_f) noexcept {
  depth_guard in_bridge;
  return guarded_call(arg_err, "Kokkos raised an unknown C++ exception", arg_f);
}

// ---- memory-space dispatch ----------------------------------------------

// A memory space as a type only: constructing a Kokkos::CudaSpace needs an
// initialized Kokkos, and availability queries run before initialize.
template <class Space>
struct space_tag {
  using type = Space;
};

// The backends whose memory spaces the bridge serves: the host's, CUDA's and
// HIP's (compat.hpp). Other backends' spaces read as unavailable.
constexpr bool serves(kp_backend arg_backend) {
#if defined(KP_COMPAT_HIP)
  if (arg_backend == KP_BACKEND_HIP) return true;
#endif
  return arg_backend == KP_BACKEND_HOST || arg_backend == KP_BACKEND_CUDA;
}

// The Kokkos type of each memory space this Kokkos has and the bridge
// serves, by KP_SPACE_* (the public compat.hpp's table of types; the rest of
// a space's row is tables.h's); void otherwise. with_space and space_index
// are built from this table.
template <int Space>
struct space_type {
  using type = void;
};
#define KP_SPACE_TYPE(id, kokkos_type)                                                          \
  template <>                                                                                   \
  struct space_type<KP_SPACE_##id> {                                                            \
    using type = std::conditional_t<serves(k_space_backend[KP_SPACE_##id]), kokkos_type, void>; \
  };
KOKKOS_PYTHON_COMPAT_SPACE_TYPES(KP_SPACE_TYPE)
#undef KP_SPACE_TYPE

// The row's memory kind agrees with Kokkos: host-accessible unless DEVICE.
template <int Space>
constexpr bool row_matches_kokkos() {
  using S = typename space_type<Space>::type;
  if constexpr (std::is_void_v<S>) {
    return true;
  } else {
    return Kokkos::SpaceAccessibility<Kokkos::HostSpace, S>::accessible == (k_space_kind[Space] != KP_MEMORY_DEVICE);
  }
}
template <int... Spaces>
constexpr bool rows_match_kokkos(std::integer_sequence<int, Spaces...>) {
  return (row_matches_kokkos<Spaces>() && ...);
}
static_assert(rows_match_kokkos(std::make_integer_sequence<int, KP_SPACE_COUNT>{}),
              "a memory kind in tables.h's KOKKOS_PYTHON_SPACE_ROWS disagrees with Kokkos::SpaceAccessibility");

// Calls arg_f(space_tag<Space>{}) for the Kokkos space behind arg_space;
// returns KP_E_UNAVAILABLE when this Kokkos lacks it.
template <int Space = 0, class F>
kp_status with_space(int arg_space, kp_error *arg_err, F &&arg_f) {
  if constexpr (Space == KP_SPACE_COUNT) {
    return fail(arg_err, KP_E_UNAVAILABLE, "this memory space is not enabled in the installed Kokkos");
  } else {
    using S = typename space_type<Space>::type;
    if constexpr (!std::is_void_v<S>) {
      if (arg_space == Space) return arg_f(space_tag<S>{});
    }
    return with_space<Space + 1>(arg_space, arg_err, arg_f);
  }
}

// The KP_SPACE_* of a Kokkos memory space type, or -1.
template <class S, int Space = 0>
constexpr int space_index() {
  if constexpr (Space == KP_SPACE_COUNT) {
    return -1;
  } else if constexpr (std::is_same_v<S, typename space_type<Space>::type>) {
    return Space;
  } else {
    return space_index<S, Space + 1>();
  }
}

template <class Exec>
constexpr int exec_index() {
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) return KP_EXEC_SERIAL;
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  if constexpr (std::is_same_v<Exec, Kokkos::Threads>) return KP_EXEC_THREADS;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>) return KP_EXEC_OPENMP;
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return KP_EXEC_CUDA;
#endif
#if defined(KP_COMPAT_HIP)
  if constexpr (std::is_same_v<Exec, Kokkos::HIP>) return KP_EXEC_HIP;
#endif
  return -1;
}

// ---- finalize tracking ------------------------------------------------------

// Written by the thread that finalizes, read by any (without the GIL).
std::atomic<bool> g_finalized{false};
bool g_hook_registered = false;
void (*g_core_hook)() = nullptr;

void on_finalize() {
  g_finalized = true;
  if (g_core_hook) g_core_hook();
}

void ensure_finalize_hook() {
  if (g_hook_registered) return;
  Kokkos::push_finalize_hook(on_finalize);
  g_hook_registered = true;
}

// ---- strided kernels --------------------------------------------------------

// Element types by size; the 16-byte one only needs 8-byte alignment.
template <size_t N>
struct element;
template <>
struct element<1> {
  using type = uint8_t;
};
template <>
struct element<2> {
  using type = uint16_t;
};
template <>
struct element<4> {
  using type = uint32_t;
};
template <>
struct element<8> {
  using type = uint64_t;
};
struct pair64 {
  uint64_t lo, hi;
};
template <>
struct element<16> {
  using type = pair64;
};

struct strided_shape {
  int m_rank;
  int64_t m_extents[KP_MAX_RANK];
  int64_t m_dst[KP_MAX_RANK];
  int64_t m_src[KP_MAX_RANK];

  KOKKOS_INLINE_FUNCTION void offsets(int64_t arg_i, int64_t &arg_d, int64_t &arg_s) const {
    arg_d = 0;
    arg_s = 0;
    for (int r = m_rank - 1; r >= 0; --r) {
      const int64_t e = m_extents[r];
      const int64_t k = arg_i % e;
      arg_i /= e;
      arg_d += k * m_dst[r];
      arg_s += k * m_src[r];
    }
  }
};

template <class T>
struct copy_functor {
  strided_shape m_shape;
  T *m_dst;
  const T *m_src;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t arg_i) const {
    int64_t d, s;
    m_shape.offsets(arg_i, d, s);
    m_dst[d] = m_src[s];
  }
};

template <class T>
struct fill_functor {
  strided_shape m_shape;
  T *m_dst;
  T m_value;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t arg_i) const {
    int64_t d, s;
    m_shape.offsets(arg_i, d, s);
    m_dst[d] = m_value;
  }
};

strided_shape make_shape(int arg_rank, const int64_t *arg_extents, const int64_t *arg_dst, const int64_t *arg_src,
                         int64_t &arg_count) {
  strided_shape s{};
  s.m_rank = arg_rank;
  arg_count = 1;
  for (int r = 0; r < arg_rank; ++r) {
    s.m_extents[r] = arg_extents[r];
    s.m_dst[r] = arg_dst[r];
    s.m_src[r] = arg_src ? arg_src[r] : 0;
    arg_count *= arg_extents[r];
  }
  return s;
}

// A 2-D copy whose destination is contiguous along dimension 1 and whose
// source is contiguous along dimension 0 (a LayoutRight <-> LayoutLeft
// copy): each team moves one 32 x 32 tile through scratch memory, so both
// the reads and the writes are contiguous. Each thread first loads up to
// kp_batch elements into registers and only then stores them to scratch:
// loads issued back to back keep enough bytes in flight to reach the GPU's
// memory bandwidth (one load at a time per thread reaches about 85% on an
// H200).
constexpr int kp_tile = 32;
constexpr int kp_batch = 8;
constexpr int kp_gpu_team = kp_tile * kp_tile / kp_batch;

template <class Exec>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}

template <class Exec, class T>
struct transpose_functor {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  int64_t m_n0, m_n1, m_tiles1;
  T *m_dst;
  int64_t m_d0;  // destination stride of dimension 0 (dimension 1: 1)
  const T *m_src;
  int64_t m_s1;  // source stride of dimension 1 (dimension 0: 1)

  KOKKOS_INLINE_FUNCTION void operator()(const member_type &arg_team) const {
    T *tile = static_cast<T *>(arg_team.team_scratch(0).get_shmem(sizeof(T) * kp_tile * (kp_tile + 1)));
    const int64_t i0 = (arg_team.league_rank() / m_tiles1) * kp_tile;
    const int64_t j0 = (arg_team.league_rank() % m_tiles1) * kp_tile;
    const int ni = static_cast<int>(m_n0 - i0 < kp_tile ? m_n0 - i0 : kp_tile);
    const int nj = static_cast<int>(m_n1 - j0 < kp_tile ? m_n1 - j0 : kp_tile);
    const T *src = m_src + i0 + j0 * m_s1;  // src(i, j) at src[i + j * s1]
    T *dst = m_dst + i0 * m_d0 + j0;        // dst(i, j) at dst[i * d0 + j]
    const int rank = arg_team.team_rank(), size = arg_team.team_size();
    constexpr int count = kp_tile * kp_tile;
    // consecutive k: consecutive i (source order), then consecutive j
    // (destination order); edge tiles skip what lies outside
    for (int base = rank; base < count; base += kp_batch * size) {
      T v[kp_batch] = {};
      for (int b = 0; b < kp_batch; ++b) {
        const int k = base + b * size, ii = k % kp_tile, jj = k / kp_tile;
        if (k < count && ii < ni && jj < nj) v[b] = src[ii + jj * m_s1];
      }
      for (int b = 0; b < kp_batch; ++b) {
        const int k = base + b * size, ii = k % kp_tile, jj = k / kp_tile;
        if (k < count && ii < ni && jj < nj) tile[ii * (kp_tile + 1) + jj] = v[b];
      }
    }
    arg_team.team_barrier();
    for (int k = rank; k < count; k += size) {
      const int jj = k % kp_tile, ii = k / kp_tile;
      if (ii < ni && jj < nj) dst[ii * m_d0 + jj] = tile[ii * (kp_tile + 1) + jj];
    }
  }
};

template <class Space, size_t N>
bool try_transpose(const strided_shape &arg_shape, void *arg_dst, const void *arg_src) {
  using T = typename element<N>::type;
  using exec = typename Space::execution_space;
  const strided_shape &p = arg_shape;
  if (p.m_rank != 2 || p.m_dst[1] != 1 || p.m_src[0] != 1 || p.m_dst[0] < p.m_extents[1] ||
      p.m_src[1] < p.m_extents[0] || p.m_extents[0] < kp_tile || p.m_extents[1] < kp_tile)
    return false;
  const int64_t tiles0 = (p.m_extents[0] + kp_tile - 1) / kp_tile;
  const int64_t tiles1 = (p.m_extents[1] + kp_tile - 1) / kp_tile;
  transpose_functor<exec, T> f{
      p.m_extents[0], p.m_extents[1], tiles1, static_cast<T *>(arg_dst), p.m_dst[0], static_cast<const T *>(arg_src),
      p.m_src[1]};
  // On a GPU, teams of kp_gpu_team threads (kp_batch loads each, in one
  // batch): measured on an H200 at 3.7 TB/s for doubles, against 3.4-3.65
  // TB/s for Kokkos' automatic team size. Host backends choose their own.
  const int league = static_cast<int>(tiles0 * tiles1);
  Kokkos::TeamPolicy<exec> policy = runs_on_host<exec>() ? Kokkos::TeamPolicy<exec>(league, Kokkos::AUTO)
                                                         : Kokkos::TeamPolicy<exec>(league, kp_gpu_team);
  policy.set_scratch_size(0, Kokkos::PerTeam(sizeof(T) * kp_tile * (kp_tile + 1)));
  Kokkos::parallel_for("kokkos.deep_copy(transpose)", policy, f);
  exec().fence();
  return true;
}

template <class Space, size_t N>
kp_status run_copy(const strided_shape &arg_shape, int64_t arg_count, void *arg_dst, const void *arg_src) {
  using T = typename element<N>::type;
  using exec = typename Space::execution_space;
  if (try_transpose<Space, N>(arg_shape, arg_dst, arg_src)) return KP_OK;
  copy_functor<T> f{arg_shape, static_cast<T *>(arg_dst), static_cast<const T *>(arg_src)};
  Kokkos::parallel_for("kokkos.deep_copy(strided)", Kokkos::RangePolicy<exec, Kokkos::IndexType<int64_t>>(0, arg_count),
                       f);
  exec().fence();
  return KP_OK;
}

template <class Space, size_t N>
kp_status run_fill(const strided_shape &arg_shape, int64_t arg_count, void *arg_dst, const void *arg_value) {
  using T = typename element<N>::type;
  using exec = typename Space::execution_space;
  T value;
  std::memcpy(&value, arg_value, N);
  fill_functor<T> f{arg_shape, static_cast<T *>(arg_dst), value};
  Kokkos::parallel_for("kokkos.deep_copy(fill)", Kokkos::RangePolicy<exec, Kokkos::IndexType<int64_t>>(0, arg_count),
                       f);
  exec().fence();
  return KP_OK;
}

// Zero-fills a new allocation in a device space the way Kokkos initializes
// a View: a kernel named after the View's label, so Kokkos Tools see the
// label (a deep_copy into an unmanaged View would report an empty one).
// Kokkos' View constructor fences after it; here only spaces the host can
// read fence: in a device-only space the fill stays queued on the default
// instance's stream, which every consumer is ordered after (see
// kp_bridge_allocate).
template <class Space>
void zero_fill(void *arg_ptr, size_t arg_bytes, const char *arg_label) {
  using exec = typename Space::execution_space;
  const std::string name = std::string("Kokkos::View::initialization [") + arg_label + "]";
  const bool words = arg_bytes % sizeof(uint64_t) == 0;
  const int64_t count = static_cast<int64_t>(words ? arg_bytes / sizeof(uint64_t) : arg_bytes);
  const int64_t one = 1;
  int64_t n;
  const strided_shape shape = make_shape(1, &count, &one, nullptr, n);
  const auto policy = Kokkos::RangePolicy<exec, Kokkos::IndexType<int64_t>>(0, n);
  if (words)
    Kokkos::parallel_for(name, policy, fill_functor<uint64_t>{shape, static_cast<uint64_t *>(arg_ptr), 0});
  else
    Kokkos::parallel_for(name, policy, fill_functor<uint8_t>{shape, static_cast<uint8_t *>(arg_ptr), 0});
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space>::accessible) exec().fence();
}

template <class F>
kp_status with_element_size(size_t arg_size, kp_error *arg_err, F &&arg_f) {
  switch (arg_size) {
    case 1:
      return arg_f(std::integral_constant<size_t, 1>{});
    case 2:
      return arg_f(std::integral_constant<size_t, 2>{});
    case 4:
      return arg_f(std::integral_constant<size_t, 4>{});
    case 8:
      return arg_f(std::integral_constant<size_t, 8>{});
    case 16:
      return arg_f(std::integral_constant<size_t, 16>{});
    default:
      break;
  }
  return fail(arg_err, KP_E_ARG, "element size must be 1, 2, 4, 8 or 16 bytes");
}

// Host to host is one memmove: Kokkos' parallel host copy is slower than
// memcpy on a few cores. Other pairs go through Kokkos' copy of bytes
// between two memory spaces, Kokkos::Impl::DeepCopy, which has no public
// spelling: the public call that makes the same copy, Kokkos::deep_copy of
// two unmanaged View<char*> over the bytes (with an execution-space instance
// or without), reports a Kokkos Tools deep copy of its own, with the empty
// labels of unmanaged Views, inside the one kp_bridge_copy_bytes reports with
// the Python Views' labels: a tool would see every copy twice.
template <class D, class S>
void raw_copy(void *arg_dst, const void *arg_src, size_t arg_bytes) {
  if constexpr (std::is_same_v<D, Kokkos::HostSpace> && std::is_same_v<S, Kokkos::HostSpace>)
    std::memmove(arg_dst, arg_src, arg_bytes);
  else
    Kokkos::Impl::DeepCopy<D, S>(arg_dst, arg_src, arg_bytes);
}

// Large host allocations ask Linux for transparent huge pages, as NumPy
// does for its arrays: first touch and later streaming (MPI, copies) are
// several times faster than with 4 KiB pages. Only a hint.
void advise_huge_pages(void *arg_ptr, size_t arg_bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr size_t threshold = size_t(4) << 20;
  if (arg_bytes < threshold) return;
  const uintptr_t page = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(arg_ptr) + page - 1) & ~(page - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(arg_ptr) + arg_bytes;
  if (end > begin) madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)arg_ptr;
  (void)arg_bytes;
#endif
}

kp_status require_initialized(kp_error *arg_err) {
  if (Kokkos::is_initialized()) return KP_OK;
  return fail(arg_err, KP_E_STATE, g_finalized ? "Kokkos has been finalized" : "Kokkos is not initialized");
}

}  // namespace kokkos_python::impl

using namespace kokkos_python::impl;

// ---- runtime ------------------------------------------------------------------

extern "C" int kp_bridge_kokkos_version(void) noexcept { return KOKKOS_VERSION; }

extern "C" int kp_bridge_is_initialized(void) noexcept { return Kokkos::is_initialized() ? 1 : 0; }

extern "C" int kp_bridge_is_finalized(void) noexcept { return (kokkos_says_finalized() || g_finalized) ? 1 : 0; }

// Kokkos reads its numeric flags with std::stoi, whose only message is
// "stoi": check them first and name the argument and what it needs.
// 0 when arg_arg is fine (or not a numeric Kokkos flag), else KP_E_ARG.
static kp_status check_numeric_flag(const std::string &arg_arg, kp_error *arg_err) {
  static const char *const numeric[] = {"threads",   "num-threads", "numa",     "device",
                                        "device-id", "num-devices", "ndevices", "skip-device"};
  std::string name;
  if (arg_arg.rfind("--kokkos-", 0) == 0)
    name = arg_arg.substr(9);
  else if (k_reads_unprefixed_flags && arg_arg.rfind("--", 0) == 0)
    name = arg_arg.substr(2);
  else
    return KP_OK;
  const size_t eq = name.find('=');
  if (eq == std::string::npos) return KP_OK;
  const std::string value = name.substr(eq + 1);
  name.resize(eq);
  bool is_numeric = false;
  for (const char *n : numeric) is_numeric = is_numeric || name == n;
  if (!is_numeric) return KP_OK;
  // num-devices / ndevices take N or N,M (devices, then the one to skip).
  const bool pair = name == "num-devices" || name == "ndevices";
  bool ok = !value.empty() && value.size() < 10;
  int commas = 0;
  for (char c : value) {
    if (c == ',' && pair && ++commas == 1) continue;
    ok = ok && c >= '0' && c <= '9';
  }
  ok = ok && value.front() != ',' && value.back() != ',';
  if (ok) return KP_OK;
  char msg[sizeof(arg_err->message)];
  std::snprintf(msg, sizeof msg, "argument '%.200s': expected a non-negative integer%s after '=', got '%.100s'",
                arg_arg.c_str(), pair ? " (or N,M)" : "", value.c_str());
  return fail(arg_err, KP_E_ARG, msg);
}

namespace {
// Kokkos' OpenMP backend warns at initialize when OMP_PROC_BIND is unset.
// The OpenMP runtime read its environment when it was loaded, with this
// module, so no value set now can change how its threads are bound. Where
// the user set neither OMP_PROC_BIND nor OMP_PLACES, the binding in effect is
// none: Kokkos is shown OMP_PROC_BIND=false, which says so, for the length
// of its initialize only. Leaving a value in the environment would reach
// every child process (and any OpenMP runtime loaded later, PyTorch's): with
// `spread`, their OpenMP runtimes bind the main thread to the first core,
// and every compiler or worker they start then shares that one core.
struct ProcBindShownToKokkos {
  bool shown = false;
  ProcBindShownToKokkos() {
#if defined(KOKKOS_ENABLE_OPENMP)
    shown = !std::getenv("OMP_PROC_BIND") && !std::getenv("OMP_PLACES") && setenv("OMP_PROC_BIND", "false", 0) == 0;
#endif
  }
  ~ProcBindShownToKokkos() {
    if (shown) unsetenv("OMP_PROC_BIND");
  }
  ProcBindShownToKokkos(const ProcBindShownToKokkos &) = delete;
  ProcBindShownToKokkos &operator=(const ProcBindShownToKokkos &) = delete;
};
}  // namespace

extern "C" kp_status kp_bridge_initialize(int argc, char **argv, const kp_init_settings *arg_s,
                                          kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (kp_bridge_is_finalized())
      return fail(err, KP_E_STATE, "Kokkos was finalized and cannot be initialized again in this process");
    if (Kokkos::is_initialized()) return KP_OK;
    // Build one argv: the caller's, then flags for each setting given.
    std::vector<std::string> args;
    args.emplace_back(argc > 0 && argv && argv[0] ? argv[0] : "python");
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
    bool print_config = false;
    if (arg_s) {
      if (arg_s->num_threads > 0) args.push_back(k_threads_flag + std::to_string(arg_s->num_threads));
      if (arg_s->device_id >= 0) args.push_back("--kokkos-device-id=" + std::to_string(arg_s->device_id));
      if (arg_s->disable_warnings > 0) args.emplace_back("--kokkos-disable-warnings");
      if (arg_s->tools_libs) args.push_back(std::string(k_tools_libs_flag) + arg_s->tools_libs);
      if (arg_s->tools_args) args.push_back(std::string("--kokkos-tools-args=") + arg_s->tools_args);
      print_config = arg_s->print_configuration > 0;
    }
    for (auto &a : args)
      if (auto st = check_numeric_flag(a, err)) return st;
    std::vector<char *> cargv;
    for (auto &a : args) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    int cargc = static_cast<int>(args.size());
    {
      ProcBindShownToKokkos quiet;
      Kokkos::initialize(cargc, cargv.data());
    }
    ensure_finalize_hook();
    if (print_config) Kokkos::print_configuration(std::cout, false);
    return KP_OK;
  });
}

extern "C" kp_status kp_bridge_finalize(kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (!Kokkos::is_initialized()) return KP_OK;
    // Finalizing from a Tools callback of an allocation, a deallocation, a
    // copy or a fence would free memory and tear Kokkos down under the
    // operation still running (Kokkos aborts or frees twice).
    if (t_depth > 1)
      return fail(err, KP_E_STATE,
                  "called from inside a Kokkos operation (a Kokkos Tools callback); Kokkos cannot finalize "
                  "in the middle of an allocation, deallocation, copy or fence: finalize after it returns");
    Kokkos::finalize();
    g_finalized = true;
    return KP_OK;
  });
}

extern "C" kp_status kp_bridge_fence(const char *label, kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (auto s = require_initialized(err)) return s;
    labelled_fence(label ? label : "kokkos.fence");
    return KP_OK;
  });
}

extern "C" kp_status kp_bridge_print_configuration(int detail, char **out, kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (auto s = require_initialized(err)) return s;
    std::ostringstream os;
    Kokkos::print_configuration(os, detail != 0);
    std::string text = os.str();
    char *buf = static_cast<char *>(std::malloc(text.size() + 1));
    if (!buf) return fail(err, KP_E_NOMEM, "out of memory");
    std::memcpy(buf, text.c_str(), text.size() + 1);
    *out = buf;
    return KP_OK;
  });
}

extern "C" kp_status kp_bridge_set_finalize_hook(void (*hook)(void), kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    g_core_hook = hook;
    ensure_finalize_hook();
    return KP_OK;
  });
}

// ---- spaces -------------------------------------------------------------------

extern "C" int kp_bridge_space_available(int space) noexcept {
  return with_space(space, nullptr, [](auto) { return KP_OK; }) == KP_OK;
}

extern "C" int kp_bridge_space_host_accessible(int space) noexcept {
  return with_space(space, nullptr, [](auto s) {
           using S = typename decltype(s)::type;
           return Kokkos::SpaceAccessibility<Kokkos::HostSpace, S>::accessible ? KP_OK : KP_E_UNAVAILABLE;
         }) == KP_OK;
}

extern "C" int kp_bridge_default_memory_space(void) noexcept {
  return space_index<Kokkos::DefaultExecutionSpace::memory_space>();
}

extern "C" int kp_bridge_default_host_memory_space(void) noexcept {
  return space_index<Kokkos::DefaultHostExecutionSpace::memory_space>();
}

extern "C" int kp_bridge_execution_space_available(int exec) noexcept {
  switch (exec) {
#if defined(KOKKOS_ENABLE_SERIAL)
    case KP_EXEC_SERIAL:
      return 1;
#endif
#if defined(KOKKOS_ENABLE_THREADS)
    case KP_EXEC_THREADS:
      return 1;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    case KP_EXEC_OPENMP:
      return 1;
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    case KP_EXEC_CUDA:
      return 1;
#endif
#if defined(KOKKOS_ENABLE_HPX)
    case KP_EXEC_HPX:
      return 1;
#endif
#if defined(KOKKOS_ENABLE_HIP)
    case KP_EXEC_HIP:
      return 1;
#endif
#if defined(KOKKOS_ENABLE_SYCL)
    case KP_EXEC_SYCL:
      return 1;
#endif
#if defined(KOKKOS_ENABLE_OPENMPTARGET)
    case KP_EXEC_OPENMP_TARGET:
      return 1;
#endif
    default:
      return 0;
  }
}

extern "C" int kp_bridge_default_execution_space(void) noexcept { return exec_index<Kokkos::DefaultExecutionSpace>(); }

extern "C" int kp_bridge_default_host_execution_space(void) noexcept {
  return exec_index<Kokkos::DefaultHostExecutionSpace>();
}

// ---- memory ---------------------------------------------------------------------

// A failed allocation, in one wording for every memory space and Kokkos
// version: the label, the size and the space, then Kokkos' own reason.
static kp_status allocation_failed(kp_error *err, const char *label, size_t bytes, const char *space,
                                   const char *reason) {
  char why[sizeof(err->message)];
  std::snprintf(why, sizeof why, "%s", reason ? reason : "");
  trim_kokkos_message(why);
  char what[sizeof(err->message)];
  // Kokkos names its spaces "Host", "Cuda", ...: the package says HostSpace, CudaSpace.
  std::snprintf(what, sizeof what, "failed to allocate memory for label \"%.200s\": %zu bytes in %sSpace%s%.300s%s",
                label ? label : "", bytes, space, why[0] ? " (Kokkos: " : "", why, why[0] ? ")" : "");
  return fail(err, KP_E_NOMEM, what);
}

extern "C" kp_status kp_bridge_allocate(int space, const char *label, size_t bytes, int zero, void **out,
                                        kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (auto s = require_initialized(err)) return s;
    return with_space(space, err, [&](auto sp) -> kp_status {
      using S = typename decltype(sp)::type;
      void *p = nullptr;
      try {
        p = S().allocate(label ? label : "", bytes);
      } catch (std::exception &e) {
        // Kokkos reports a failed allocation with its own exception types,
        // which differ between versions: all of them mean "out of memory".
        return allocation_failed(err, label, bytes, S::name(), e.what());
      }
      if (!p) return allocation_failed(err, label, bytes, S::name(), nullptr);
      if constexpr (std::is_same_v<S, Kokkos::HostSpace>) advise_huge_pages(p, bytes);
      if (zero && std::is_same_v<S, Kokkos::HostSpace>) {
        std::memset(p, 0, bytes);
      } else if (zero) {
        zero_fill<S>(p, bytes, label ? label : "");
      }
      *out = p;
      return KP_OK;
    });
  });
}

extern "C" kp_status kp_bridge_deallocate(int space, const char *label, void *ptr, size_t bytes,
                                          kp_error *err) noexcept {
  // No initialized check: the core calls this from Kokkos' finalize hook,
  // while Kokkos is still alive, and never after finalize.
  return guarded(err, [&]() -> kp_status {
    return with_space(space, err, [&](auto sp) -> kp_status {
      using S = typename decltype(sp)::type;
      S().deallocate(label ? label : "", ptr, bytes);
      return KP_OK;
    });
  });
}

extern "C" int kp_bridge_tools_watching(void) noexcept { return Kokkos::Tools::profileLibraryLoaded() ? 1 : 0; }

extern "C" kp_status kp_bridge_copy_bytes(int dst_space, void *dst, const char *dst_label, int src_space,
                                          const void *src, const char *src_label, size_t bytes,
                                          kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (auto s = require_initialized(err)) return s;
    // Kokkos leaves a copy between overlapping ranges undefined and 5.2
    // forbids one onto itself: the core stages such copies (copy.c), so
    // none may arrive here.
    const uintptr_t dst_at = reinterpret_cast<uintptr_t>(dst), src_at = reinterpret_cast<uintptr_t>(src);
    if (bytes > 0 && dst_at < src_at + bytes && src_at < dst_at + bytes)
      return fail(err, KP_E_ARG, "a byte copy between overlapping ranges (the core must stage it)");
    return with_space(dst_space, err, [&](auto dsp) -> kp_status {
      return with_space(src_space, err, [&](auto ssp) -> kp_status {
        using D = typename decltype(dsp)::type;
        using S = typename decltype(ssp)::type;
        // What Kokkos::deep_copy does for contiguous Views (report, fence,
        // copy, fence), reporting the Views' labels: Kokkos would report
        // the empty labels of unmanaged Views.
        const bool report = Kokkos::Tools::profileLibraryLoaded();
        if (report)
          Kokkos::Tools::beginDeepCopy(Kokkos::Tools::make_space_handle(D::name()), dst_label ? dst_label : "", dst,
                                       Kokkos::Tools::make_space_handle(S::name()), src_label ? src_label : "", src,
                                       bytes);
        labelled_fence("kokkos.deep_copy: fence before copy");
        raw_copy<D, S>(dst, src, bytes);
        labelled_fence("kokkos.deep_copy: fence after copy");
        if (report) Kokkos::Tools::endDeepCopy();
        return KP_OK;
      });
    });
  });
}

extern "C" int kp_bridge_tools_begin_deep_copy(int dst_space, const char *dst_label, const void *dst, int src_space,
                                               const char *src_label, const void *src, uint64_t bytes) noexcept {
  int reported = 0;
  guarded(nullptr, [&]() -> kp_status {
    if (!Kokkos::Tools::profileLibraryLoaded()) return KP_OK;
    return with_space(dst_space, nullptr, [&](auto dsp) -> kp_status {
      return with_space(src_space, nullptr, [&](auto ssp) -> kp_status {
        using D = typename decltype(dsp)::type;
        using S = typename decltype(ssp)::type;
        Kokkos::Tools::beginDeepCopy(Kokkos::Tools::make_space_handle(D::name()), dst_label ? dst_label : "", dst,
                                     Kokkos::Tools::make_space_handle(S::name()), src_label ? src_label : "", src,
                                     bytes);
        reported = 1;
        return KP_OK;
      });
    });
  });
  return reported;
}

extern "C" void kp_bridge_tools_end_deep_copy(void) noexcept {
  guarded(nullptr, []() -> kp_status {
    Kokkos::Tools::endDeepCopy();
    return KP_OK;
  });
}

extern "C" kp_status kp_bridge_copy_strided(int space, size_t elem_size, int rank, const int64_t *extents, void *dst,
                                            const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                                            kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (auto s = require_initialized(err)) return s;
    if (rank < 0 || rank > KP_MAX_RANK) return fail(err, KP_E_ARG, "rank out of range");
    int64_t count;
    strided_shape shape = make_shape(rank, extents, dst_strides, src_strides, count);
    if (count == 0) return KP_OK;
    return with_space(space, err, [&](auto sp) -> kp_status {
      using S = typename decltype(sp)::type;
      return with_element_size(
          elem_size, err, [&](auto n) -> kp_status { return run_copy<S, decltype(n)::value>(shape, count, dst, src); });
    });
  });
}

extern "C" kp_status kp_bridge_fill(int space, size_t elem_size, int rank, const int64_t *extents, void *dst,
                                    const int64_t *dst_strides, const void *value, kp_error *err) noexcept {
  return guarded(err, [&]() -> kp_status {
    if (auto s = require_initialized(err)) return s;
    if (rank < 0 || rank > KP_MAX_RANK) return fail(err, KP_E_ARG, "rank out of range");
    int64_t count;
    strided_shape shape = make_shape(rank, extents, dst_strides, nullptr, count);
    if (count == 0) return KP_OK;
    return with_space(space, err, [&](auto sp) -> kp_status {
      using S = typename decltype(sp)::type;
      return with_element_size(elem_size, err, [&](auto n) -> kp_status {
        return run_fill<S, decltype(n)::value>(shape, count, dst, value);
      });
    });
  });
}
