"""Every documented call against its NumPy counterpart, measured in one run.

Each row times a call spelled as pykokkos-base's documentation spells it and
the NumPy call that does the same work, back to back, several rounds, and
prints the ratio of their best timings (ours / NumPy; below 1 is faster
than NumPy).
The large rows (80 MB fill and copy, a 4000 x 4000 LayoutRight -> LayoutLeft
copy) show whether copies run at memory bandwidth and, with a multi-threaded
Kokkos (OpenMP), use its threads: NumPy copies on one thread.

The C++ rows build bench/cxx/ (pybind11 and nanobind modules) with CMake
first; without a compiler, pybind11 or nanobind they are left out.

Run: .venv/bin/python bench/bench_calls.py [--markdown] [--quick] [--rounds N] [--callgrind] [--only TEXT]
[--no-cxx] (--markdown prints the README's table; --quick runs fewer rounds; --callgrind
counts instructions per call under valgrind instead (bench/instructions.py,
whose --check is CI's guard); --only runs the rows whose call contains TEXT;
--no-cxx leaves the C++ rows out.)
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
from pathlib import Path

import instructions
import numpy as np
from timing import compare

import kokkos

ROOT = Path(__file__).resolve().parent.parent
MB80 = 10_000_000  # doubles: 80 MB


def cxx_modules():
    """The pybind11 and nanobind bench modules, or (None, None, reason)."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import cxx_build

        out = cxx_build.cmake_build(
            ROOT / "bench" / "cxx",
            "bench-cxx",
            {
                "pybind11_DIR": cxx_build._cmake_dir("pybind11", "--cmakedir"),
                "nanobind_DIR": cxx_build._cmake_dir("nanobind", "--cmake_dir"),
            },
        )
        return cxx_build.import_from(out, "kp_bench_cxx"), cxx_build.import_from(out, "kp_bench_cxx_nb"), None
    except Exception as e:  # no compiler, pybind11 or nanobind: leave the rows out
        return None, None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def rows(g, pyb, nb, large):
    """(ours, NumPy counterpart) pairs, spelled as the documentation spells them."""
    r = [
        ("kokkos.array([1000])", "np.zeros(1000)"),
        ('kokkos.array("x", [10, 10], dtype=kokkos.float32)', "np.zeros((10, 10), np.float32)"),
        ("kokkos.array([3, 3], dtype=kokkos.int32, dynamic=True)", "np.zeros((3, 3), np.int32)"),
        ("kokkos.View((1000,))", "np.zeros(1000)"),
        ("kokkos.View((1000,), initialize=False)", "np.empty(1000)"),
        ("kokkos.View((1000,), initialize=False)", "kokkos.View((1000,))"),
        ("kokkos.DynRankView((3, 3), kokkos.int32)", "np.zeros((3, 3), np.int32)"),
        ("kokkos.array(a)", "np.asarray(mv)"),
        ("kokkos.unmanaged_array(a)", "np.asarray(mv)"),
        ("kokkos.asarray(a)", "np.asarray(mv)"),
        ("kokkos.from_dlpack(a)", "np.from_dlpack(a)"),
        ("kokkos.deep_copy(v, 1.0)", "a.fill(1.0)"),
        ("v.deep_copy(a)", "np.copyto(b, a)"),
        ("kokkos.create_mirror(v)", "np.zeros_like(a)"),
        ("kokkos.create_mirror(v, copy=True)", "a.copy()"),
        ("kokkos.create_mirror_view(v, copy=True)", "np.asarray(a)"),
        ("kokkos.create_mirror_view_and_copy(kokkos.HostSpace, v)", "np.asarray(a)"),
        ("len(v); v.shape", "len(a); a.shape"),
        # NumPy takes a View, as any object that is not an ndarray, through
        # the buffer protocol: the reference is the same for a memoryview
        # (an ndarray itself would be returned as is, with no work done).
        ("np.array(v, copy=False)", "np.array(mv, copy=False)"),
        ("np.asarray(v)", "np.asarray(mv)"),
        ("pickle.loads(pickle.dumps(v, protocol=4))", "pickle.loads(pickle.dumps(a, protocol=4))"),
        ("pickle.loads(pickle.dumps(v, protocol=5))", "pickle.loads(pickle.dumps(a, protocol=5))"),
    ]
    if pyb is not None:
        r += [
            ("pyb.view_new(1000)  # pybind11", "pyb.array_new(1000)  # py::array_t"),
            # the user's C++ Kokkos::View("bench", 1000) alone, made and dropped
            # in C++: what view_new costs before any hand-over to Python
            ("pyb.view_alloc_only(1000)  # C++ View alone", "pyb.array_new(1000)  # py::array_t"),
            ("nb.view_new(1000)  # nanobind", "nb.array_new(1000)  # nb::ndarray"),
        ]
    if large:
        r += [
            ("kokkos.deep_copy(big, 1.0)  # 80 MB", "A.fill(1.0)"),
            ("kokkos.deep_copy(big, big2)  # 80 MB", "np.copyto(A, B)"),
            ("kokkos.deep_copy(left, right)  # 4000^2 R->L", "np.copyto(FL, CR)"),
        ]
    return r


