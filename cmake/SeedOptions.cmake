# SeedOptions.cmake: the original pykokkos-base build knobs.
#
# That package instantiated one class per dtype x space x layout x trait x
# rank, so it let users trim ranks, layouts and traits to shorten builds.
# Here every combination is a runtime value, so the knobs are accepted for
# compatibility and only reported.
set(ENABLE_VIEW_RANKS "" CACHE STRING "Accepted for compatibility: all ranks 0..8 are always available")
set(ENABLE_LAYOUTS "" CACHE STRING "Accepted for compatibility: all layouts are always available")
set(ENABLE_MEMORY_TRAITS "" CACHE STRING "Accepted for compatibility: all memory traits are always available")
foreach(_knob ENABLE_VIEW_RANKS ENABLE_LAYOUTS ENABLE_MEMORY_TRAITS)
  if(NOT "${${_knob}}" STREQUAL "")
    message(STATUS "kokkos-python: ${_knob}=${${_knob}} accepted; every rank, layout and memory trait is always built, so it changes nothing")
  endif()
endforeach()
if(DEFINED ENV{PYKOKKOS_BASE_SETUP_ARGS} AND NOT "$ENV{PYKOKKOS_BASE_SETUP_ARGS}" STREQUAL "")
  message(STATUS "kokkos-python: PYKOKKOS_BASE_SETUP_ARGS='$ENV{PYKOKKOS_BASE_SETUP_ARGS}' accepted; every rank, layout and memory trait is always built")
  # A Kokkos location given there is honoured.
  if("$ENV{PYKOKKOS_BASE_SETUP_ARGS}" MATCHES "-DKokkos_ROOT=([^ ]+)")
    set(Kokkos_ROOT "${CMAKE_MATCH_1}")
  endif()
endif()
