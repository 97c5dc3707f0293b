"""Build helpers for the Kokkos Tools tests: compile the test suite's tool
library (C) and its C++ event module against the Kokkos the kokkos package
runs.

The package does not (yet) say which Kokkos it was built against, so this
finds the Kokkos core library mapped into this process by kokkos._core, and
its headers next to it (the build's cmake/FindKokkosInstall.cmake accepts
Kokkos' CMake package or a plain install: both have <prefix>/include or
<prefix>/include/trilinos beside <prefix>/lib). A C++ module must link that
same library, or it would talk to a second Kokkos runtime.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import shutil
import subprocess
from pathlib import Path

import kokkos

SOURCES = Path(__file__).parent / "tools"


class BuildError(RuntimeError):
    pass


def _mapped_kokkos_core() -> Path:
    import kokkos._core  # noqa: F401  (maps the Kokkos library)

    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split()
            if len(parts) >= 6 and re.search(r"lib(trilinos_)?kokkoscore(-[0-9a-f]+)?\.so", parts[-1]):
                return Path(parts[-1])
    raise BuildError("kokkos._core does not map a Kokkos core library (static Kokkos?)")


@functools.cache
def kokkos_install() -> dict:
    """{'library', 'include', 'version', 'openmp', 'cuda', 'prefix'} of the Kokkos
    kokkos._core runs."""
    lib = _mapped_kokkos_core()
    libdir = lib.parent
    prefixes = [libdir.parent]
    if libdir.parent.name == "lib":  # multiarch: /usr/lib/x86_64-linux-gnu
        prefixes.append(libdir.parent.parent)
    want = "{}{:02d}{:02d}".format(*kokkos.kokkos_version())
    for prefix in prefixes:
        for inc in (
            prefix / "include",
            prefix / "include" / "trilinos",
            prefix / "include" / "kokkos",
        ):
            config = inc / "KokkosCore_config.h"
            if not (inc / "Kokkos_Core.hpp").exists() or not config.exists():
                continue
            text = config.read_text()
            m = re.search(r"#define KOKKOS_VERSION (\d+)", text)
            if not m or str(int(m.group(1))) != str(int(want)):
                continue
            return {
                "library": lib,
                "include": inc,
                "prefix": prefix,
                "version": int(m.group(1)),
                "openmp": re.search(r"^#define KOKKOS_ENABLE_OPENMP\b", text, re.M) is not None,
                "cuda": re.search(r"^#define KOKKOS_ENABLE_CUDA\b", text, re.M) is not None,
            }
    raise BuildError(f"no Kokkos headers of version {want} found beside {lib}")


def _run(cmd: list, what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"building {what} failed:\n$ {' '.join(map(str, cmd))}\n{proc.stderr[-4000:]}")


def build_tool_library(outdir: Path) -> Path:
    """Compiles tests/tools/logging_tool.c into a Kokkos Tools library."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise BuildError("no C compiler (cc) found")
    out = Path(outdir) / "libkp_logging_tool.so"
    _run(
        [
            cc,
            "-std=c11",
            "-O1",
            "-fPIC",
            "-shared",
            "-o",
            str(out),
            str(SOURCES / "logging_tool.c"),
            "-lpthread",
        ],
        "the test tool library",
    )
    return out


def build_cxx_events(outdir: Path) -> Path:
    """Compiles tests/tools/cxx_events.cpp against the running Kokkos."""
    return build_cxx_module(outdir, "cxx_events.cpp", "libkp_cxx_events.so", "the C++ event module")


def build_cxx_module(outdir: Path, source: str, name: str, what: str) -> Path:
    """Compiles tests/tools/<source> into a shared library <name> against the
    running Kokkos."""
    k = kokkos_install()
    if k["cuda"]:
        cxx = str(k["prefix"] / "bin" / "nvcc_wrapper")
        if not os.path.exists(cxx):
            raise BuildError("Kokkos has CUDA but its nvcc_wrapper is not installed")
        flags = ["--expt-extended-lambda", "-Xcompiler", "-fPIC"]
    else:
        cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
        if not cxx:
            raise BuildError("no C++ compiler (c++) found")
        flags = ["-fPIC"]
    if k["openmp"]:
        flags += ["-fopenmp"] if not k["cuda"] else ["-Xcompiler", "-fopenmp"]
    out = Path(outdir) / name
    _run(
        [
            cxx,
            f"-std=c++{kokkos.cxx_standard()}",
            "-O1",
            "-shared",
            *flags,
            f"-I{k['include']}",  # one argument: nvcc_wrapper takes a separate one for a file
            "-o",
            str(out),
            str(SOURCES / source),
            str(k["library"]),
            f"-Wl,-rpath,{k['library'].parent}",
            "-lpthread",
        ],
        what,
    )
    return out


def load_cxx_events(path: Path) -> ctypes.CDLL:
    lib = ctypes.CDLL(str(path))
    lib.kp_test_cxx_events.restype = ctypes.c_int
    lib.kp_test_threads.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.kp_test_threads.restype = ctypes.c_int
    lib.kp_test_dual_view_events.restype = ctypes.c_int
    lib.kp_test_begin_end.argtypes = [ctypes.POINTER(ctypes.c_uint64)]
    lib.kp_test_begin_end.restype = ctypes.c_int
    lib.kp_test_allocate.argtypes = [ctypes.c_int]
    lib.kp_test_allocate.restype = ctypes.c_int
    return lib
