# KokkosSource.cmake: where the source of the package's own Kokkos comes
# from (InternalKokkos.cmake builds it). The first of:
#
#   1. KOKKOS_PYTHON_KOKKOS_SOURCE (a CMake define or an environment
#      variable): a Kokkos source tree, or a Kokkos release tarball
#      (.tar.gz, .tgz, .tar.xz, .tar.bz2, .zip), unpacked into the build
#      directory; or the original package's source (its sdist on PyPI, as
#      a directory or the tarball itself), whose external/kokkos is used;
#   2. external/kokkos/ in this source tree, where the original package kept
#      its Kokkos (a git submodule there; .gitignore'd here);
#   3. the pinned release below, downloaded into the build directory and
#      checked against its SHA-256 (KOKKOS_PYTHON_KOKKOS_URL and
#      KOKKOS_PYTHON_KOKKOS_SHA256 name another; an empty SHA-256 skips the
#      check). KOKKOS_PYTHON_KOKKOS_DOWNLOAD=OFF never downloads.
#
# A setting that names a source wins over the directory that happens to be
# there. Without any of the three (offline, no source), the error names them
# all and the other ways to a Kokkos.
#
# kokkos_python_kokkos_source(<dir-var> <route-var> <work-dir>) sets
# <dir-var> to the source tree (it holds CMakeLists.txt and
# core/src/Kokkos_Core.hpp) and <route-var> to a sentence saying where it
# came from.

set(KOKKOS_PYTHON_KOKKOS_RELEASE "4.6.01")
set(KOKKOS_PYTHON_KOKKOS_URL
    "https://github.com/kokkos/kokkos/releases/download/${KOKKOS_PYTHON_KOKKOS_RELEASE}/kokkos-${KOKKOS_PYTHON_KOKKOS_RELEASE}.tar.gz"
    CACHE STRING "Kokkos release tarball the package's own Kokkos is built from when no source is at hand")
set(KOKKOS_PYTHON_KOKKOS_SHA256 "b9d70e4653b87a06dbb48d63291bf248058c7c7db4bd91979676ad5609bb1a3a"
    CACHE STRING "SHA-256 of KOKKOS_PYTHON_KOKKOS_URL (empty: not checked)")
option(KOKKOS_PYTHON_KOKKOS_DOWNLOAD "Download KOKKOS_PYTHON_KOKKOS_URL when no Kokkos source is at hand" ON)

# A directory is a Kokkos source tree when it has Kokkos' top CMakeLists.txt
# and its core headers.
function(_kp_is_kokkos_tree dir out)
  if(EXISTS "${dir}/CMakeLists.txt" AND EXISTS "${dir}/core/src/Kokkos_Core.hpp")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# _kp_kokkos_tree_in(<dir> <out>): <dir> itself when it is a Kokkos source