def setup(large, cxx=True):
    """The globals the rows run in, the C++ modules (or None) and why not."""
    kokkos.initialize()
    pyb, nb, why = cxx_modules() if cxx else (None, None, "--no-cxx")
    a = np.zeros(1000)
    g = {
        "np": np,
        "kokkos": kokkos,
        "pickle": pickle,
        "pyb": pyb,
        "nb": nb,
        "a": a,
        "b": np.zeros(1000),
        "mv": memoryview(a),
        "v": kokkos.View((1000,)),
    }
    if large:
        # Every large array holds data: np.zeros' calloc'd pages are never
        # written, so reading them reads the one shared zero page from the
        # cache, and a copy from them is not a memory copy.
        g.update(
            big=kokkos.View((MB80,)),
            big2=kokkos.View((MB80,)),
            A=np.full(MB80, 2.0),
            B=np.full(MB80, 3.0),
            right=kokkos.View((4000, 4000), layout=kokkos.LayoutRight),
            left=kokkos.View((4000, 4000), layout=kokkos.LayoutLeft),
            CR=np.full((4000, 4000), 3.0),
            FL=np.full((4000, 4000), 2.0, order="F"),
        )
        kokkos.deep_copy(g["big2"], 3.0)
        kokkos.deep_copy(g["right"], 3.0)
    return g, pyb, nb, why


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true", help="print the README's markdown table")
    ap.add_argument("--quick", action="store_true", help="fewer rounds (noisier)")
    ap.add_argument("--rounds", type=int, default=7, help="rounds per row (7; --quick: 3)")
    ap.add_argument("--no-large", action="store_true", help="leave out the 80 MB and 4000^2 rows")
    ap.add_argument(
        "--callgrind", action="store_true", help="count instructions per call under valgrind instead of timing"
    )
    ap.add_argument("--only", default="", help="only the rows whose call contains this text")
    ap.add_argument("--no-cxx", action="store_true", help="leave out the C++ rows (no module is built)")
    ap.add_argument(instructions.CHILD_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    rounds = 3 if args.quick else args.rounds
    # Instructions say nothing of bandwidth, and a large row would take
    # minutes under valgrind: the callgrind mode counts the small rows.
    large = not (args.no_large or args.callgrind or args.callgrind_child)
    if args.callgrind:
        if not args.no_cxx:
            cxx_modules()  # build bench/cxx here, not under valgrind
        extra = (["--only", args.only] if args.only else []) + (["--no-cxx"] if args.no_cxx else [])
        rows_found = instructions.run(instructions.script_path(), extra)
        instructions.table(rows_found, header_line())
        return

    g, pyb, nb, why = setup(large, cxx=not args.no_cxx)
    pairs = [(o, r) for o, r in rows(g, pyb, nb, large) if args.only in o]
    if args.callgrind_child:
        instructions.child([(o.split("  #")[0], r.split("  #")[0]) for o, r in pairs], g)
        return

    header = header_line()
    results = []
    for ours, ref in pairs:
        ratio, o, r = compare(ours.split("  #")[0], ref.split("  #")[0], g, rounds)
        results.append((ours, ref, o, r, ratio))
        if not args.markdown:
            print(f"{ours:<55} {o * 1e9:>11.0f} ns  {ref:<45} {r * 1e9:>11.0f} ns  {ratio:>6.2f}x", flush=True)

    if args.markdown:
        print(f"Measured with `bench/bench_calls.py` ({header}); ns per call, best of {rounds} rounds.\n")
        print("| call | ns | NumPy counterpart | ns | ratio |")
        print("|---|---:|---|---:|---:|")
        for ours, ref, o, r, ratio in results:
            print(f"| `{ours}` | {o * 1e9:,.0f} | `{ref}` | {r * 1e9:,.0f} | {ratio:.2f}x |")
    else:
        print(header)
    if why:
        print(f"(C++ rows left out: {why})")


def header_line():
    return (
        f"kokkos {kokkos.__version__}, Kokkos {'.'.join(map(str, kokkos.kokkos_version()))} "
        f"{kokkos.enabled_backends()}, NumPy {np.__version__}, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}"
    )


if __name__ == "__main__":
    main()
