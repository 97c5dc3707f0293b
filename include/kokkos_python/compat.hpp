// compat.hpp: every Kokkos-version difference the public headers meet, in
// one place, each with the Kokkos version it belongs to. The other headers
// spell no KOKKOS_VERSION check; they use the names below.
//
// Supported: Kokkos 3.4 to 5.2 and develop (4.7's View on mdspan; 5.0
// requires C++20), compiled as C++14 (Kokkos 3.x), C++17 or C++20.
#ifndef KOKKOS_PYTHON_COMPAT_HPP
#define KOKKOS_PYTHON_COMPAT_HPP

#include <Kokkos_Core.hpp>
#include <Kokkos_DynRankView.hpp>

#include <cstddef>
#include <new>
#include <type_traits>

// The View implementation: Kokkos 4.7 (develop from 4.6.99) rebuilt View on
// mdspan; -DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON keeps the View of 3.x-4.6.
#if KOKKOS_VERSION >= 40699 && !defined(KOKKOS_ENABLE_IMPL_VIEW_LEGACY)
#define KOKKOS_PYTHON_COMPAT_MDSPAN_VIEW 1
#endif

// The mdspan DynRankView, made from a View of lower rank with LayoutRight,
// takes that View's row pitch (its padded stride) as the pitch of its own
// rank-7 View, and so indexes the wrong elements. Made from a rank-7 View
// with the extra extents 1 and its runtime rank, it is right; Kokkos before
// 4.7 has no such constructor (and no padded stride).
#if defined(KOKKOS_PYTHON_COMPAT_MDSPAN_VIEW)
#define KOKKOS_PYTHON_COMPAT_DYN_RANK_FROM_RANK7 1
#endif

// GCC before 13 zero-fills a default-constructed mdspan View, clearing the
// reference-count tracker's "no record" flag that its constructor had set
// (the empty accessor shares the data handle's address through
// [[no_unique_address]]; Kokkos issue 7464). Destroying or assigning such a
// View then dereferences a null record. nvcc's front end takes another path
// in Kokkos (no [[no_unique_address]]), and Clang is not affected.
#if defined(KOKKOS_PYTHON_COMPAT_MDSPAN_VIEW) && defined(__GNUC__) && !defined(__clang__) && !defined(__NVCC__) && \
    __GNUC__ < 13
#define KOKKOS_PYTHON_COMPAT_REPAIR_DEFAULT_VIEW 1
#endif

// CUDA 13's device compiler lays out a kernel argument whose type holds a
// [[no_unique_address]] member (the mdspan View of Kokkos 4.7 / develop,
// C++20, and so every functor holding a View) without the tail padding the
// host compiler keeps: the kernel reads its Views' addresses and extents,
// and its policy's range, at the wrong offsets, and silently does nothing
// or faults. Measured with CUDA 13.0 and Kokkos develop (4.6.99): a functor
// of two View<double*, CudaSpace> is 80 bytes on the host and a 64-byte
// kernel argument. A Kokkos whose mdspan uses no [[no_unique_address]] under
// nvcc (cmake/kokkos_cuda13.py, docs/cuda.md) is right; this refuses to
// compile against one that does, rather than let kernels go wrong at run
// time. KOKKOS_PYTHON_TRUST_NVCC_NO_UNIQUE_ADDRESS skips the check (for a
// CUDA whose compiler lays these arguments out right).
#if defined(KOKKOS_PYTHON_COMPAT_MDSPAN_VIEW) && defined(__NVCC__) && defined(__CUDACC_VER_MAJOR__) && \
    __CUDACC_VER_MAJOR__ >= 13 && defined(MDSPAN_IMPL_USE_ATTRIBUTE_NO_UNIQUE_ADDRESS) &&              \
    !defined(MDSPAN_IMPL_USE_FAKE_ATTRIBUTE_NO_UNIQUE_ADDRESS) && !defined(KOKKOS_PYTHON_TRUST_NVCC_NO_UNIQUE_ADDRESS)
#error \
    "kokkos_python: this Kokkos' View uses [[no_unique_address]] under nvcc 13, whose kernel arguments then differ from the host's layout (kernels read wrong Views); rebuild Kokkos with cmake/kokkos_cuda13.py's mdspan change (docs/cuda.md)"
#endif

