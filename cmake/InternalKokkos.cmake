# InternalKokkos.cmake: the package's own Kokkos (the original's
# ENABLE_INTERNAL_KOKKOS). When it is asked for, or when no Kokkos is found,
# Kokkos is configured, built and installed at configure time into
# <build>/kokkos-internal/install, laid out as the package installs it:
#
#   include/kokkos/   Kokkos' headers        lib/   its libraries and CMake package
#   bin/              nvcc_wrapper and Kokkos' other scripts
#
# Then FindKokkosInstall.cmake finds that CMake package and nothing else, and
# PykokkosLayout.cmake installs the tree next to the package, where pykokkos
# and C++ users find it (the core finds its libraries through $ORIGIN/../lib).
#
# ENABLE_INTERNAL_KOKKOS (CMake define, PYKOKKOS_BASE_SETUP_ARGS, or
# pip's -Ccmake.define.ENABLE_INTERNAL_KOKKOS=ON):
#   ON     always build the package's own Kokkos;
#   OFF    never: no Kokkos found is an error;
#   unset  build it when no Kokkos is found and Kokkos_ROOT names none.
# The source: KokkosSource.cmake. The defaults are the original's: shared
# libraries, Serial, OpenMP when the compiler has it (else Threads), CUDA when
# asked for or when both a CUDA toolkit and a GPU are there. Every Kokkos_*
# option given on the command line or in PYKOKKOS_BASE_SETUP_ARGS
# (-DKokkos_ENABLE_CUDA=ON, -DKokkos_ARCH_HOPPER90=ON, -DKokkos_CXX_STANDARD=20,
# ...) goes to Kokkos as given, and overrides the default it concerns.
# A configure with the same source and options does not rebuild Kokkos.
#
# Sets KOKKOS_PYTHON_INTERNAL_KOKKOS (ON/OFF); when ON also
# KOKKOS_PYTHON_KOKKOS_PACKAGE_DIR (for FindKokkosInstall.cmake),
# KOKKOS_PYTHON_INTERNAL_KOKKOS_PREFIX (the staged tree) and
# KOKKOS_PYTHON_INTERNAL_KOKKOS_ROUTE (where the source came from).

set(KOKKOS_PYTHON_INTERNAL_KOKKOS OFF)
set(KOKKOS_PYTHON_NO_INTERNAL_KOKKOS_REASON "")

# Kokkos options the user gave, read before anything else can define Kokkos_*
# variables (a Kokkos CMake package found and refused sets many).
set(_kp_given)
get_cmake_property(_kp_cache_names CACHE_VARIABLES)
foreach(_kp_name IN LISTS _kp_cache_names KOKKOS_PYTHON_SETUP_ARGS_NAMES)
  if(_kp_name MATCHES "^Kokkos_" AND NOT _kp_name MATCHES "^Kokkos_(ROOT|DIR)$" AND NOT "${${_kp_name}}" STREQUAL "")
    list(APPEND _kp_given ${_kp_name})
  endif()
endforeach()
list(REMOVE_DUPLICATES _kp_given)

set(_kp_root "${Kokkos_ROOT}")
if(_kp_root STREQUAL "")
  set(_kp_root "$ENV{Kokkos_ROOT}")
endif()
if("${ENABLE_INTERNAL_KOKKOS}" STREQUAL "")
  if(NOT _kp_root STREQUAL "")
    set(KOKKOS_PYTHON_NO_INTERNAL_KOKKOS_REASON
        "Kokkos_ROOT=${_kp_root} was given, so the package's own Kokkos was not built in its place "
        "(point Kokkos_ROOT at a Kokkos install, or unset it).")
    string(JOIN "" KOKKOS_PYTHON_NO_INTERNAL_KOKKOS_REASON ${KOKKOS_PYTHON_NO_INTERNAL_KOKKOS_REASON})
    return()
  endif()
  find_package(KokkosInstall QUIET)
  if(KokkosInstall_FOUND)
    return()
  endif()
  message(STATUS "kokkos-python: no Kokkos found; building the package's own (ENABLE_INTERNAL_KOKKOS=OFF stops instead)")
