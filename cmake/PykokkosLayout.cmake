# PykokkosLayout.cmake: installs, next to the kokkos package, the Kokkos
# layout the original pykokkos-base installed and pykokkos compiles its
# kernels against (pykokkos/core/cpp_setup.py): for site-packages/kokkos,
#
#   site-packages/include/kokkos/   Kokkos' headers (-isystem); KokkosCore_config.h
#                                   gives the C++ standard (-std=c++NN)
#   site-packages/lib/libkokkoscore.so, libkokkoscontainers.so   (linked by name)
#   site-packages/bin/nvcc_wrapper  (a Kokkos with CUDA)
#
# With the package's own Kokkos (InternalKokkos.cmake) these are that Kokkos'
# real files, with its CMake package in lib/cmake/Kokkos. With a Kokkos
# installed elsewhere nothing is copied: every header there is a one-line
# forwarding header that includes the Kokkos header of the same name this
# package was built with, by absolute path, and the libraries are GNU ld
# linker scripts naming the real ones. Either way Kokkos_Core.hpp there is
# this package's: it includes Kokkos' own and then this package's pybind11
# casters (kokkos_python/pybind11.hpp) when pybind11 is there, so kernels
# written against Kokkos alone take kokkos.View and
# kokkos.KokkosExecutionSpace_<Backend> objects through pybind11's
# obj.cast<Kokkos::View<...>>() and obj.cast<Kokkos::Serial>().
# docs/pykokkos.md says why this layout and not pybind11's type registry.
#
# Needs KP_CFG_KOKKOS_INCLUDE_DIR and KP_CFG_KOKKOS_LIBRARY (KokkosPythonPackage.cmake).

set(_kp_layout "${CMAKE_CURRENT_BINARY_DIR}/pykokkos_layout")
file(REMOVE_RECURSE "${_kp_layout}")

