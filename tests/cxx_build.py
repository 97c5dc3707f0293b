"""Build helpers for the C and C++ interop tests (tests/test_cxx*.py).

The test modules in tests/cxx/ are built at test time against the installed
kokkos package exactly as a user's project would build them: CMake finds
the package with find_package(kokkos_python) through ``python -m kokkos
--cmake-dir``, and pybind11 and nanobind through theirs. The build directory
lives under build/ and is reused, so a second run only rebuilds what the
installed headers or the test sources changed.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import kokkos

ROOT = Path(__file__).resolve().parent.parent
SOURCES = Path(__file__).resolve().parent / "cxx"


class BuildError(RuntimeError):
    pass


def _tool(name: str) -> str | None:
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    return shutil.which(name)


def _cmake_dir(module: str, flag: str) -> str:
    # (not support.run_module: bench/bench_cxx.py imports this module, and
    # support needs pytest)
    out = subprocess.run([sys.executable, "-m", module, flag], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise BuildError(f"python -m {module} {flag} failed: {out.stderr.strip()} (pip install {module})")
    return out.stdout.strip()


def build_dir(name: str) -> Path:
    """A build directory for this interpreter and installed package, shared
    by pytest-xdist workers: cmake_build() takes a lock on it, so the first
    worker builds and the others find the build done (with a build
    directory per worker, each worker built the same modules again). The
    compiler asked for (CXX, CC) and the C library are in the key too: a
    checkout shared by two systems (a chroot) or built with another compiler
    gets a build of its own, not the other's CMake cache."""
    system = f"{os.environ.get('CXX', '')}|{os.environ.get('CC', '')}|{'-'.join(platform.libc_ver())}"
    key = hashlib.sha1(f"{sys.prefix}|{kokkos.get_include()}|{sys.version}|{system}".encode()).hexdigest()[:10]
    path = ROOT / "build" / f"test-{name}-{key}"
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def locked(path: Path):
    """Holds an exclusive lock on path/.lock: one process at a time builds
    in path (another one waits, then finds the build up to date)."""
    with open(path / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_jobs() -> int:
    """Compile jobs for one build: every core. The builds are few (a lock per
    build directory makes the other workers wait, not build), and a build
    runs inside the time limit of the test that first needs it: with the
    cores divided among 16 pytest-xdist workers, the C++ test project built
    one nvcc compile at a time and the waiting tests passed their 300 s."""
    return os.cpu_count() or 2


# A build's own time limit (seconds): builds run inside tests, whose limit
# (pytest-timeout) would otherwise end the whole worker mid-build.
BUILD_LIMIT = int(os.environ.get("KOKKOS_PYTHON_BUILD_LIMIT", "1800"))


def _run(cmd: list[str], log: Path, cwd: Path | None = None) -> None:
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, check=False, timeout=BUILD_LIMIT)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        log.write_text(out)
        raise BuildError(f"{' '.join(cmd)} passed its limit of {BUILD_LIMIT} s (log {log})") from None
    log.write_text(res.stdout + res.stderr)
    if res.returncode != 0:
        tail = (res.stdout + res.stderr)[-6000:]
        raise BuildError(f"{' '.join(cmd)} failed (log {log}):\n{tail}")


def cmake_build(source: Path, name: str, defines: dict[str, str] | None = None) -> Path:
    """Configure and build the CMake project at source; returns its build dir."""
    cmake = _tool("cmake")
    if not cmake:
        raise BuildError("cmake not found (pip install cmake)")
    out = build_dir(name)
    args = [
        cmake,
        "-S",
        str(source),
        "-B",
        str(out),
        f"-DPython_EXECUTABLE={sys.executable}",
        f"-Dkokkos_python_DIR={kokkos.get_cmake_dir()}",
    ]
    for key, value in (defines or {}).items():
        args.append(f"-D{key}={value}")
    stamp = out / "inputs.sha1"
    with locked(out):
        inputs = _inputs(args, source)
        if stamp.exists() and stamp.read_text() == inputs:
            return out
        if not (out / "CMakeCache.txt").exists() and _tool("ninja"):
            args += ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}"]
        stamp.unlink(missing_ok=True)
        _run(args, out / "configure.log")
        _run([cmake, "--build", str(out), "--parallel", str(build_jobs())], out / "build.log")
        stamp.write_text(inputs)
    return out


