# FindKokkosInstall.cmake: find an installed Kokkos and provide the target
# kokkos_python::kokkos for the bridge to link.
#
# Order:
#  0. KOKKOS_PYTHON_KOKKOS_PACKAGE_DIR, when set: that CMake package and no
#     other (the package's own Kokkos, InternalKokkos.cmake);
#  1. Kokkos' own CMake package (Kokkos_ROOT, CMAKE_PREFIX_PATH, system),
#     used as is when its include directories exist;
#  2. otherwise (Debian 12's libtrilinos-kokkos-dev ships a config naming
#     /usr/lib/include and mpicxx, neither of which exists; Debian sid's
#     libkokkos-dev 5.2.2 one naming libkokkosalgorithms.a and
#     libkokkossimd.a, which it does not ship) find Kokkos_Core.hpp and the
#     kokkoscore library directly.
# Two things found there are not a Kokkos to build against: the forwarding
# layout an earlier install of this package put in site-packages
# (PykokkosLayout.cmake), and the Kokkos an earlier install brought inside
# the package (its lib/cmake/Kokkos holds kokkos_python_internal.txt): pip
# removes both with that install, so the search looks past them.
# Sets KokkosInstall_FOUND, KOKKOS_PYTHON_KOKKOS_VERSION and
# KOKKOS_PYTHON_KOKKOS_SOURCE; with REQUIRED, a Kokkos not found is an error
# naming every way to get one.

if(TARGET kokkos_python::kokkos)
  set(KokkosInstall_FOUND TRUE)
  return()
endif()
set(KokkosInstall_FOUND FALSE)

