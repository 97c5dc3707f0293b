// compat.hpp: every Kokkos-version difference the public headers meet, in
// one place, each with the Kokkos version it belongs to. The other headers
// spell no KOKKOS_VERSION check; they use the names below.
//
// Supported: Kokkos 3.4 to develop (4.7's View on mdspan; 5.0 requires
// C++20), compiled as C++14 (Kokkos 3.x), C++17 or C++20.
#ifndef KOKKOS_PYTHON_COMPAT_HPP
#define KOKKOS_PYTHON_COMPAT_HPP

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace kokkos_python {
namespace compat {

// The alignment the Aligned memory trait promises, in bytes. Kokkos 3.4 to
// 4.6 spell it KOKKOS_MEMORY_ALIGNMENT; 4.7 deprecates that macro (it
// expands to a statement carrying [[deprecated]], no longer an expression)
// and 5.0 removes it. Kokkos::Impl::MEMORY_ALIGNMENT is the value View's own
// Aligned check reads in every version from 3.4 to develop, and Kokkos has
// no public spelling of it that is not deprecated.
constexpr std::size_t memory_alignment = static_cast<std::size_t>(Kokkos::Impl::MEMORY_ALIGNMENT);

// The namespace of the HIP spaces and execution space: Kokkos::Experimental
// before 4.0, Kokkos from 4.0 on.
#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
namespace hip = ::Kokkos;
#else
namespace hip = ::Kokkos::Experimental;
#endif
#endif

// The namespace of the SYCL memory spaces: Kokkos::Experimental before 4.5,
// Kokkos from 4.5 on.
#if defined(KOKKOS_ENABLE_SYCL)
#if KOKKOS_VERSION >= 40500
namespace sycl = ::Kokkos;
#else
namespace sycl = ::Kokkos::Experimental;
#endif
#endif

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