# _kp_write_core_front(<file> <include>): the Kokkos_Core.hpp of the layout,
# which includes <include> (Kokkos' own) and then, for code that uses
# pybind11 and none of this package's headers, the casters. From
# site-packages/include/kokkos/ the casters are in ../../kokkos/include/.
function(_kp_write_core_front file real)
  file(WRITE "${file}"
"// Kokkos_Core.hpp (kokkos-python's pykokkos layout): Kokkos' own
// Kokkos_Core.hpp, then, for code that uses pybind11, kokkos-python's
// casters, so bound functions take kokkos.View objects as Kokkos::View and
// kokkos.KokkosExecutionSpace_<Backend> objects as execution-space
// instances. Code that includes kokkos_python's own headers gets what they
// bring; define KOKKOS_PYTHON_NO_CASTERS to leave the casters out.
#include \"${real}\"
#if !defined(KOKKOS_PYTHON_NO_CASTERS) && !defined(KOKKOS_PYTHON_HPP)
#if defined(PYBIND11_VERSION_MAJOR)
#include \"../../kokkos/include/kokkos_python/pybind11.hpp\"
#elif defined(__has_include)
#if __has_include(<pybind11/pybind11.h>) && __has_include(<Python.h>)
#include \"../../kokkos/include/kokkos_python/pybind11.hpp\"
#endif
#endif
#endif
")
endfunction()

# ---- the package's own Kokkos: its files ----
if(KOKKOS_PYTHON_INTERNAL_KOKKOS)
  set(_kp_own "${KOKKOS_PYTHON_INTERNAL_KOKKOS_PREFIX}")
  # Kokkos' Kokkos_Core.hpp moves to include/kokkos/kokkos_python_core/.
  install(DIRECTORY "${_kp_own}/include/kokkos/" DESTINATION include/kokkos PATTERN Kokkos_Core.hpp EXCLUDE)
  install(FILES "${_kp_own}/include/kokkos/Kokkos_Core.hpp" DESTINATION include/kokkos/kokkos_python_core)
  _kp_write_core_front("${_kp_layout}/include/kokkos/Kokkos_Core.hpp" "kokkos_python_core/Kokkos_Core.hpp")
  install(FILES "${_kp_layout}/include/kokkos/Kokkos_Core.hpp" DESTINATION include/kokkos)
  install(DIRECTORY "${_kp_own}/lib/" DESTINATION lib USE_SOURCE_PERMISSIONS)
  # Its libraries have names of their own (libkokkoscore-<tag>.so,
  # InternalKokkos.cmake); -lkokkoscore and pykokkos link lib/libkokkoscore.so,
  # a GNU ld script naming the real file beside it (ld finds it there).
  if(KOKKOS_PYTHON_INTERNAL_KOKKOS_TAG)
    file(GLOB _kp_tagged RELATIVE "${_kp_own}/lib" "${_kp_own}/lib/libkokkos*-${KOKKOS_PYTHON_INTERNAL_KOKKOS_TAG}.so")
    foreach(_kp_real IN LISTS _kp_tagged)
      string(REPLACE "-${KOKKOS_PYTHON_INTERNAL_KOKKOS_TAG}.so" ".so" _kp_link "${_kp_real}")
      file(WRITE "${_kp_layout}/lib/${_kp_link}"
           "/* GNU ld script (kokkos-python): the package's own Kokkos library, ${_kp_real} beside it. */\n"
           "INPUT(${_kp_real})\n")
      install(FILES "${_kp_layout}/lib/${_kp_link}" DESTINATION lib)
    endforeach()
  endif()
  # KOKKOS_PYTHON_BUNDLE_OPENMP_RUNTIME (scripts/wheel.sh): the compiler's
  # OpenMP runtime, libgomp.so.1, under that very name in lib/, where the
  # run path of Kokkos and of the core finds it. Its soname is the one every
  # module compiled with -fopenmp asks for, so the loader hands such modules
  # the runtime already loaded: one OpenMP runtime in the process, whether
  # the machine has a libgomp of its own or none (docs/building.md).
  if(KOKKOS_PYTHON_BUNDLE_OPENMP_RUNTIME AND EXISTS "${_kp_own}/include/kokkos/KokkosCore_config.h")
    file(STRINGS "${_kp_own}/include/kokkos/KokkosCore_config.h" _kp_own_omp REGEX "^#define KOKKOS_ENABLE_OPENMP$")
    if(_kp_own_omp)
      execute_process(COMMAND "${CMAKE_CXX_COMPILER}" -print-file-name=libgomp.so.1
                      OUTPUT_VARIABLE _kp_gomp OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(NOT IS_ABSOLUTE "${_kp_gomp}" OR NOT EXISTS "${_kp_gomp}")
        message(FATAL_ERROR "kokkos-python: KOKKOS_PYTHON_BUNDLE_OPENMP_RUNTIME=ON, but ${CMAKE_CXX_COMPILER} "
                            "names no libgomp.so.1 (-print-file-name gave '${_kp_gomp}')")
      endif()
      file(REAL_PATH "${_kp_gomp}" _kp_gomp)
      install(FILES "${_kp_gomp}" DESTINATION lib RENAME libgomp.so.1)
      message(STATUS "kokkos-python: bundling the OpenMP runtime ${_kp_gomp} as lib/libgomp.so.1")
    endif()
  endif()
  if(IS_DIRECTORY "${_kp_own}/bin")
    install(DIRECTORY "${_kp_own}/bin/" DESTINATION bin USE_SOURCE_PERMISSIONS)
  endif()
  # Marks the CMake package as this package's own, so that a later build of
  # the package looks past it (FindKokkosInstall.cmake).
  file(WRITE "${_kp_layout}/kokkos_python_internal.txt"
       "This Kokkos came with pykokkos-base (the kokkos Python package) and is removed with it.\n"
       "Other projects may build against it (find_package(Kokkos)); a build of pykokkos-base looks past it.\n")
  install(FILES "${_kp_layout}/kokkos_python_internal.txt" DESTINATION lib/cmake/Kokkos)
  message(STATUS "kokkos-python: pykokkos layout: the package's own Kokkos (include/kokkos, lib, bin)")
  return()
endif()

if(NOT KP_CFG_KOKKOS_INCLUDE_DIR OR NOT EXISTS "${KP_CFG_KOKKOS_INCLUDE_DIR}/Kokkos_Core.hpp" OR NOT KP_CFG_KOKKOS_LIBRARY)
  message(STATUS "kokkos-python: no pykokkos layout (Kokkos' include directory or library not known)")
  return()
endif()

# ---- a Kokkos installed elsewhere: headers: one forwarding header per Kokkos header ----
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
_kp_write_core_front("${_kp_layout}/include/kokkos/Kokkos_Core.hpp" "${_kp_inc}/Kokkos_Core.hpp")

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