def _inputs(args: list[str], source: Path) -> str:
    """A digest of what a build depends on: the CMake arguments and every
    file of the project, of the installed package (headers, CMake files) and
    of the directories the arguments name, and Kokkos' library. A build whose
    inputs are those of the last one is not run again: other workers' test
    processes may be loading its modules, and on a GPU machine (nvcc_wrapper)
    such a process once found a module truncated, mid-rewrite. Files are
    taken by content (a reinstall of the same package writes the same
    headers with new times, and must not cost a rebuild), large ones (the
    libraries) by size and time."""
    digest = hashlib.sha1("\0".join(args).encode())
    roots = [source, Path(kokkos.get_include()), Path(kokkos.get_cmake_dir())]
    roots.append(Path(kokkos._paths.build_config()["kokkos_library"]))
    roots += [Path(a.split("=", 1)[1]) for a in args if a.startswith("-D") and "=" in a]
    for root in roots:
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for f in files:
            if f.is_file():
                st = f.stat()
                what = hashlib.sha1(f.read_bytes()).hexdigest() if st.st_size < 1 << 20 else st.st_mtime_ns
                digest.update(f"{f}|{what}|{st.st_size}\n".encode())
    return digest.hexdigest()


@functools.cache
def test_modules() -> Path:
    """Builds kp_test_pyb, kp_test_nb and kp_test_c; returns their directory."""
    return cmake_build(
        SOURCES,
        "cxx",
        {
            "pybind11_DIR": _cmake_dir("pybind11", "--cmakedir"),
            "nanobind_DIR": _cmake_dir("nanobind", "--cmake_dir"),
        },
    )


@functools.cache
def examples() -> Path:
    """Builds examples/ (the seed's example) as examples/run.sh does."""
    return cmake_build(
        ROOT / "examples",
        "examples",
        {
            "pybind11_DIR": _cmake_dir("pybind11", "--cmakedir"),
            "nanobind_DIR": _cmake_dir("nanobind", "--cmake_dir"),
        },
    )


def built_test_modules() -> Path:
    """test_modules() for a pytest fixture: a failed build fails the test
    with the build's output."""
    import pytest

    try:
        return test_modules()
    except BuildError as e:
        pytest.fail(f"building the test modules failed:\n{e}")


def test_module(name: str):
    """One test module (kp_test_pyb, kp_test_nb, kp_test_c), built and
    imported, with Kokkos initialized first."""
    kokkos.initialize()
    return import_from(built_test_modules(), name)


def import_from(directory: Path, name: str):
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
    return __import__(name)


def ext_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX")


def compile_module(source: Path, name: str, flags: list[str], out_dir: Path) -> Path:
    """Compiles one C or C++ file into an extension module with the system
    compiler (no CMake), the way `python -m kokkos --includes` is meant for."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{name}{ext_suffix()}"
    is_cxx = source.suffix == ".cpp"
    compiler = os.environ.get("CXX" if is_cxx else "CC") or ("g++" if is_cxx else "gcc")
    cmd = [compiler, "-shared", "-fPIC", "-O1", "-o", str(target), str(source)]
    cmd += [f"-std=c++{kokkos.cxx_standard()}"] if is_cxx else ["-std=c11"]
    cmd += flags
    _run(cmd, out_dir / f"{name}.log")
    return target


KOKKOS_INSTALLS = [
    # (include dir, core library, needs OpenMP)
    ("/usr/include/trilinos", "/usr/lib/x86_64-linux-gnu/libtrilinos_kokkoscore.so", False),
    ("/opt/kokkos-4.6-omp/include", "/opt/kokkos-4.6-omp/lib/libkokkoscore.so", True),
]


def other_kokkos() -> tuple[str, str, bool] | None:
    """A Kokkos installed here that is not the one the package uses, if any."""
    mine = os.path.realpath(kokkos._paths.build_config()["kokkos_library"])
    for inc, lib, omp in KOKKOS_INSTALLS:
        installed = os.path.exists(lib) and os.path.exists(os.path.join(inc, "Kokkos_Core.hpp"))
        if installed and os.path.realpath(lib) != mine:
            return inc, lib, omp
    return None
