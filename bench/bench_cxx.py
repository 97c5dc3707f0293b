"""Cost of passing Views into and out of bound C++ functions, against the
same pybind11 function taking py::array_t<double> NumPy arrays, measured in
one run. Goal: within 1.5x; a new View returned from C++ within 1.3x of a new
array (issue 25), for pybind11 and nanobind, the Kokkos allocation included.
The last lines split a new View's cost into the Kokkos::View allocation
(made and dropped in C++ alone) and the hand-over to Python.

Builds bench/cxx/ (pybind11 and nanobind modules) against the installed
package with CMake first. Run: .venv/bin/python bench/bench_cxx.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

import kokkos

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from timing import compare

import cxx_build


def main():
    kokkos.initialize()
    out = cxx_build.cmake_build(
        Path(__file__).resolve().parent / "cxx",
        "bench-cxx",
        {
            "pybind11_DIR": cxx_build._cmake_dir("pybind11", "--cmakedir"),
            "nanobind_DIR": cxx_build._cmake_dir("nanobind", "--cmake_dir"),
        },
    )
    pyb = cxx_build.import_from(out, "kp_bench_cxx")
    nb = cxx_build.import_from(out, "kp_bench_cxx_nb")
    print(
        f"kokkos {kokkos.__version__}, Kokkos {'.'.join(map(str, kokkos.kokkos_version()))} "
        f"{kokkos.enabled_backends()}, numpy {np.__version__}, {os.cpu_count()} cores"
    )
    print(f"{'case':<58} {'View':>9} {'NumPy':>9} {'ratio':>7}")

    a = np.zeros(1000)
    v = kokkos.array("py_view", [1000], dtype=kokkos.double)  # Python-allocated
    c = pyb.view_new(1000)  # allocated in C++
    g = {"pyb": pyb, "nb": nb, "a": a, "v": v, "c": c}
    cases = [
        ("in: pybind11, View from Python", "pyb.view_in(v)", "pyb.array_in(a)"),
        ("in: pybind11, View from C++", "pyb.view_in(c)", "pyb.array_in(a)"),
        ("in: nanobind, View from Python", "nb.view_in(v)", "pyb.array_in(a)"),
        ("in+out: pybind11, View from Python (vs same array back)", "pyb.view_in_out(v)", "pyb.array_in_out(a)"),
        ("in+out: pybind11, View from Python (vs new array back)", "pyb.view_in_out(v)", "pyb.array_in_new_out(a)"),
        ("in+out: pybind11, View from C++ (vs new array back)", "pyb.view_in_out(c)", "pyb.array_in_new_out(a)"),
        ("in+out: nanobind, View from Python (vs new array back)", "nb.view_in_out(v)", "pyb.array_in_new_out(a)"),
        ("out: a View C++ holds (vs new array over C++ memory)", "pyb.view_held()", "pyb.array_held()"),
        ("out: new 1000-element View from C++ (vs new array)", "pyb.view_new(1000)", "pyb.array_new(1000)", 1.3),
        ("out: nanobind, new 1000-element View (vs nanobind ndarray)", "nb.view_new(1000)", "nb.array_new(1000)", 1.3),
    ]
    for name, ours, ref, *goal in cases:
        ratio, o, r = compare(ours, ref, g, number=100000)
        print(f"{name:<58} {o * 1e9:>6.0f} ns {r * 1e9:>6.0f} ns {ratio:>6.2f}x   goal <= {goal[0] if goal else 1.5}x")
    for lib, ref in (("pybind11", "pyb.array_new(1000)"), ("nanobind", "nb.array_new(1000)")):
        m = "pyb" if lib == "pybind11" else "nb"
        _, new, alloc = compare(f"{m}.view_new(1000)", f"{m}.view_alloc_only(1000)", g, number=100000)
        alone, _, array = compare(f"{m}.view_alloc_only(1000)", ref, g, number=100000)
        print(
            f"  {lib}: of a new View's {new * 1e9:.0f} ns, the Kokkos::View made and dropped in C++ alone takes "
            f"{alloc * 1e9:.0f} ns, the hand-over to Python {(new - alloc) * 1e9:.0f} ns; the Kokkos::View alone "
            f"is {alone:.2f}x the whole new array ({array * 1e9:.0f} ns in that round)"
        )


if __name__ == "__main__":
    main()