namespace kokkos_python {
namespace compat {

// The alignment the Aligned memory trait promises, in bytes. Kokkos 3.4 to
// 4.6 spell it KOKKOS_MEMORY_ALIGNMENT; 4.7 deprecates that macro (it
// expands to a statement carrying [[deprecated]], no longer an expression)
// and 5.0 removes it. Kokkos::Impl::MEMORY_ALIGNMENT is the value View's own
// Aligned check reads in every version from 3.4 to develop, and Kokkos has
// no public spelling of it that is not deprecated.
constexpr std::size_t memory_alignment = static_cast<std::size_t>(Kokkos::Impl::MEMORY_ALIGNMENT);

// The namespaces that Kokkos moved its spaces into from Kokkos::Experimental:
// the HIP spaces and execution space are Kokkos' from 4.0 on, the SYCL
// memory spaces from 4.5 on (Kokkos::Experimental is there in every version).
#if KOKKOS_VERSION >= 40000
namespace hip = ::Kokkos;
#else
namespace hip = ::Kokkos::Experimental;
#endif
#if KOKKOS_VERSION >= 40500
namespace sycl = ::Kokkos;
#else
namespace sycl = ::Kokkos::Experimental;
#endif

}  // namespace compat
}  // namespace kokkos_python

// ---- the Kokkos type of each memory space -----------------------------------------

// KOKKOS_PYTHON_COMPAT_IF_<backend>(...): its arguments where this Kokkos
// has the backend (its memory spaces), nothing where it has not. HBW is
// Kokkos 3.x's HBWSpace (memkind), a host space of its own option.
#if defined(KOKKOS_ENABLE_CUDA)
#define KOKKOS_PYTHON_COMPAT_IF_CUDA(...) __VA_ARGS__
#else
#define KOKKOS_PYTHON_COMPAT_IF_CUDA(...)
#endif
#if defined(KOKKOS_ENABLE_HBWSPACE)
#define KOKKOS_PYTHON_COMPAT_IF_HBW(...) __VA_ARGS__
#else
#define KOKKOS_PYTHON_COMPAT_IF_HBW(...)
#endif
#if defined(KOKKOS_ENABLE_HIP)
#define KOKKOS_PYTHON_COMPAT_IF_HIP(...) __VA_ARGS__
#else
#define KOKKOS_PYTHON_COMPAT_IF_HIP(...)
#endif
#if defined(KOKKOS_ENABLE_OPENMPTARGET)
#define KOKKOS_PYTHON_COMPAT_IF_OPENMPTARGET(...) __VA_ARGS__
#else
#define KOKKOS_PYTHON_COMPAT_IF_OPENMPTARGET(...)
#endif
#if defined(KOKKOS_ENABLE_SYCL)
#define KOKKOS_PYTHON_COMPAT_IF_SYCL(...) __VA_ARGS__
#else
#define KOKKOS_PYTHON_COMPAT_IF_SYCL(...)
#endif

// The Kokkos type of each memory space of tables.h's KOKKOS_PYTHON_SPACE_ROWS
// that this Kokkos has, X(id, type) by the row's id: the one table of them,
// which kokkos_python.hpp (space_of) and the package's bridge both read. A
// new memory space is its row there and its line here.
#define KOKKOS_PYTHON_COMPAT_SPACE_TYPES(X)                                                             \
  X(HOST, ::Kokkos::HostSpace)                                                                          \
  KOKKOS_PYTHON_COMPAT_IF_CUDA(X(CUDA, ::Kokkos::CudaSpace) X(CUDA_UVM, ::Kokkos::CudaUVMSpace)         \
                                   X(CUDA_HOST_PINNED, ::Kokkos::CudaHostPinnedSpace))                  \
  KOKKOS_PYTHON_COMPAT_IF_HBW(X(HBW, ::Kokkos::Experimental::HBWSpace))                                 \
  KOKKOS_PYTHON_COMPAT_IF_HIP(X(HIP, ::kokkos_python::compat::hip::HIPSpace)                            \
                                  X(HIP_HOST_PINNED, ::kokkos_python::compat::hip::HIPHostPinnedSpace)) \
  KOKKOS_PYTHON_COMPAT_IF_OPENMPTARGET(X(OPENMP_TARGET, ::Kokkos::Experimental::OpenMPTargetSpace))     \
  KOKKOS_PYTHON_COMPAT_IF_SYCL(X(SYCL_SHARED_USM, ::kokkos_python::compat::sycl::SYCLSharedUSMSpace)    \
                                   X(SYCL_DEVICE_USM, ::kokkos_python::compat::sycl::SYCLDeviceUSMSpace))

