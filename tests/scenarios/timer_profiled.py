"""The program tests/test_tools_timer.py profiles with `python -m
kokkos.tools.timer`: regions (nested, and around a decorated function),
Views allocated and freed, deep copies, and C++ kernels.

    python -m kokkos.tools.timer timer_profiled.py N CXX_EVENTS_LIBRARY
    python -m kokkos.tools.timer timer_profiled.py initialize-only

N: the extent of the Views; CXX_EVENTS_LIBRARY: tests/tools/cxx_events.cpp
built, whose kp_test_cxx_events() runs the C++ kernels. initialize-only:
Kokkos' initialize alone (what Kokkos itself allocates).
"""

import ctypes
import sys

import kokkos
import kokkos.tools as kt

if sys.argv[1] == "initialize-only":
    kokkos.initialize()
    sys.exit(0)
n = int(sys.argv[1])


@kt.region("solve")
def solve(a, b):
    for _ in range(3):
        with kt.region("step"):
            kokkos.deep_copy(b, a)


kokkos.initialize()
a = kokkos.array("a", [n], dtype=kokkos.float64)
b = kokkos.array("b", [n], dtype=kokkos.float64)
solve(a, b)
with kt.region("temporaries"):
    tmp = [kokkos.array(f"tmp{i}", [n], dtype=kokkos.float64) for i in range(4)]
    del tmp
s = b[::2]
s2 = kokkos.array("s2", [n // 2], dtype=kokkos.float64)
kokkos.deep_copy(s2, s)
with kt.region("cxx"):
    assert ctypes.CDLL(sys.argv[2]).kp_test_cxx_events() == 0  # C++ kernels
print("script done", sys.argv[1:2])