elseif(NOT ENABLE_INTERNAL_KOKKOS)
  set(KOKKOS_PYTHON_NO_INTERNAL_KOKKOS_REASON
      "ENABLE_INTERNAL_KOKKOS=${ENABLE_INTERNAL_KOKKOS} was given, so the package's own Kokkos was not built.")
  return()
endif()
set(KOKKOS_PYTHON_INTERNAL_KOKKOS ON)

set(_kp_work "${CMAKE_BINARY_DIR}/kokkos-internal")
include(KokkosSource)
kokkos_python_kokkos_source(_kp_src KOKKOS_PYTHON_INTERNAL_KOKKOS_ROUTE "${_kp_work}")

# ---- the source's version -------------------------------------------------------
file(STRINGS "${_kp_src}/CMakeLists.txt" _kp_version_lines REGEX "^ *[Ss][Ee][Tt] *\\( *Kokkos_VERSION_(MAJOR|MINOR|PATCH) ")
set(_kp_src_version)
foreach(_kp_part MAJOR MINOR PATCH)
  set(_kp_${_kp_part} 0)
  foreach(_kp_line IN LISTS _kp_version_lines)
    if(_kp_line MATCHES "Kokkos_VERSION_${_kp_part} +([0-9]+)")
      math(EXPR _kp_${_kp_part} "${CMAKE_MATCH_1}")
    endif()
  endforeach()
endforeach()
set(_kp_src_version "${_kp_MAJOR}.${_kp_MINOR}.${_kp_PATCH}")
message(STATUS "kokkos-python: the package's own Kokkos ${_kp_src_version}, from ${KOKKOS_PYTHON_INTERNAL_KOKKOS_ROUTE}")

# ---- what differs between Kokkos releases: one table -------------------------------
# Every choice of this file that depends on the source's Kokkos version, one
# row each: "<from> <below> <choice> <value>". A row holds for a source of
# version >= <from> and < <below> ("-": no bound); _kp_by_version(<choice>
# <out>) gives the values of the rows that hold, in the table's order. A
# Kokkos release that renames, adds or removes an option is rows here.
set(_kp_version_table
    # the Threads backend's option (Kokkos 3.x calls the backend PTHREAD)
    "-      4.0.0  threads_option   Kokkos_ENABLE_PTHREAD"
    "4.0.0  -      threads_option   Kokkos_ENABLE_THREADS"
    # options switched on with CUDA unless given (lambdas: always on from 4.0)
    "-      4.0.0  cuda_option_on   Kokkos_ENABLE_CUDA_LAMBDA"
    # Kokkos with CUDA calls the CUDA driver (libcuda) itself from 4.0: linked
    # without it, its library builds but loads nowhere ("undefined symbol:
    # cuStreamGetCtx")
    "4.0.0  -      cuda_links_driver  ON"
    # source changes made in a copy of the source (cmake/<change>.py):
    # Kokkos 3.x includes no <cstdint> where it uses uint32_t, which GCC 13's
    # libstdc++ no longer brings along
    "-      4.0.0  source_change    kokkos_gcc13"
    # the C++ standard Kokkos is built with unless one is given
    "-      5.0.0  cxx_standard     17"
    "5.0.0  -      cxx_standard     20"
    # options removed from Kokkos (given to it, its configure stops): renamed
    # ones are passed under their new name, the others left out. 5.2: the
    # standard is CMAKE_CXX_STANDARD, and CudaUVMSpace is no longer a
    # default memory space to choose (kokkos.CudaUVMSpace stays).
    "5.2.0  -      renamed_option   Kokkos_CXX_STANDARD=CMAKE_CXX_STANDARD"
    "5.2.0  -      removed_option   Kokkos_ENABLE_CUDA_UVM")
function(_kp_by_version choice out)
  set(_values)
  foreach(_row IN LISTS _kp_version_table)
    string(REGEX REPLACE " +" ";" _cells "${_row}")
    list(GET _cells 0 _from)
    list(GET _cells 1 _below)
    list(GET _cells 2 _choice)
    list(GET _cells 3 _value)
    if("${_choice}" STREQUAL "${choice}" AND (_from STREQUAL "-" OR _kp_src_version VERSION_GREATER_EQUAL _from)
       AND (_below STREQUAL "-" OR _kp_src_version VERSION_LESS _below))
      list(APPEND _values "${_value}")
    endif()
  endforeach()
  set(${out} "${_values}" PARENT_SCOPE)
