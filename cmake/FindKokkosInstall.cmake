# FindKokkosInstall.cmake: find an installed Kokkos and provide the target
# kokkos_python::kokkos for the bridge to link.
#
# Order:
#  1. Kokkos' own CMake package (Kokkos_ROOT, CMAKE_PREFIX_PATH, system),
#     used as is when its include directories exist;
#  2. otherwise (Debian 12's libtrilinos-kokkos-dev ships a config naming
#     /usr/lib/include and mpicxx, neither of which exists) find
#     Kokkos_Core.hpp and the kokkoscore library directly.
# Sets KOKKOS_PYTHON_KOKKOS_VERSION and KOKKOS_PYTHON_KOKKOS_SOURCE.

set(_kp_usable FALSE)
find_package(Kokkos CONFIG QUIET)
if(Kokkos_FOUND AND TARGET Kokkos::kokkos)
  set(_kp_usable TRUE)
  get_target_property(_kp_incs Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
  if(_kp_incs)
    foreach(_dir IN LISTS _kp_incs)
      if(NOT _dir MATCHES "^\\$<" AND NOT EXISTS "${_dir}")
        set(_kp_usable FALSE)
        message(STATUS "kokkos-python: Kokkos CMake package at ${Kokkos_DIR} names a missing include directory ${_dir}; finding Kokkos by its files instead")
      endif()
    endforeach()
  endif()
  if(_kp_usable AND DEFINED Kokkos_CXX_COMPILER AND NOT EXISTS "${Kokkos_CXX_COMPILER}" AND NOT Kokkos_ENABLE_CUDA)
    message(STATUS "kokkos-python: Kokkos was configured with compiler ${Kokkos_CXX_COMPILER}, which is not installed; using ${CMAKE_CXX_COMPILER}")
  endif()
endif()

if(_kp_usable)
  add_library(kokkos_python::kokkos INTERFACE IMPORTED)
  target_link_libraries(kokkos_python::kokkos INTERFACE Kokkos::kokkos)
  set(KOKKOS_PYTHON_KOKKOS_SOURCE "CMake package ${Kokkos_DIR}")
  set(KOKKOS_PYTHON_KOKKOS_VERSION "${Kokkos_VERSION}")
  if(NOT KOKKOS_PYTHON_KOKKOS_VERSION)
    set(KOKKOS_PYTHON_KOKKOS_VERSION "${Kokkos_VERSION_MAJOR}.${Kokkos_VERSION_MINOR}.${Kokkos_VERSION_PATCH}")
  endif()
  return()
endif()

# ---- fallback: find the files -------------------------------------------------
set(_kp_hints)
foreach(_root IN ITEMS "${Kokkos_ROOT}" "$ENV{Kokkos_ROOT}" "$ENV{KOKKOS_ROOT}")
  if(_root)
    list(APPEND _kp_hints "${_root}")
  endif()
endforeach()

# This package's own pykokkos layout (PykokkosLayout.cmake: forwarding
# headers and linker scripts in site-packages/include/kokkos and lib) is not
# a Kokkos: a reinstall into an environment that has it (scikit-build-core
# puts site-packages on CMAKE_PREFIX_PATH) must look past it.
function(_kp_is_layout file out)
  set(_is FALSE)
  if(EXISTS "${file}" AND NOT IS_DIRECTORY "${file}")
    file(READ "${file}" _head LIMIT 200)
    if(_head MATCHES "kokkos-python's pykokkos layout")
      set(_is TRUE)
    endif()
  endif()
  set(${out} ${_is} PARENT_SCOPE)
endfunction()

foreach(_kp_try RANGE 3)
  find_path(KOKKOS_PYTHON_INCLUDE_DIR Kokkos_Core.hpp
    HINTS ${_kp_hints}
    PATH_SUFFIXES include include/trilinos trilinos kokkos)
  _kp_is_layout("${KOKKOS_PYTHON_INCLUDE_DIR}/Kokkos_Core.hpp" _kp_layout_hit)
  if(NOT _kp_layout_hit)
    break()
  endif()
  message(STATUS "kokkos-python: ${KOKKOS_PYTHON_INCLUDE_DIR} is this package's pykokkos layout, not a Kokkos; looking further")
  list(APPEND CMAKE_IGNORE_PATH "${KOKKOS_PYTHON_INCLUDE_DIR}")
  unset(KOKKOS_PYTHON_INCLUDE_DIR CACHE)
endforeach()
foreach(_kp_try RANGE 3)
  find_library(KOKKOS_PYTHON_CORE_LIBRARY
    NAMES kokkoscore trilinos_kokkoscore
    HINTS ${_kp_hints}
    PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
  _kp_is_layout("${KOKKOS_PYTHON_CORE_LIBRARY}" _kp_layout_hit)
  if(NOT _kp_layout_hit)
    break()
  endif()
  get_filename_component(_kp_layout_dir "${KOKKOS_PYTHON_CORE_LIBRARY}" DIRECTORY)
  message(STATUS "kokkos-python: ${KOKKOS_PYTHON_CORE_LIBRARY} is this package's pykokkos layout, not a Kokkos; looking further")
  list(APPEND CMAKE_IGNORE_PATH "${_kp_layout_dir}")
  unset(KOKKOS_PYTHON_CORE_LIBRARY CACHE)
endforeach()

if(NOT KOKKOS_PYTHON_INCLUDE_DIR OR NOT KOKKOS_PYTHON_CORE_LIBRARY)
  message(FATAL_ERROR
    "kokkos-python: no Kokkos found. Install one (Debian: apt-get install "
    "libtrilinos-kokkos-dev, or libkokkos-dev where offered) or point the "
    "build at yours with Kokkos_ROOT=/path/to/kokkos/install.")
endif()

file(STRINGS "${KOKKOS_PYTHON_INCLUDE_DIR}/KokkosCore_config.h" _kp_ver REGEX "#define KOKKOS_VERSION ")
string(REGEX MATCH "[0-9]+" _kp_ver "${_kp_ver}")
if(_kp_ver)
  math(EXPR _kp_major "${_kp_ver} / 10000")
  math(EXPR _kp_minor "(${_kp_ver} / 100) % 100")
  math(EXPR _kp_patch "${_kp_ver} % 100")
  set(KOKKOS_PYTHON_KOKKOS_VERSION "${_kp_major}.${_kp_minor}.${_kp_patch}")
endif()

file(STRINGS "${KOKKOS_PYTHON_INCLUDE_DIR}/KokkosCore_config.h" _kp_openmp REGEX "#define KOKKOS_ENABLE_OPENMP")
add_library(kokkos_python::kokkos INTERFACE IMPORTED)
target_include_directories(kokkos_python::kokkos INTERFACE "${KOKKOS_PYTHON_INCLUDE_DIR}")
target_link_libraries(kokkos_python::kokkos INTERFACE "${KOKKOS_PYTHON_CORE_LIBRARY}" ${CMAKE_DL_LIBS})
if(_kp_openmp)
  find_package(OpenMP REQUIRED COMPONENTS CXX)
  target_link_libraries(kokkos_python::kokkos INTERFACE OpenMP::OpenMP_CXX)
endif()
set(KOKKOS_PYTHON_KOKKOS_SOURCE "files: ${KOKKOS_PYTHON_INCLUDE_DIR}, ${KOKKOS_PYTHON_CORE_LIBRARY}")
