"""Where C and C++ code finds what it builds against: the public headers
(kokkos_python.h, kokkos_python.hpp, pybind11.hpp, nanobind.hpp), the CMake
package ``kokkos_python`` and the Kokkos this package was built with.

``python -m kokkos --cmake-dir`` / ``--includes`` / ``--ldflags`` print them.
"""

from __future__ import annotations

import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def get_include() -> str:
    """The directory holding ``kokkos_python/kokkos_python.h`` and the other
    public headers (add it with ``-I``)."""
    return os.path.join(_HERE, "include")


def get_cmake_dir() -> str:
    """The directory holding ``kokkos_pythonConfig.cmake``: pass it as
    ``kokkos_python_DIR`` (or put it on ``CMAKE_PREFIX_PATH``) so that
    ``find_package(kokkos_python)`` finds it."""
    return os.path.join(_HERE, "share", "cmake", "kokkos_python")


# build.json's paths: absolute for a Kokkos installed elsewhere, relative to
# this directory for the package's own (its tree can move).
_PATH_KEYS = ("kokkos_dir", "kokkos_include_dir", "kokkos_library")


def build_config() -> dict:
    """Facts recorded when the package was built: its version and the Kokkos
    it uses (``kokkos_version``, ``kokkos_include_dir``, ``kokkos_library``,
    ``kokkos_dir`` (its CMake package, may be empty), ``kokkos_openmp``,
    ``kokkos_internal``: whether that Kokkos is the package's own, installed
    beside it). Paths are absolute."""
    import json  # here, not at import: `import kokkos` stays quick

    path = os.path.join(_HERE, "share", "kokkos_python", "build.json")
    try:
        with open(path, encoding="utf-8") as f:
            cfg = json.load(f)
    except FileNotFoundError:
        raise RuntimeError(
            f"kokkos: {path} is missing; this copy of the package was not installed by its "
            "build (pip install .), so the Kokkos it uses is unknown"
        ) from None
    for key in _PATH_KEYS:
        value = cfg.get(key)
        if value and not os.path.isabs(value):
            cfg[key] = os.path.normpath(os.path.join(_HERE, value))
    cfg.setdefault("kokkos_internal", False)
    return cfg


def get_kokkos_include() -> str:
    """The directory holding ``Kokkos_Core.hpp`` of the Kokkos this package
    was built with (``-I`` it next to get_include() for C++ modules)."""
    return build_config().get("kokkos_include_dir") or ""


def get_kokkos_library() -> str:
    """The path of the Kokkos core library (``libkokkoscore.so``) this
    package uses; a C++ module must link this very library (one Kokkos
    runtime per process)."""
    return build_config().get("kokkos_library") or ""


def include_dirs() -> list[str]:
    """Every include directory a C++ module needs: the public headers, the
    Kokkos headers the package was built with, and Python's."""
    import sysconfig

    dirs = [get_include()]
    kokkos_inc = build_config().get("kokkos_include_dir")
    if kokkos_inc:
        dirs.append(kokkos_inc)
    for key in ("include", "platinclude"):
        d = sysconfig.get_paths().get(key)
        if d and d not in dirs:
            dirs.append(d)
    return dirs


def cxx_standard() -> int:
    """The C++ standard a C++ module must be compiled with: the one the
    Kokkos this package uses was built with (Kokkos 4.x needs C++17, 5.0
    C++20; read from its KokkosCore_config.h), and at least C++17 (nanobind
    needs it; pybind11 modules may use C++14 on a Kokkos 3.x)."""
    found = [17, int(build_config().get("cxx_standard") or 17)]
    inc = get_kokkos_include()
    for config in (os.path.join(inc, "KokkosCore_config.h"), os.path.join(inc, "trilinos", "KokkosCore_config.h")):
        if os.path.exists(config):
            with open(config) as f:
                for line in f:
                    if line.startswith("#define KOKKOS_ENABLE_CXX"):
                        digits = line.split()[1][len("KOKKOS_ENABLE_CXX") :]
                        if digits.isdigit():
                            found.append(int(digits))
            break
    return max(found)


def cxxflags() -> list[str]:
    """Compiler flags for a C++ module besides the include directories:
    the C++ standard (cxx_standard()) and OpenMP when that Kokkos has it
    (its headers refuse to compile without)."""
    flags = [f"-std=c++{cxx_standard()}"]
    if build_config().get("kokkos_openmp"):
        flags.append("-fopenmp")
    return flags


def ldflags() -> list[str]:
    """Linker flags for a C++ module: the Kokkos library the package uses
    (with an rpath to it), OpenMP when that Kokkos has it, and what keeps a
    statically linked C++ runtime from being exported. A plain C module that
    only uses kokkos_python.h needs none."""
    cfg = build_config()
    flags = []
    lib = cfg.get("kokkos_library")
    if lib:
        libdir = os.path.dirname(lib)
        flags += [lib, f"-Wl,-rpath,{libdir}"]
    if cfg.get("kokkos_openmp"):
        flags.append("-fopenmp")
    flags.append("-ldl")
    # A C++ runtime the compiler links statically stays inside the module
    # (cmake/KokkosPythonPackage.cmake says why).
    flags += cfg.get("link_options", [])
    return flags