endfunction()

# ---- options ----------------------------------------------------------------------
# _kp_given_is(<name> <out>): <out> is TRUE when the user gave <name> at all.
function(_kp_given_is name out)
  list(FIND _kp_given ${name} _at)
  if(_at EQUAL -1)
    set(${out} FALSE PARENT_SCOPE)
  else()
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()

set(_kp_args)
set(_kp_backends Serial)
_kp_given_is(Kokkos_ENABLE_SERIAL _kp_has)
if(NOT _kp_has)
  list(APPEND _kp_args -DKokkos_ENABLE_SERIAL=ON)
endif()

# A host-parallel backend: OpenMP when the compiler has it, else Threads
# (its option: the version table's). Kokkos takes one of them only.
_kp_by_version(threads_option _kp_threads_option)
set(_kp_host_given FALSE)
foreach(_kp_name Kokkos_ENABLE_OPENMP Kokkos_ENABLE_THREADS Kokkos_ENABLE_PTHREAD)
  _kp_given_is(${_kp_name} _kp_has)
  if(_kp_has)
    set(_kp_host_given TRUE)
  endif()
endforeach()
if(NOT _kp_host_given)
  find_package(OpenMP QUIET COMPONENTS CXX)
  if(OpenMP_CXX_FOUND)
    list(APPEND _kp_args -DKokkos_ENABLE_OPENMP=ON)
    list(APPEND _kp_backends OpenMP)
  else()
    find_package(Threads QUIET)
    if(Threads_FOUND)
      list(APPEND _kp_args -D${_kp_threads_option}=ON)
      list(APPEND _kp_backends Threads)
    endif()
  endif()
endif()

# CUDA: when asked for, or when a CUDA toolkit and a GPU are both there (nvcc
# alone, as on a build machine without a GPU, does not switch it on).
find_program(KOKKOS_PYTHON_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH ENV CUDA_ROOT PATH_SUFFIXES bin
             PATHS /usr/local/cuda/bin)
