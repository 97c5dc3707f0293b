# KokkosPythonPackage.cmake: installs what users' C and C++ modules build
# against: the CMake package kokkos_python (find_package(kokkos_python)),
# which hands them the public headers and the very Kokkos this package was
# built with, and build.json, the same facts for `python -m kokkos`.
#
# Installed under the package: kokkos/share/cmake/kokkos_python/ and
# kokkos/share/kokkos_python/build.json (headers: kokkos/include/).

# The Kokkos headers and library the core was built with, whichever way
# FindKokkosInstall found them. The package's own Kokkos (InternalKokkos.cmake)
# is read from its staged tree here; build.json and the CMake package name it
# relative to the installed package (below), so the tree can move.
set(_kp_lib_name "${CMAKE_SHARED_LIBRARY_PREFIX}kokkoscore${CMAKE_SHARED_LIBRARY_SUFFIX}")
if(KOKKOS_PYTHON_INTERNAL_KOKKOS)
  set(KP_CFG_KOKKOS_DIR "${KOKKOS_PYTHON_INTERNAL_KOKKOS_PREFIX}/lib/cmake/Kokkos")
  set(KP_CFG_KOKKOS_INCLUDE_DIR "${KOKKOS_PYTHON_INTERNAL_KOKKOS_PREFIX}/include/kokkos")
  if(KOKKOS_PYTHON_INTERNAL_KOKKOS_TAG) # its own names (InternalKokkos.cmake)
    set(_kp_lib_name "${CMAKE_SHARED_LIBRARY_PREFIX}kokkoscore-${KOKKOS_PYTHON_INTERNAL_KOKKOS_TAG}${CMAKE_SHARED_LIBRARY_SUFFIX}")
  endif()
  set(KP_CFG_KOKKOS_LIBRARY "${KOKKOS_PYTHON_INTERNAL_KOKKOS_PREFIX}/lib/${_kp_lib_name}")
