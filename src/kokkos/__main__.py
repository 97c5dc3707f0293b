"""python -m kokkos: print what C and C++ builds need.

python -m kokkos --cmake-dir     # for -Dkokkos_python_DIR=...
python -m kokkos --includes      # -I flags: headers, Kokkos, Python
python -m kokkos --cxxflags      # -std=c++17 (c++20 for a C++20 Kokkos), -fopenmp with OpenMP
python -m kokkos --ldflags       # the Kokkos library the package uses
python -m kokkos --include-dir   # the public headers only
python -m kokkos --kokkos-version
"""

from __future__ import annotations

import argparse
import shlex
import sys

from . import _paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kokkos",
        description="Paths and flags for building C and C++ modules against the kokkos package.",
    )
    parser.add_argument(
        "--cmake-dir",
        "--cmakedir",
        action="store_true",
        help="directory of kokkos_pythonConfig.cmake (find_package(kokkos_python))",
    )
    parser.add_argument(
        "--includes", action="store_true", help="-I flags for the public headers, the Kokkos headers and Python"
    )
    parser.add_argument("--include-dir", action="store_true", help="directory of the public headers")
    parser.add_argument(
        "--cxxflags",
        action="store_true",
        help="compiler flags: the C++ standard (the Kokkos's own, at least C++17) and OpenMP when Kokkos has it",
    )
    parser.add_argument("--ldflags", action="store_true", help="linker flags for the Kokkos library the package uses")
    parser.add_argument(
        "--kokkos-version", action="store_true", help="version of the Kokkos the package was built with"
    )
    parser.add_argument("--version", action="store_true", help="version of the kokkos package")
    args = parser.parse_args(argv)

    out = []
    if args.version:
        out.append(_paths.build_config().get("version", ""))
    if args.include_dir:
        out.append(_paths.get_include())
    if args.includes:
        out.append(" ".join("-I" + shlex.quote(d) for d in _paths.include_dirs()))
    if args.cxxflags:
        out.append(" ".join(_paths.cxxflags()))
    if args.cmake_dir:
        out.append(_paths.get_cmake_dir())
    if args.ldflags:
        out.append(" ".join(shlex.quote(f) for f in _paths.ldflags()))
    if args.kokkos_version:
        out.append(_paths.build_config().get("kokkos_version", ""))
    if not out:
        parser.print_help()
        return 0
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
