"""Cost of calling a Python function from a C++ application with four Kokkos
Views, against the same call with four pybind11::array objects made from
the data pointers (what C++ codes embedding Python do without the package),
measured in one run by one program (bench/cxx_embed/). Goal: within 1.2x.

Run: .venv/bin/python bench/bench_embed.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import kokkos

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import cxx_build


def main():
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
    proc = subprocess.run(
        [str(out / "embed_bench")], env=dict(os.environ, PYTHONPATH=path), capture_output=True, text=True, check=False
    )
    print(proc.stdout, end="")
    if proc.returncode != 0:
        sys.exit(f"embed_bench failed ({proc.returncode}):\n{proc.stderr}")


if __name__ == "__main__":
    main()