namespace kokkos_python {
namespace compat {

// Whether a View type counts references to its memory (is not Unmanaged).
// ViewTraits::is_managed, which Kokkos 3.x and 4.x offer, is gone in 5.0;
// the memory trait it was made from is there in every version.
template <class ViewT>
struct is_managed : std::integral_constant<bool, !ViewT::traits::memory_traits::is_unmanaged> {};

namespace detail {
template <class ViewT>
ViewT view_with_tracker(const ViewT &arg_raw, const Kokkos::Impl::SharedAllocationTracker &, std::false_type) {
  return arg_raw;  // an Unmanaged View type has no reference count to share
}
template <class ViewT>
ViewT view_with_tracker(const ViewT &arg_raw, const Kokkos::Impl::SharedAllocationTracker &arg_track, std::true_type) {
#if defined(KOKKOS_PYTHON_COMPAT_MDSPAN_VIEW)
  // mdspan View: a reference-counted data handle and the mapping
  return ViewT(typename ViewT::data_handle_type(arg_track, arg_raw.data()), arg_raw.mapping());
#else
  // legacy View: the tracker and the mapping
  return ViewT(arg_track, arg_raw.impl_map());
#endif
}
}  // namespace detail

// A View of arg_raw's memory and shape that shares arg_track's reference
// count (the allocation record it tracks lives while the View does); for an
// Unmanaged View type, arg_raw itself. Kokkos has no public constructor for
// this (a View over memory with a custom deleter), so it takes the View's
// Impl constructor, which each View implementation spells differently.
template <class ViewT>
ViewT view_with_tracker(const ViewT &arg_raw, const Kokkos::Impl::SharedAllocationTracker &arg_track) {
  return detail::view_with_tracker(arg_raw, arg_track, is_managed<ViewT>{});
}

#if defined(KOKKOS_PYTHON_COMPAT_REPAIR_DEFAULT_VIEW)
namespace detail {
template <class ViewT>
void repair_default_view(ViewT &, std::false_type) noexcept {}  // Unmanaged: no tracker
template <class ViewT>
void repair_default_view(ViewT &arg_view, std::true_type) noexcept {
  using tracker = Kokkos::Impl::SharedAllocationTracker;
  auto &track = const_cast<tracker &>(arg_view.impl_track());
  // A tracker without a record owns nothing: constructing it anew only
  // restores the flag.
  if (!track.has_record()) new (&track) tracker();
}
}  // namespace detail
#endif

// Call on a View made by its default constructor before it is assigned or
// destroyed: undoes GCC 12's zero-fill (above); does nothing elsewhere.
template <class D, class... P>
void repair_default_view(Kokkos::View<D, P...> &arg_view) noexcept {
#if defined(KOKKOS_PYTHON_COMPAT_REPAIR_DEFAULT_VIEW)
  using view_type = Kokkos::View<D, P...>;
  detail::repair_default_view(arg_view, is_managed<view_type>{});
#else
  (void)arg_view;
#endif
}
template <class D, class... P>
void repair_default_view(Kokkos::DynRankView<D, P...> &arg_view) noexcept {
#if defined(KOKKOS_PYTHON_COMPAT_REPAIR_DEFAULT_VIEW)
  // The mdspan DynRankView is a View of rank 7 underneath (a private base
  // class, which only a C-style cast may name).
  repair_default_view((Kokkos::View<D *******, P...> &)arg_view);
#else
  (void)arg_view;
#endif
}

}  // namespace compat
}  // namespace kokkos_python

// The label argument of SharedAllocationRecord's constructor, which Kokkos
// takes from 3.6 on (3.4 and 3.5 read the label from the header alone):
// `base(header, size, dealloc KOKKOS_PYTHON_COMPAT_RECORD_LABEL(label))`.
#if KOKKOS_VERSION >= 30600
#define KOKKOS_PYTHON_COMPAT_RECORD_LABEL(LABEL) , LABEL
#else
#define KOKKOS_PYTHON_COMPAT_RECORD_LABEL(LABEL)
#endif

#endif  // KOKKOS_PYTHON_COMPAT_HPP
