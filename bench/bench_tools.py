"""Kokkos Tools overhead from Python, measured in one run.

Cost of one push_region + pop_region pair from Python, in ns:
  * with no tool loaded (Kokkos only checks its callback table),
  * with Python callbacks attached (Kokkos calls back into Python twice),
  * with a C tool library loaded (the test suite's logging tool with its log
    switched off, so its callbacks return at once; in a subprocess, since a
    library is loaded at initialize),
and of the region() context manager and decorator, each beside the cost of
an empty Python function call measured in the same run (the ratio column).
Run: python bench/bench_tools.py
"""

import os
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

import kokkos
import kokkos.tools as kt

N = 200_000


def per_call_ns(stmt, setup="pass", number=N, repeat=7, globals_=None):
    times = timeit.repeat(stmt, setup, number=number, repeat=repeat, globals=globals_)
    return min(times) / number * 1e9


def measure(label_prefix=""):
    g = {"kt": kt, "push": kt.push_region, "pop": kt.pop_region}

    def empty():
        pass

    g["empty"] = empty
    ref = per_call_ns("empty()", globals_=g)
    rows = [("empty Python function call (reference)", ref)]
    rows.append((f"{label_prefix}push_region + pop_region", per_call_ns("push('r'); pop()", globals_=g)))
    g["r"] = kt.region("r")
    rows.append(
        (
            f"{label_prefix}with region('r'): pass (one object, reused)",
            per_call_ns("with r: pass", globals_=g),
        )
    )

    @kt.region("decorated")
    def decorated():
        pass

    g["decorated"] = decorated
    rows.append(
        (
            f"{label_prefix}@region('r') decorated empty function",
            per_call_ns("decorated()", globals_=g),
        )
    )
    return ref, rows


def show(rows, ref):
    for name, ns in rows:
        print(f"{name:<62} {ns:>9.1f} ns {ns / ref:>7.2f}x")


def with_tool_library():
    """Runs this file's measurement in a subprocess with the C tool library."""
    here = Path(__file__).resolve().parent.parent / "tests"
    sys.path.insert(0, str(here))
    try:
        import tools_build

        tmp = Path(tempfile.mkdtemp())
        lib = tools_build.build_tool_library(tmp)
    except Exception as exc:  # no C compiler: say so, measure the rest
        print(f"(C tool library row skipped: {exc})")
        return
    env = {k: v for k, v in os.environ.items() if k != "KP_TEST_TOOL_LOG"}
    env["KOKKOS_TOOLS_LIBS" if kokkos.kokkos_version() >= (3, 7, 0) else "KOKKOS_PROFILE_LIBRARY"] = str(lib)
    proc = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        sys.stdout.write(proc.stderr)


def main():
    if "--child" in sys.argv:
        kokkos.initialize()
        assert kt.profile_library_loaded()
        ref, rows = measure("C tool library (no-op): ")
        show(rows[1:2], ref)
        return
    kokkos.initialize()
    print(f"Kokkos {'.'.join(map(str, kokkos.kokkos_version()))}, Python {sys.version.split()[0]}")
    print(f"{'case':<62} {'per call':>12} {'vs empty call':>9}")
    kt.clear_callbacks()
    ref, rows = measure("no tool: ")
    show(rows, ref)

    def on_push(name):
        pass

    def on_pop():
        pass

    kt.set_push_region_callback(on_push)
    kt.set_pop_region_callback(on_pop)
    ref2, rows = measure("Python callbacks: ")
    show(rows[1:], ref)
    kt.clear_callbacks()
    with_tool_library()


if __name__ == "__main__":
    main()
