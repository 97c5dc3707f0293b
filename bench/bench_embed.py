"""Cost of calling a Python function from a C++ application with four Kokkos
Views, against the same call with four pybind11::array objects made from
the data pointers (what C++ codes embedding Python do without the package),
measured in one run by one program (bench/cxx_embed/). Goal: within 1.2x.

Run: .venv/bin/python bench/bench_embed.py
     .venv/bin/python bench/bench_embed.py --callgrind   (instructions per call, under valgrind)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import kokkos

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import cxx_build


def instructions(program: Path, env: dict[str, str], kind: str, calls: int) -> int:
    """Instructions callgrind counts for the whole program making `calls` calls."""
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(program), "count", kind, str(calls)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        sys.exit(f"valgrind embed_bench count {kind} {calls} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return int(found.group(1))


def callgrind(program: Path, env: dict[str, str]) -> None:
    """Instructions per call of f(a, b, c, d) with four Views and with four
    py::arrays: the difference between 3000 and 1000 calls, over 2000."""
    if not shutil.which("valgrind"):
        sys.exit("--callgrind needs valgrind (apt-get install valgrind)")
    # OpenBLAS' idle threads (NumPy's) would add their spinning to the count; a fixed hash
    # seed keeps dict layouts, and so the counts, the same from run to run.
    env = dict(env, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    per_call = {}
    for kind in ("views", "arrays"):
        low, high = instructions(program, env, kind, 1000), instructions(program, env, kind, 3000)
        per_call[kind] = (high - low) / 2000
    print(f"{'instructions per call of f(a, b, c, d): pass':<52} {'Views':>11} {'py::array':>11} {'ratio':>7}")
    views, arrays = per_call["views"], per_call["arrays"]
    print(f"{'whole call (4 arguments)':<52} {views:>11.0f} {arrays:>11.0f} {views / arrays:>6.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callgrind", action="store_true", help="count instructions under valgrind instead of timing")
    args = parser.parse_args()
    out = cxx_build.cmake_build(
        Path(__file__).resolve().parent / "cxx_embed",
        "bench-embed",
        {"pybind11_DIR": cxx_build._cmake_dir("pybind11", "--cmakedir")},
    )
    print(
        f"kokkos {kokkos.__version__}, Kokkos {'.'.join(map(str, kokkos.kokkos_version()))} "
        f"{kokkos.enabled_backends()}, {os.cpu_count()} cores; goal: ratio <= 1.2x"
    )
    # The embedded interpreter finds the packages this one sees.
    path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    env = dict(os.environ, PYTHONPATH=path)
    if args.callgrind:
        callgrind(out / "embed_bench", env)
        return
    proc = subprocess.run([str(out / "embed_bench")], env=env, capture_output=True, text=True, check=False)
    print(proc.stdout, end="")
    if proc.returncode != 0:
        sys.exit(f"embed_bench failed ({proc.returncode}):\n{proc.stderr}")


if __name__ == "__main__":
    main()