set(_kp_gpu_capability "")
find_program(KOKKOS_PYTHON_NVIDIA_SMI nvidia-smi)
if(KOKKOS_PYTHON_NVIDIA_SMI)
  execute_process(COMMAND "${KOKKOS_PYTHON_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE _kp_smi RESULT_VARIABLE _kp_smi_rc ERROR_QUIET TIMEOUT 30)
  if(_kp_smi_rc EQUAL 0 AND _kp_smi MATCHES "^[ \n]*([0-9]+\\.[0-9]+)")
    set(_kp_gpu_capability "${CMAKE_MATCH_1}")
  endif()
endif()
_kp_given_is(Kokkos_ENABLE_CUDA _kp_has)
if(_kp_has)
  set(_kp_cuda ${Kokkos_ENABLE_CUDA})
elseif(KOKKOS_PYTHON_NVCC AND _kp_gpu_capability)
  message(STATUS "kokkos-python: a CUDA toolkit (${KOKKOS_PYTHON_NVCC}) and a GPU (compute capability "
                 "${_kp_gpu_capability}) are here: Kokkos with CUDA (-DKokkos_ENABLE_CUDA=OFF leaves it out)")
  set(_kp_cuda ON)
  list(APPEND _kp_args -DKokkos_ENABLE_CUDA=ON)
else()
  if(KOKKOS_PYTHON_NVCC)
    message(STATUS "kokkos-python: ${KOKKOS_PYTHON_NVCC} is here but no GPU is: Kokkos without CUDA "
                   "(-DKokkos_ENABLE_CUDA=ON builds it anyway)")
  endif()
  set(_kp_cuda OFF)
endif()

# Kokkos' name for each CUDA compute capability.
set(_kp_cuda_arch_table
    "3.0=KEPLER30" "3.2=KEPLER32" "3.5=KEPLER35" "3.7=KEPLER37" "5.0=MAXWELL50" "5.2=MAXWELL52" "5.3=MAXWELL53"
    "6.0=PASCAL60" "6.1=PASCAL61" "7.0=VOLTA70" "7.2=VOLTA72" "7.5=TURING75" "8.0=AMPERE80" "8.6=AMPERE86"
    "8.7=AMPERE87" "8.9=ADA89" "9.0=HOPPER90" "10.0=BLACKWELL100" "12.0=BLACKWELL120")

set(_kp_kokkos_cxx "${CMAKE_CXX_COMPILER}")
set(_kp_env)
set(_kp_changes)
if(_kp_cuda)
  list(APPEND _kp_backends Cuda)
  if(NOT KOKKOS_PYTHON_NVCC)
    message(FATAL_ERROR "kokkos-python: Kokkos_ENABLE_CUDA=ON, but no nvcc was found (set CUDA_HOME, or put nvcc on PATH)")
  endif()
  set(_kp_arch_given FALSE)
  foreach(_kp_name IN LISTS _kp_given)
    if(_kp_name MATCHES "^Kokkos_ARCH_(KEPLER|MAXWELL|PASCAL|VOLTA|TURING|AMPERE|ADA|HOPPER|BLACKWELL)")
      set(_kp_arch_given TRUE)
    endif()
  endforeach()
  if(NOT _kp_arch_given AND _kp_gpu_capability)
    foreach(_kp_row IN LISTS _kp_cuda_arch_table)
      if(_kp_row MATCHES "^${_kp_gpu_capability}=(.*)$")
        list(APPEND _kp_args -DKokkos_ARCH_${CMAKE_MATCH_1}=ON)
      endif()
    endforeach()
  endif()
  get_filename_component(_kp_nvcc_dir "${KOKKOS_PYTHON_NVCC}" DIRECTORY)
  # A Kokkos that calls the CUDA driver (libcuda) itself (the version
  # table's cuda_links_driver) needs it to link: a toolkit with no
  # lib64/stubs, on a machine with no driver, is refused before the build.
  _kp_by_version(cuda_links_driver _kp_links_driver)
  if(_kp_links_driver)
    file(REAL_PATH "${KOKKOS_PYTHON_NVCC}" _kp_cuda_home)
    get_filename_component(_kp_cuda_home "${_kp_cuda_home}" DIRECTORY)
    get_filename_component(_kp_cuda_home "${_kp_cuda_home}" DIRECTORY)
    find_library(KOKKOS_PYTHON_CUDA_DRIVER cuda HINTS "${_kp_cuda_home}" ENV CUDA_HOME ENV CUDA_PATH /usr/local/cuda
                 PATH_SUFFIXES lib64/stubs lib/stubs targets/x86_64-linux/lib/stubs targets/sbsa-linux/lib/stubs lib64 lib)
    if(NOT KOKKOS_PYTHON_CUDA_DRIVER)
      message(FATAL_ERROR
              "kokkos-python: Kokkos ${_kp_src_version} with CUDA links the CUDA driver library (libcuda.so), and none "
              "was found: neither the NVIDIA driver's nor the CUDA toolkit's stub (lib64/stubs/libcuda.so). "
              "Install the toolkit's stubs (or the driver), set CUDA_HOME to a full toolkit, or build without "
              "CUDA (-DKokkos_ENABLE_CUDA=OFF).")
    endif()
  endif()
  _kp_by_version(cuda_option_on _kp_cuda_on)
  foreach(_kp_name IN LISTS _kp_cuda_on)
    _kp_given_is(${_kp_name} _kp_has)
    if(NOT _kp_has)
      list(APPEND _kp_args -D${_kp_name}=ON)
    endif()
  endforeach()
  # CUDA 13 needs source changes in Kokkos 4.6 and develop
  # (cmake/kokkos_cuda13.py, docs/cuda.md): made in a copy of the source (below).
  execute_process(COMMAND "${KOKKOS_PYTHON_NVCC}" --version OUTPUT_VARIABLE _kp_nvcc_version ERROR_QUIET)
  if(_kp_nvcc_version MATCHES "release ([0-9]+)\\." AND NOT CMAKE_MATCH_1 LESS 13)
    list(APPEND _kp_changes kokkos_cuda13)
  endif()
endif()

# Source changes, made in a copy of the source (the source itself is left
# as it is): the version table's (cmake/kokkos_gcc13.py for Kokkos 3.x), then
# CUDA 13's (above).
_kp_by_version(source_change _kp_version_changes)
list(PREPEND _kp_changes ${_kp_version_changes})
if(_kp_changes)
  list(JOIN _kp_changes "-" _kp_changes_name)
  string(SHA256 _kp_copy_key "${_kp_src}")
  string(SUBSTRING "${_kp_copy_key}" 0 16 _kp_copy_key)
  set(_kp_copy "${_kp_work}/source-${_kp_changes_name}-${_kp_copy_key}")
  if(NOT EXISTS "${_kp_copy}/.patched")
    message(STATUS "kokkos-python: making the changes of cmake/${_kp_changes_name}.py in a copy of the Kokkos source")
    file(REMOVE_RECURSE "${_kp_copy}")
    file(COPY "${_kp_src}/" DESTINATION "${_kp_copy}")
    foreach(_kp_change IN LISTS _kp_changes)
      execute_process(COMMAND "${Python_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/${_kp_change}.py" "${_kp_copy}"
                      RESULT_VARIABLE _kp_patch_rc)
      if(NOT _kp_patch_rc EQUAL 0)
        message(FATAL_ERROR "kokkos-python: cmake/${_kp_change}.py failed on ${_kp_copy}")
      endif()
    endforeach()
    file(TOUCH "${_kp_copy}/.patched")
  endif()
  set(_kp_src "${_kp_copy}")
endif()

if(_kp_cuda)
  # Kokkos with CUDA is compiled through its nvcc_wrapper, which runs nvcc
  # with this project's C++ compiler as the host compiler.
  if(NOT CMAKE_CXX_COMPILER MATCHES "nvcc_wrapper")
    set(_kp_kokkos_cxx "${_kp_src}/bin/nvcc_wrapper")
  endif()
  set(_kp_env "NVCC_WRAPPER_DEFAULT_COMPILER=${CMAKE_CXX_COMPILER}" "PATH=${_kp_nvcc_dir}:$ENV{PATH}")
endif()

# The C++ standard: the one given, else the version table's.
_kp_given_is(Kokkos_CXX_STANDARD _kp_has)
if(NOT _kp_has)
  _kp_by_version(cxx_standard _kp_std)
  if(DEFINED CACHE{CMAKE_CXX_STANDARD} AND NOT "$CACHE{CMAKE_CXX_STANDARD}" STREQUAL "")
    set(_kp_std "$CACHE{CMAKE_CXX_STANDARD}")
  endif()
  list(APPEND _kp_args -DCMAKE_CXX_STANDARD=${_kp_std})
endif()

# Options this Kokkos no longer has (the version table's): given to it,
# Kokkos' configure stops. A renamed one is passed under its new name, a
# removed one left out.
_kp_by_version(renamed_option _kp_renamed)
_kp_by_version(removed_option _kp_removed)
set(_kp_pass)
foreach(_kp_name IN LISTS _kp_given)
  set(_kp_new "")
  foreach(_kp_rename IN LISTS _kp_renamed)
    if(_kp_rename MATCHES "^${_kp_name}=(.*)$")
      set(_kp_new "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(_kp_new)
    message(STATUS "kokkos-python: Kokkos ${_kp_src_version} has no ${_kp_name}; passing "
                   "${_kp_new}=${${_kp_name}} instead")
    list(APPEND _kp_args "-D${_kp_new}=${${_kp_name}}")
  elseif(_kp_name IN_LIST _kp_removed)
    message(WARNING "kokkos-python: Kokkos ${_kp_src_version} has no ${_kp_name} (removed from it); left out.")
  else()
    list(APPEND _kp_pass ${_kp_name})
  endif()
endforeach()
foreach(_kp_name IN LISTS _kp_pass)
  list(APPEND _kp_args "-D${_kp_name}=${${_kp_name}}")
endforeach()
if(DEFINED Kokkos_ENABLE_OPENMP AND Kokkos_ENABLE_OPENMP)
  list(APPEND _kp_backends OpenMP)
endif()
if(Kokkos_ENABLE_THREADS OR Kokkos_ENABLE_PTHREAD)
  list(APPEND _kp_backends Threads)
endif()
list(REMOVE_DUPLICATES _kp_backends)

set(_kp_prefix "${_kp_work}/install")
set(_kp_build "${_kp_work}/build")
set(_kp_build_type "${CMAKE_BUILD_TYPE}")
if(_kp_build_type STREQUAL "")
  set(_kp_build_type Release)
endif()
# Shared libraries without a version in their names (one file each, no
# symbolic links, which a wheel cannot hold), finding each other through
# $ORIGIN; headers under include/kokkos, as the original installed them.
list(APPEND _kp_args
     "-DCMAKE_BUILD_TYPE=${_kp_build_type}"
     "-DCMAKE_CXX_COMPILER=${_kp_kokkos_cxx}"
     -DBUILD_SHARED_LIBS=ON
     -DCMAKE_PLATFORM_NO_VERSIONED_SONAME=ON
     "-DCMAKE_INSTALL_PREFIX=${_kp_prefix}"
     -DCMAKE_INSTALL_INCLUDEDIR=include/kokkos
     -DCMAKE_INSTALL_LIBDIR=lib
     -DCMAKE_INSTALL_BINDIR=bin
     "-DCMAKE_INSTALL_RPATH=\$ORIGIN")
# A compiler that links its C++ runtime statically (found on a GPU machine:
# GCC 13 in /opt/gcc, under nvcc_wrapper) puts a copy of libstdc++ into each
# Kokkos library. Exported, that copy's locale and facet symbols are merged
# with those of the libstdc++.so a module loaded before (NumPy, CuPy), and
# Kokkos::initialize crashed writing a number to a stream. Symbols from
# static archives stay inside the library that holds them.
#
# The package's Kokkos is its own (Linux): each library binds its calls to
# its own functions (-Bsymbolic-functions), so a Kokkos another package
# loaded into the global scope first (RTLD_GLOBAL, or linked into the
# program) cannot take over calls inside ours. Not -Bsymbolic: that binds
# data too, and a program linking Kokkos gets copy relocations of Kokkos'
# global data, so the library and the program would each read their own
# copy (on the GPU an embedding program's kernels then launched with a block
# size of 0: Kokkos' device properties, set in the library, read 0 in the
# program's copy). Each library also has a name of its own,
# libkokkoscore-<tag>.so, that is also its soname, so that the loader never
# takes a Kokkos loaded earlier under the common name libkokkoscore.so for
# ours (it matches a needed library by soname against what is loaded). The
# tag is a hash of this build's source and options. PykokkosLayout.cmake
# puts lib/libkokkoscore.so (a linker script naming libkokkoscore-<tag>.so)
# beside it for -lkokkoscore and pykokkos; what links it records the tagged
# name. KOKKOS_PYTHON_OWN_KOKKOS_NAMES=OFF keeps Kokkos' own names.
option(KOKKOS_PYTHON_OWN_KOKKOS_NAMES "Give the package's own Kokkos libraries names (and sonames) of their own" ON)
set(KOKKOS_PYTHON_INTERNAL_KOKKOS_TAG "")
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  list(APPEND _kp_args "-DCMAKE_SHARED_LINKER_FLAGS_INIT=-Wl,--exclude-libs,ALL -Wl,-Bsymbolic-functions")
  if(KOKKOS_PYTHON_OWN_KOKKOS_NAMES AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
    string(JOIN "\n" _kp_tag_key "${_kp_src}" "${_kp_src_version}" ${_kp_args})
    string(SHA256 _kp_tag "${_kp_tag_key}")
    string(SUBSTRING "${_kp_tag}" 0 8 KOKKOS_PYTHON_INTERNAL_KOKKOS_TAG)
    # Read by Kokkos' project() (CMAKE_PROJECT_Kokkos_INCLUDE): at the end of
    # Kokkos' top directory, its shared libraries get the tagged names.
    set(_kp_names_text
"# Written by kokkos-python's InternalKokkos.cmake: the tagged library names.
function(_kp_own_names)
  foreach(_t kokkoscore kokkoscontainers kokkosalgorithms kokkossimd)
    if(TARGET \${_t})
      get_target_property(_type \${_t} TYPE)
      if(_type STREQUAL \"SHARED_LIBRARY\")
        set_target_properties(\${_t} PROPERTIES OUTPUT_NAME \"\${_t}-${KOKKOS_PYTHON_INTERNAL_KOKKOS_TAG}\")
      endif()
    endif()
  endforeach()
endfunction()
cmake_language(DEFER CALL _kp_own_names)
")
    # written only when it changes: Kokkos' configure depends on it
    set(_kp_names_old "")
    if(EXISTS "${_kp_work}/own_names.cmake")
      file(READ "${_kp_work}/own_names.cmake" _kp_names_old)
    endif()
    if(NOT _kp_names_old STREQUAL _kp_names_text)
      file(WRITE "${_kp_work}/own_names.cmake" "${_kp_names_text}")
    endif()
    list(APPEND _kp_args "-DCMAKE_PROJECT_Kokkos_INCLUDE=${_kp_work}/own_names.cmake")
  endif()
endif()
if(CMAKE_MAKE_PROGRAM)
  list(APPEND _kp_args "-DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}")
endif()

# ---- configure and build, unless done with the same source and options ----------
string(JOIN "\n" _kp_key "${_kp_src}" "${_kp_src_version}" "${CMAKE_GENERATOR}" ${_kp_args} ${_kp_env})
file(SHA256 "${CMAKE_CURRENT_LIST_FILE}" _kp_self)
string(SHA256 _kp_key "${_kp_key}\n${_kp_self}")
set(_kp_stamp "${_kp_work}/stamp")
set(_kp_old_key "")
if(EXISTS "${_kp_stamp}")
  file(READ "${_kp_stamp}" _kp_old_key)
endif()

# _kp_run(<what> <log> COMMAND...): runs a step of Kokkos' build with its
# output in <log>; a failure ends the configure with the log's last lines.
function(_kp_run what log)
  if(_kp_env)
    set(_cmd "${CMAKE_COMMAND}" -E env ${_kp_env} ${ARGN})
  else()
    set(_cmd ${ARGN})
  endif()
  execute_process(COMMAND ${_cmd} OUTPUT_FILE "${log}" ERROR_FILE "${log}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    file(STRINGS "${log}" _lines)
    list(LENGTH _lines _n)
    set(_from 0)
    if(_n GREATER 40)
      math(EXPR _from "${_n} - 40")
    endif()
    list(SUBLIST _lines ${_from} 40 _tail)
    string(JOIN "\n" _tail ${_tail})
    message(FATAL_ERROR "kokkos-python: ${what} of the package's own Kokkos failed (${_rc}); the end of ${log}:\n${_tail}")
  endif()
endfunction()

string(TIMESTAMP _kp_t0 "%s")
if(NOT _kp_key STREQUAL _kp_old_key OR NOT EXISTS "${_kp_build}/CMakeCache.txt")
  file(REMOVE_RECURSE "${_kp_build}" "${_kp_prefix}")
  file(REMOVE "${_kp_stamp}")
  string(REPLACE ";" ", " _kp_backend_text "${_kp_backends}")
  message(STATUS "kokkos-python: configuring Kokkos ${_kp_src_version} (${_kp_backend_text}) in ${_kp_build}")
  _kp_run(configuring "${_kp_work}/configure.log"
          "${CMAKE_COMMAND}" -S "${_kp_src}" -B "${_kp_build}" -G "${CMAKE_GENERATOR}" ${_kp_args})
  set(_kp_fresh TRUE)
else()
  set(_kp_fresh FALSE)
endif()
# Incremental: a build that is up to date only checks that it is.
set(_kp_jobs "$ENV{CMAKE_BUILD_PARALLEL_LEVEL}")
if(_kp_jobs STREQUAL "")
  cmake_host_system_information(RESULT _kp_jobs QUERY NUMBER_OF_LOGICAL_CORES)
endif()
_kp_run(building "${_kp_work}/build.log"
        "${CMAKE_COMMAND}" --build "${_kp_build}" --target install --parallel ${_kp_jobs})
file(WRITE "${_kp_stamp}" "${_kp_key}")
string(TIMESTAMP _kp_t1 "%s")
math(EXPR _kp_seconds "${_kp_t1} - ${_kp_t0}")
if(_kp_fresh)
  message(STATUS "kokkos-python: built and staged the package's own Kokkos in ${_kp_seconds} s (${_kp_prefix})")
else()
  message(STATUS "kokkos-python: the package's own Kokkos is built already (${_kp_prefix}; checked in ${_kp_seconds} s)")
endif()

set(KOKKOS_PYTHON_KOKKOS_PACKAGE_DIR "${_kp_prefix}/lib/cmake/Kokkos")
set(KOKKOS_PYTHON_INTERNAL_KOKKOS_PREFIX "${_kp_prefix}")