# tree, else its external/kokkos when that is one (the original package's
# source), else empty.
function(_kp_kokkos_tree_in dir out)
  set(${out} "" PARENT_SCOPE)
  foreach(_candidate "${dir}" "${dir}/external/kokkos")
    _kp_is_kokkos_tree("${_candidate}" _is)
    if(_is)
      set(${out} "${_candidate}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# _kp_unpack(<tarball> <work-dir> <dir-var>): the Kokkos tree inside a
# release tarball (or the original package's sdist), unpacked once per
# tarball content under <work-dir>.
function(_kp_unpack tarball work out)
  file(SHA256 "${tarball}" _sum)
  string(SUBSTRING "${_sum}" 0 16 _sum)
  set(_dest "${work}/source-${_sum}")
  if(NOT EXISTS "${_dest}/.unpacked")
    file(REMOVE_RECURSE "${_dest}")
    file(MAKE_DIRECTORY "${_dest}")
    message(STATUS "kokkos-python: unpacking ${tarball}")
    file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${_dest}")
    file(TOUCH "${_dest}/.unpacked")
  endif()
  file(GLOB _tops LIST_DIRECTORIES true "${_dest}/*")
  set(_candidates "${_dest}" ${_tops})
  foreach(_top IN LISTS _candidates)
    _kp_kokkos_tree_in("${_top}" _tree)
    if(_tree)
      set(${out} "${_tree}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "kokkos-python: ${tarball} holds no Kokkos source tree (no CMakeLists.txt beside core/src/Kokkos_Core.hpp, "
                      "at its top or one directory down, or in external/kokkos there)")
endfunction()

function(kokkos_python_kokkos_source dir_var route_var work)
  # 1. a source named by the setting
  set(_named "${KOKKOS_PYTHON_KOKKOS_SOURCE}")
  if(_named STREQUAL "")
    set(_named "$ENV{KOKKOS_PYTHON_KOKKOS_SOURCE}")
  endif()
  if(NOT _named STREQUAL "")
    get_filename_component(_named "${_named}" ABSOLUTE)
    if(IS_DIRECTORY "${_named}")
      _kp_kokkos_tree_in("${_named}" _tree)
      if(NOT _tree)
        message(FATAL_ERROR "kokkos-python: KOKKOS_PYTHON_KOKKOS_SOURCE=${_named} is not a Kokkos source tree "
                            "(no CMakeLists.txt beside core/src/Kokkos_Core.hpp, there or in its external/kokkos)")
      endif()
      set(${dir_var} "${_tree}" PARENT_SCOPE)
      set(${route_var} "the source tree KOKKOS_PYTHON_KOKKOS_SOURCE names, ${_tree}" PARENT_SCOPE)
    elseif(EXISTS "${_named}")
      _kp_unpack("${_named}" "${work}" _dir)
      set(${dir_var} "${_dir}" PARENT_SCOPE)
      set(${route_var} "the tarball KOKKOS_PYTHON_KOKKOS_SOURCE names, ${_named}" PARENT_SCOPE)
    else()
      message(FATAL_ERROR "kokkos-python: KOKKOS_PYTHON_KOKKOS_SOURCE=${_named} does not exist; name a Kokkos source "
                          "tree or a Kokkos release tarball")
    endif()
    return()
  endif()

  # 2. external/kokkos, as the original had it
  set(_external "${PROJECT_SOURCE_DIR}/external/kokkos")
  _kp_is_kokkos_tree("${_external}" _is)
  if(_is)
    set(${dir_var} "${_external}" PARENT_SCOPE)
    set(${route_var} "external/kokkos in the source tree" PARENT_SCOPE)
    return()
  endif()

  # 3. the pinned release, downloaded
  string(CONCAT _ways
         "Give the build a Kokkos source in one of these ways:\n"
         "  - put a Kokkos source tree in external/kokkos/ of this source tree,\n"
         "  - name a source tree or a release tarball: KOKKOS_PYTHON_KOKKOS_SOURCE=/path/to/kokkos pip install .\n"
         "  - be online, so that ${KOKKOS_PYTHON_KOKKOS_URL} can be downloaded.\n"
         "Or use a Kokkos that is installed: Kokkos_ROOT=/path/to/kokkos/install pip install . "
         "(Debian: apt-get install libtrilinos-kokkos-dev, then pip install .).")
  if(NOT KOKKOS_PYTHON_KOKKOS_DOWNLOAD)
    message(FATAL_ERROR "kokkos-python: the package's own Kokkos needs a Kokkos source, and downloading is off "
                        "(KOKKOS_PYTHON_KOKKOS_DOWNLOAD=OFF).\n${_ways}")
  endif()
  get_filename_component(_name "${KOKKOS_PYTHON_KOKKOS_URL}" NAME)
  set(_tarball "${work}/download/${_name}")
  if(NOT EXISTS "${_tarball}")
    message(STATUS "kokkos-python: downloading ${KOKKOS_PYTHON_KOKKOS_URL}")
    file(DOWNLOAD "${KOKKOS_PYTHON_KOKKOS_URL}" "${_tarball}.part"
         STATUS _status TIMEOUT 300 INACTIVITY_TIMEOUT 60 TLS_VERIFY ON)
    list(GET _status 0 _code)
    if(NOT _code EQUAL 0)
      list(GET _status 1 _why)
      file(REMOVE "${_tarball}.part")
      message(FATAL_ERROR "kokkos-python: no Kokkos source to build the package's own Kokkos from: "
                          "downloading ${KOKKOS_PYTHON_KOKKOS_URL} failed (${_why}).\n${_ways}")
    endif()
    if(NOT KOKKOS_PYTHON_KOKKOS_SHA256 STREQUAL "")
      file(SHA256 "${_tarball}.part" _got)
      if(NOT _got STREQUAL KOKKOS_PYTHON_KOKKOS_SHA256)
        file(REMOVE "${_tarball}.part")
        message(FATAL_ERROR "kokkos-python: ${KOKKOS_PYTHON_KOKKOS_URL} has SHA-256 ${_got}, not the expected "
                            "${KOKKOS_PYTHON_KOKKOS_SHA256}; set KOKKOS_PYTHON_KOKKOS_SHA256 to the hash of the "
                            "release you name (empty: not checked)")
      endif()
    endif()
    file(RENAME "${_tarball}.part" "${_tarball}")
  endif()
  _kp_unpack("${_tarball}" "${work}" _dir)
  set(${dir_var} "${_dir}" PARENT_SCOPE)
  set(${route_var} "the release downloaded from ${KOKKOS_PYTHON_KOKKOS_URL}" PARENT_SCOPE)
endfunction()