# kokkos_python_cxx_standard(<KokkosCore_config.h> <out>): the C++ standard
# that Kokkos was built with (its KOKKOS_ENABLE_CXX<N>), at least 17: what
# the bridge and every C++ module built against it must use (Kokkos 5 needs
# C++20; Debian 12's 3.4 says 14, and nanobind needs 17).
function(kokkos_python_cxx_standard config out)
  set(_std 17)
  if(EXISTS "${config}")
    file(STRINGS "${config}" _lines REGEX "^#define KOKKOS_ENABLE_CXX[0-9]+")
    foreach(_line IN LISTS _lines)
      if(_line MATCHES "^#define KOKKOS_ENABLE_CXX([0-9]+)" AND CMAKE_MATCH_1 GREATER _std)
        set(_std ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endif()
  set(${out} ${_std} PARENT_SCOPE)
endfunction()

# _kp_missing_imported_files(<package dir> <out>): the files the imported
# targets of the Kokkos CMake package in <package dir> name that do not
# exist. CMake's generated KokkosTargets.cmake stops the configure (a fatal
# error, even with QUIET) when one is missing, so this reads the files
# before the package is loaded.
function(_kp_missing_imported_files dir out)
  set(_missing)
  if(EXISTS "${dir}/KokkosTargets.cmake")
    # _IMPORT_PREFIX: the package directory, one level up per line
    get_filename_component(_prefix "${dir}/KokkosTargets.cmake" PATH)
    file(STRINGS "${dir}/KokkosTargets.cmake" _ups REGEX "get_filename_component\\(_IMPORT_PREFIX \"\\\${_IMPORT_PREFIX}\" PATH\\)")
    foreach(_up IN LISTS _ups)
      get_filename_component(_prefix "${_prefix}" PATH)
    endforeach()
    file(GLOB _configs "${dir}/KokkosTargets-*.cmake")
    foreach(_config IN LISTS _configs)
      file(STRINGS "${_config}" _checks REGEX "^list\\(APPEND _(cmake_import_check_files_for|IMPORT_CHECK_FILES_FOR)_")
      foreach(_check IN LISTS _checks)
        string(REGEX MATCHALL "\"[^\"]+\"" _files "${_check}")
        foreach(_file IN LISTS _files)
          string(REPLACE "\"" "" _file "${_file}")
          string(REPLACE "\${_IMPORT_PREFIX}" "${_prefix}" _file "${_file}")
          if(NOT EXISTS "${_file}")
            list(APPEND _missing "${_file}")
          endif()
        endforeach()
      endforeach()
    endforeach()
  endif()
  set(${out} "${_missing}" PARENT_SCOPE)
endfunction()

# _kp_find_kokkos_package(): find_package(Kokkos CONFIG QUIET), except that
# a package naming files it does not have is located (by its version file,
# which sets nothing else) and left unloaded: Kokkos_FOUND is then FALSE.
macro(_kp_find_kokkos_package)
  find_package(Kokkos CONFIG QUIET CONFIGS KokkosConfigVersion.cmake)
  set(_kp_missing)
  if(Kokkos_FOUND)
    _kp_missing_imported_files("${Kokkos_DIR}" _kp_missing)
  endif()
  set(Kokkos_FOUND FALSE)
  if(_kp_missing)
    list(JOIN _kp_missing ", " _kp_missing_text)
    message(STATUS "kokkos-python: the Kokkos CMake package at ${Kokkos_DIR} names files it does not ship "
                   "(${_kp_missing_text}; so does Debian sid's libkokkos-dev 5.2.2); finding Kokkos by its files instead")
  else()
    find_package(Kokkos CONFIG QUIET)
  endif()
endmacro()

# ---- 0 and 1: a CMake package -------------------------------------------------
set(_kp_usable FALSE)
if(KOKKOS_PYTHON_KOKKOS_PACKAGE_DIR)
  if(TARGET Kokkos::kokkos)
    message(FATAL_ERROR "kokkos-python: the Kokkos CMake package at ${Kokkos_DIR} was found but cannot be used (see "
                        "above), and its targets stand in the way of the package's own Kokkos: repair or remove it, or "
                        "point the build at a working one with Kokkos_ROOT")
  endif()
  unset(Kokkos_DIR CACHE)
  find_package(Kokkos CONFIG REQUIRED PATHS "${KOKKOS_PYTHON_KOKKOS_PACKAGE_DIR}" NO_DEFAULT_PATH)
  set(_kp_usable TRUE)
else()
  _kp_find_kokkos_package()
  if(Kokkos_FOUND AND EXISTS "${Kokkos_DIR}/kokkos_python_internal.txt")
    message(STATUS "kokkos-python: ${Kokkos_DIR} is the Kokkos an earlier install of this package brought; looking past it")
    get_filename_component(_kp_old_prefix "${Kokkos_DIR}/../../.." ABSOLUTE)
    list(APPEND CMAKE_IGNORE_PREFIX_PATH "${_kp_old_prefix}")
    list(APPEND CMAKE_IGNORE_PATH "${_kp_old_prefix}/include/kokkos" "${_kp_old_prefix}/lib")
    unset(Kokkos_DIR CACHE)
    set(Kokkos_FOUND FALSE)
    if(NOT CMAKE_VERSION VERSION_LESS 3.23) # CMAKE_IGNORE_PREFIX_PATH
      _kp_find_kokkos_package()
    endif()
  endif()
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
endif()

if(_kp_usable)
  add_library(kokkos_python::kokkos INTERFACE IMPORTED)
  target_link_libraries(kokkos_python::kokkos INTERFACE Kokkos::kokkos)
  set(KOKKOS_PYTHON_KOKKOS_SOURCE "CMake package ${Kokkos_DIR}")
  # major.minor.patch as numbers (Kokkos 3.4's package says 3.4.01)
  set(KOKKOS_PYTHON_KOKKOS_VERSION "${Kokkos_VERSION}")
  if(NOT KOKKOS_PYTHON_KOKKOS_VERSION)
    set(KOKKOS_PYTHON_KOKKOS_VERSION "${Kokkos_VERSION_MAJOR}.${Kokkos_VERSION_MINOR}.${Kokkos_VERSION_PATCH}")
  endif()
  if(KOKKOS_PYTHON_KOKKOS_VERSION MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)")
    math(EXPR _kp_major "${CMAKE_MATCH_1}")
    math(EXPR _kp_minor "${CMAKE_MATCH_2}")
    math(EXPR _kp_patch "${CMAKE_MATCH_3}")
    set(KOKKOS_PYTHON_KOKKOS_VERSION "${_kp_major}.${_kp_minor}.${_kp_patch}")
  endif()
  set(KokkosInstall_FOUND TRUE)
  return()
endif()

# ---- 2: the files -------------------------------------------------------------
set(_kp_hints)
foreach(_root IN ITEMS "${Kokkos_ROOT}" "$ENV{Kokkos_ROOT}" "$ENV{KOKKOS_ROOT}")
  if(_root)
    list(APPEND _kp_hints "${_root}")
  endif()
endforeach()

# This package's own pykokkos layout (PykokkosLayout.cmake: forwarding
# headers and linker scripts in site-packages/include/kokkos and lib, or the
# Kokkos_Core.hpp in front of its own Kokkos) is not a Kokkos: a reinstall
# into an environment that has it (scikit-build-core puts site-packages on
# CMAKE_PREFIX_PATH) must look past it.
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
  # Not cached as NOTFOUND: a later configure (after installing a Kokkos)
  # searches again.
  unset(KOKKOS_PYTHON_INCLUDE_DIR CACHE)
  unset(KOKKOS_PYTHON_CORE_LIBRARY CACHE)
  if(KokkosInstall_FIND_REQUIRED)
    message(FATAL_ERROR
      "kokkos-python: no Kokkos found. Any one of these gives the build one:\n"
      "  - your own Kokkos (shared libraries): Kokkos_ROOT=/path/to/kokkos/install pip install .\n"
      "  - the distribution's: apt-get install libtrilinos-kokkos-dev (Debian 12; libkokkos-dev where offered)\n"
      "  - the package's own, built from a Kokkos source: pip install . -Ccmake.define.ENABLE_INTERNAL_KOKKOS=ON\n"
      "    (docs/building.md, \"The package's own Kokkos\")\n"
      "${KOKKOS_PYTHON_NO_INTERNAL_KOKKOS_REASON}")
  endif()
  return()
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
kokkos_python_cxx_standard("${KOKKOS_PYTHON_INCLUDE_DIR}/KokkosCore_config.h" _kp_std)
add_library(kokkos_python::kokkos INTERFACE IMPORTED)
target_include_directories(kokkos_python::kokkos INTERFACE "${KOKKOS_PYTHON_INCLUDE_DIR}")
target_compile_features(kokkos_python::kokkos INTERFACE cxx_std_${_kp_std})
target_link_libraries(kokkos_python::kokkos INTERFACE "${KOKKOS_PYTHON_CORE_LIBRARY}" ${CMAKE_DL_LIBS})
if(_kp_openmp)
  find_package(OpenMP REQUIRED COMPONENTS CXX)
  target_link_libraries(kokkos_python::kokkos INTERFACE OpenMP::OpenMP_CXX)
endif()
set(KOKKOS_PYTHON_KOKKOS_SOURCE "files: ${KOKKOS_PYTHON_INCLUDE_DIR}, ${KOKKOS_PYTHON_CORE_LIBRARY}")
set(KokkosInstall_FOUND TRUE)