elseif(KOKKOS_PYTHON_KOKKOS_SOURCE MATCHES "^CMake package")
  set(KP_CFG_KOKKOS_DIR "${Kokkos_DIR}")
  # Where the package says its headers and core library are: the include
  # directories and the imported location of its targets (Debian puts the
  # package four levels below /usr/include/kokkos; a prefix install two).
  set(KP_CFG_KOKKOS_INCLUDE_DIR "")
  set(KP_CFG_KOKKOS_LIBRARY "")
  foreach(_kp_target Kokkos::kokkoscore Kokkos::kokkos)
    if(TARGET ${_kp_target} AND NOT KP_CFG_KOKKOS_INCLUDE_DIR)
      get_target_property(_kp_incs ${_kp_target} INTERFACE_INCLUDE_DIRECTORIES)
      foreach(_kp_inc IN LISTS _kp_incs)
        if(NOT KP_CFG_KOKKOS_INCLUDE_DIR AND NOT _kp_inc MATCHES "^\\$<" AND EXISTS "${_kp_inc}/Kokkos_Core.hpp")
          set(KP_CFG_KOKKOS_INCLUDE_DIR "${_kp_inc}")
        endif()
      endforeach()
    endif()
  endforeach()
  if(TARGET Kokkos::kokkoscore)
    get_target_property(_kp_type Kokkos::kokkoscore TYPE)
    if(NOT _kp_type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(_kp_configs Kokkos::kokkoscore IMPORTED_CONFIGURATIONS)
      foreach(_kp_suffix IN LISTS _kp_configs ITEMS "")
        if(_kp_suffix)
          set(_kp_suffix "_${_kp_suffix}")
        endif()
        get_target_property(_kp_loc Kokkos::kokkoscore IMPORTED_LOCATION${_kp_suffix})
        if(NOT KP_CFG_KOKKOS_LIBRARY AND _kp_loc AND EXISTS "${_kp_loc}")
          set(KP_CFG_KOKKOS_LIBRARY "${_kp_loc}")
        endif()
      endforeach()
    endif()
  endif()
  if(NOT KP_CFG_KOKKOS_LIBRARY) # a package without Kokkos::kokkoscore: its usual places
    find_library(KP_CFG_KOKKOS_LIBRARY_FOUND NAMES kokkoscore trilinos_kokkoscore
      HINTS "${Kokkos_DIR}/../.." "${Kokkos_DIR}/.." "${Kokkos_DIR}/../../../lib" "${Kokkos_DIR}/../../../lib64"
      NO_DEFAULT_PATH)
    set(KP_CFG_KOKKOS_LIBRARY "${KP_CFG_KOKKOS_LIBRARY_FOUND}")
  endif()
else()
  set(KP_CFG_KOKKOS_DIR "")
  set(KP_CFG_KOKKOS_INCLUDE_DIR "${KOKKOS_PYTHON_INCLUDE_DIR}")
  set(KP_CFG_KOKKOS_LIBRARY "${KOKKOS_PYTHON_CORE_LIBRARY}")
endif()
if(NOT KP_CFG_KOKKOS_INCLUDE_DIR)
  set(KP_CFG_KOKKOS_INCLUDE_DIR "")
endif()
if(NOT KP_CFG_KOKKOS_LIBRARY)
  set(KP_CFG_KOKKOS_LIBRARY "")
endif()
set(KP_CFG_KOKKOS_OPENMP OFF)
if(KP_CFG_KOKKOS_INCLUDE_DIR AND EXISTS "${KP_CFG_KOKKOS_INCLUDE_DIR}/KokkosCore_config.h")
  file(STRINGS "${KP_CFG_KOKKOS_INCLUDE_DIR}/KokkosCore_config.h" _kp_cfg_omp REGEX "^#define KOKKOS_ENABLE_OPENMP$")
  if(_kp_cfg_omp)
    set(KP_CFG_KOKKOS_OPENMP ON)
  endif()
endif()
set(KP_CFG_KOKKOS_VERSION "${KOKKOS_PYTHON_KOKKOS_VERSION}")
# The C++ standard of that Kokkos, which modules built against it must use
# (build.json's cxx_standard, the CMake package's compile feature).
kokkos_python_cxx_standard("${KP_CFG_KOKKOS_INCLUDE_DIR}/KokkosCore_config.h" KP_CFG_CXX_STANDARD)

# A C++ runtime that a compiler links statically into a module or a user's
# library (one GPU machine's g++ does: -static-libstdc++) stays inside it: its
# symbols are not exported, so Kokkos' references to the C++ runtime cannot
# bind to that copy (Kokkos::initialize crashed in such a copy writing a
# number to a stream, NumPy imported first). The CMake package's targets and
# `python -m kokkos --ldflags` (build.json's link_options) pass it on.
set(KP_CFG_LINK_OPTIONS "")
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(KP_CFG_LINK_OPTIONS "--exclude-libs,libstdc++.a:libsupc++.a:libgcc.a:libgcc_eh.a")
endif()

# Where the installed package finds that Kokkos: absolute paths for a Kokkos
# installed elsewhere; for its own, paths from the package directory
# (build.json, read by kokkos._paths) and from the CMake package's prefix.
if(KOKKOS_PYTHON_INTERNAL_KOKKOS)
  set(_kp_json_internal true)
  set(_kp_json_dir "../lib/cmake/Kokkos")
  set(_kp_json_include "../include/kokkos")
  set(_kp_json_library "../lib/${_kp_lib_name}")
  set(KP_CFG_CMAKE_KOKKOS_DIR "\${_kp_prefix}/../lib/cmake/Kokkos")
  set(KP_CFG_CMAKE_KOKKOS_INCLUDE_DIR "\${_kp_prefix}/../include/kokkos")
  set(KP_CFG_CMAKE_KOKKOS_LIBRARY "\${_kp_prefix}/../lib/${_kp_lib_name}")
else()
  set(_kp_json_internal false)
  set(_kp_json_dir "${KP_CFG_KOKKOS_DIR}")
  set(_kp_json_include "${KP_CFG_KOKKOS_INCLUDE_DIR}")
  set(_kp_json_library "${KP_CFG_KOKKOS_LIBRARY}")
  set(KP_CFG_CMAKE_KOKKOS_DIR "${KP_CFG_KOKKOS_DIR}")
  set(KP_CFG_CMAKE_KOKKOS_INCLUDE_DIR "${KP_CFG_KOKKOS_INCLUDE_DIR}")
  set(KP_CFG_CMAKE_KOKKOS_LIBRARY "${KP_CFG_KOKKOS_LIBRARY}")
endif()

set(_kp_cfg_out "${CMAKE_CURRENT_BINARY_DIR}/kokkos_python_package")
configure_file(cmake/kokkos_pythonConfig.cmake.in "${_kp_cfg_out}/kokkos_pythonConfig.cmake" @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file("${_kp_cfg_out}/kokkos_pythonConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
if(KP_CFG_KOKKOS_OPENMP)
  set(_kp_cfg_json_omp true)
else()
  set(_kp_cfg_json_omp false)
endif()
set(_kp_json_link "")
if(KP_CFG_LINK_OPTIONS)
  set(_kp_json_link "\"-Wl,${KP_CFG_LINK_OPTIONS}\"")
endif()
file(WRITE "${_kp_cfg_out}/build.json"
"{
  \"version\": \"${PROJECT_VERSION}\",
  \"kokkos_version\": \"${KP_CFG_KOKKOS_VERSION}\",
  \"kokkos_internal\": ${_kp_json_internal},
  \"kokkos_dir\": \"${_kp_json_dir}\",
  \"kokkos_include_dir\": \"${_kp_json_include}\",
  \"kokkos_library\": \"${_kp_json_library}\",
  \"kokkos_openmp\": ${_kp_cfg_json_omp},
  \"cxx_standard\": ${KP_CFG_CXX_STANDARD},
  \"link_options\": [${_kp_json_link}]
}
")
install(FILES "${_kp_cfg_out}/kokkos_pythonConfig.cmake" "${_kp_cfg_out}/kokkos_pythonConfigVersion.cmake"
  DESTINATION kokkos/share/cmake/kokkos_python)
install(FILES "${_kp_cfg_out}/build.json" DESTINATION kokkos/share/kokkos_python)
