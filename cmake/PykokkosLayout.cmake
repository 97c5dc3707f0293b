# PykokkosLayout.cmake: installs, next to the kokkos package, the Kokkos
# layout the original pykokkos-base installed and pykokkos compiles its
# kernels against (pykokkos/core/cpp_setup.py): for site-packages/kokkos,
#
#   site-packages/include/kokkos/   Kokkos' headers (-isystem); KokkosCore_config.h
#                                   gives the C++ standard (-std=c++NN)
#   site-packages/lib/libkokkoscore.so, libkokkoscontainers.so   (linked by name)
#   site-packages/bin/nvcc_wrapper  (a Kokkos with CUDA)
#
# Nothing is copied: every header there is a one-line forwarding header that
# includes the Kokkos header of the same name this package was built with,
# by absolute path, and the libraries are GNU ld linker scripts naming the
# real ones. Kokkos_Core.hpp's forwarding header also brings in this
# package's pybind11 casters (kokkos_python/pybind11.hpp) when pybind11 is
# there, so kernels written against Kokkos alone take kokkos.View and
# kokkos.KokkosExecutionSpace_<Backend> objects through pybind11's
# obj.cast<Kokkos::View<...>>() and obj.cast<Kokkos::Serial>().
# docs/pykokkos.md says why this layout and not pybind11's type registry.
#
# Needs KP_CFG_KOKKOS_INCLUDE_DIR and KP_CFG_KOKKOS_LIBRARY (KokkosPythonPackage.cmake).

if(NOT KP_CFG_KOKKOS_INCLUDE_DIR OR NOT EXISTS "${KP_CFG_KOKKOS_INCLUDE_DIR}/Kokkos_Core.hpp" OR NOT KP_CFG_KOKKOS_LIBRARY)
  message(STATUS "kokkos-python: no pykokkos layout (Kokkos' include directory or library not known)")
  return()
endif()

set(_kp_layout "${CMAKE_CURRENT_BINARY_DIR}/pykokkos_layout")
file(REMOVE_RECURSE "${_kp_layout}")

# ---- headers: one forwarding header per Kokkos header ----
set(_kp_inc "${KP_CFG_KOKKOS_INCLUDE_DIR}")
file(GLOB_RECURSE _kp_headers RELATIVE "${_kp_inc}" "${_kp_inc}/*")
list(LENGTH _kp_headers _kp_count)
if(_kp_count GREATER 3000)
  # A shared include directory (/usr/include): Kokkos' own files only.
  set(_kp_kept)
  foreach(_h IN LISTS _kp_headers)
    if(_h MATCHES "^([Kk]okkos[^/]*|(impl|decl|fwd|setup|traits|View|Cuda|HIP|HPX|OpenMP|OpenMPTarget|SYCL|Serial|Threads|desul|mdspan|std_algorithms)/.*)$")
      list(APPEND _kp_kept "${_h}")
    endif()
  endforeach()
  set(_kp_headers ${_kp_kept})
endif()
foreach(_h IN LISTS _kp_headers)
  if(_h STREQUAL "Kokkos_Core.hpp")
    continue()
  endif()
  file(WRITE "${_kp_layout}/include/kokkos/${_h}"
    "// Forwarding header (kokkos-python's pykokkos layout): Kokkos' own ${_h}.\n"
    "#include \"${_kp_inc}/${_h}\"\n")
endforeach()
# From site-packages/include/kokkos/ to site-packages/kokkos/include/.
file(WRITE "${_kp_layout}/include/kokkos/Kokkos_Core.hpp"
"// Forwarding header (kokkos-python's pykokkos layout): Kokkos' own
// Kokkos_Core.hpp, then, for code that uses pybind11, kokkos-python's
// casters, so bound functions take kokkos.View objects as Kokkos::View and
// kokkos.KokkosExecutionSpace_<Backend> objects as execution-space
// instances. Define KOKKOS_PYTHON_NO_CASTERS to leave them out.
#include \"${_kp_inc}/Kokkos_Core.hpp\"
#if !defined(KOKKOS_PYTHON_NO_CASTERS) && !defined(KOKKOS_PYTHON_PYBIND11_HPP)
#if defined(PYBIND11_VERSION_MAJOR)
#include \"../../kokkos/include/kokkos_python/pybind11.hpp\"
#elif defined(__has_include)
#if __has_include(<pybind11/pybind11.h>) && __has_include(<Python.h>)
#include \"../../kokkos/include/kokkos_python/pybind11.hpp\"
#endif
#endif
#endif
")

# ---- libraries: linker scripts under the names pykokkos links ----
get_filename_component(_kp_libdir "${KP_CFG_KOKKOS_LIBRARY}" DIRECTORY)
find_library(KP_CFG_KOKKOS_CONTAINERS_LIBRARY NAMES kokkoscontainers trilinos_kokkoscontainers
  HINTS "${_kp_libdir}" NO_DEFAULT_PATH)
set(_kp_containers "${KP_CFG_KOKKOS_CONTAINERS_LIBRARY}")
if(NOT _kp_containers)
  set(_kp_containers "${KP_CFG_KOKKOS_LIBRARY}") # header-only containers: the core again is harmless
endif()
foreach(_kp_pair "kokkoscore|${KP_CFG_KOKKOS_LIBRARY}" "kokkoscontainers|${_kp_containers}")
  string(REPLACE "|" ";" _kp_pair "${_kp_pair}")
  list(GET _kp_pair 0 _kp_name)
  list(GET _kp_pair 1 _kp_real)
  file(WRITE "${_kp_layout}/lib/lib${_kp_name}.so"
    "/* GNU ld script (kokkos-python's pykokkos layout): the Kokkos library this package uses. */\n"
    "INPUT(${_kp_real})\n")
endforeach()

install(DIRECTORY "${_kp_layout}/include/kokkos" DESTINATION include)
install(DIRECTORY "${_kp_layout}/lib" DESTINATION .)

# ---- nvcc_wrapper, for a Kokkos with CUDA ----
if(Kokkos_ENABLE_CUDA OR KP_CFG_KOKKOS_CUDA)
  find_program(KP_CFG_NVCC_WRAPPER nvcc_wrapper HINTS "${_kp_inc}/../bin" "${_kp_libdir}/../bin" NO_DEFAULT_PATH)
  if(KP_CFG_NVCC_WRAPPER)
    file(WRITE "${_kp_layout}/bin/nvcc_wrapper"
      "#!/bin/sh\n# kokkos-python's pykokkos layout: Kokkos' own nvcc_wrapper.\nexec \"${KP_CFG_NVCC_WRAPPER}\" \"$@\"\n")
    install(PROGRAMS "${_kp_layout}/bin/nvcc_wrapper" DESTINATION bin)
  endif()
endif()
message(STATUS "kokkos-python: pykokkos layout with ${_kp_count} forwarding headers for ${_kp_inc}")
