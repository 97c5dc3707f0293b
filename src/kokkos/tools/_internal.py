"""kokkos.tools._internal: the original package's C++ self-test.

``setup()`` allocates two host Views in C++ labelled "cxx_source" and
"cxx_target" (10 int32 each); ``test()`` runs C++ Kokkos work that Kokkos
Tools report: ``parallel_for`` / ``parallel_reduce`` / ``parallel_scan`` named
"cxx_parallel_for" / "cxx_parallel_reduce" / "cxx_parallel_scan", a profile
section "cxx_created_section", a deep copy cxx_target <- cxx_source (40 bytes)
and a region "cxx_push_region", then frees both Views. Tests of Python
callbacks use it to see events that come from C++. The two Views are one per
process, so one call runs at a time: ``setup()`` or ``test()`` called from one
of the test's own callbacks, or from another thread while one runs, raises
RuntimeError.
"""

from .. import _core

setup = _core._tools._internal_setup
test = _core._tools._internal_test
