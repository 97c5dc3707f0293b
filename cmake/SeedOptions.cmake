# SeedOptions.cmake: the original pykokkos-base build knobs.
#
# That package instantiated one class per dtype x space x layout x trait x
# rank, so it let users trim ranks, layouts and traits to shorten builds.
# Here every combination is a runtime value, so those knobs are accepted for
# compatibility and only reported. ENABLE_INTERNAL_KOKKOS (InternalKokkos.cmake)
# is a real choice, as it was there.
#
# PYKOKKOS_BASE_SETUP_ARGS, the original's way to hand CMake options to a pip
# build, is read here: each -DNAME=VALUE (or -DNAME:TYPE=VALUE) in it sets
# NAME unless the CMake command line already gave it, so
#   PYKOKKOS_BASE_SETUP_ARGS="-DENABLE_INTERNAL_KOKKOS=ON -DKokkos_ENABLE_CUDA=ON" pip install .
# works as it did there.
set(ENABLE_VIEW_RANKS "" CACHE STRING "Accepted for compatibility: all ranks 0..8 are always available")
set(ENABLE_LAYOUTS "" CACHE STRING "Accepted for compatibility: all layouts are always available")
set(ENABLE_MEMORY_TRAITS "" CACHE STRING "Accepted for compatibility: all memory traits are always available")

set(_kp_setup_args "$ENV{PYKOKKOS_BASE_SETUP_ARGS}")
if(NOT _kp_setup_args STREQUAL "")
  message(STATUS "kokkos-python: PYKOKKOS_BASE_SETUP_ARGS='${_kp_setup_args}' accepted; every rank, layout and memory trait is always built")
  separate_arguments(_kp_setup_list UNIX_COMMAND "${_kp_setup_args}")
  foreach(_kp_arg IN LISTS _kp_setup_list)
    if(_kp_arg MATCHES "^-D([A-Za-z_][A-Za-z0-9_]*)(:[A-Za-z]+)?=(.*)$")
      set(_kp_name "${CMAKE_MATCH_1}")
      set(_kp_value "${CMAKE_MATCH_3}")
      if(DEFINED CACHE{${_kp_name}} AND NOT "$CACHE{${_kp_name}}" STREQUAL "")
        message(STATUS "kokkos-python: PYKOKKOS_BASE_SETUP_ARGS' ${_kp_name} left out: the CMake command line gave ${_kp_name}=$CACHE{${_kp_name}}")
      else()
        # A plain variable: it lasts this configure only, so a later run
        # without it in the environment does not keep it.
        set(${_kp_name} "${_kp_value}")
        list(APPEND KOKKOS_PYTHON_SETUP_ARGS_NAMES ${_kp_name})
      endif()
    else()
      message(STATUS "kokkos-python: PYKOKKOS_BASE_SETUP_ARGS: '${_kp_arg}' is not of the form -DNAME=VALUE; ignored")
    endif()
  endforeach()
endif()

foreach(_knob ENABLE_VIEW_RANKS ENABLE_LAYOUTS ENABLE_MEMORY_TRAITS)
  if(NOT "${${_knob}}" STREQUAL "")
    message(STATUS "kokkos-python: ${_knob}=${${_knob}} accepted; every rank, layout and memory trait is always built, so it changes nothing")
  endif()
endforeach()
