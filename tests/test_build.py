"""The build: the original package's knobs are accepted and reported, and
Kokkos is found (including Debian's broken CMake package)."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
def test_seed_knobs_are_accepted(tmp_path):
    import kokkos

    env = dict(os.environ, PYKOKKOS_BASE_SETUP_ARGS="-DENABLE_LAYOUTS=ON -DENABLE_MEMORY_TRAITS=OFF")
    # the Kokkos the package was built with (found by default only when installed system-wide);
    # the package's own is looked past as Kokkos_ROOT (a reinstall removes it), so it is named
    # the way the package's own build names it
    cfg = kokkos._paths.build_config()
    lib = cfg.get("kokkos_library", "")
    extra = []
    if cfg["kokkos_internal"]:
        extra = [f"-DKOKKOS_PYTHON_KOKKOS_PACKAGE_DIR={cfg['kokkos_dir']}"]
    elif lib and not lib.startswith("/usr/"):
        env["Kokkos_ROOT"] = str(pathlib.Path(lib).resolve().parent.parent)
    r = subprocess.run(
        [
            "cmake",
            "-S",
            str(ROOT),
            "-B",
            str(tmp_path),
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DENABLE_VIEW_RANKS=3",
            "-DENABLE_LAYOUTS=OFF",
            "-DENABLE_MEMORY_TRAITS=OFF",
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "ENABLE_VIEW_RANKS=3 accepted" in out
    assert "ENABLE_MEMORY_TRAITS=OFF accepted" in out
    assert "PYKOKKOS_BASE_SETUP_ARGS='-DENABLE_LAYOUTS=ON -DENABLE_MEMORY_TRAITS=OFF' accepted" in out
    assert "kokkos-python: Kokkos " in out


def test_every_rank_is_available_whatever_the_knobs():
    import kokkos

    assert kokkos.max_concrete_rank == 8
    assert kokkos.View([1] * 8).ndim == 8


# ---- a user's setuptools build with the public helpers ---------------------------------------

SETUPTOOLS_SETUP = """\
from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

import kokkos

ext = Pybind11Extension(
    "kp_setuptools_demo",
    ["demo.cpp"],
    include_dirs=kokkos.include_dirs(),  # kokkos_python/*.hpp, Kokkos_Core.hpp, Python
    extra_link_args=kokkos.ldflags(),  # the very Kokkos library the package runs
    cxx_std=kokkos.cxx_standard(),
    extra_compile_args=kokkos.cxxflags(),  # the standard again, and OpenMP if Kokkos has it
)
setup(name="kp_setuptools_demo", version="0", ext_modules=[ext])
"""

SETUPTOOLS_DEMO = """\
#include <kokkos_python/pybind11.hpp>

namespace py = pybind11;

PYBIND11_MODULE(kp_setuptools_demo, m) {
  if (kokkos_python::import("kp_setuptools_demo") < 0) throw py::error_already_set();
  m.def("twice", [](Kokkos::View<double *, Kokkos::HostSpace> v) {
    Kokkos::View<double *, Kokkos::HostSpace> out("twice", v.extent(0));
    for (std::size_t i = 0; i < v.extent(0); ++i) out(i) = 2 * v(i);
    return out;
  });
}
"""


def _setuptools_path(tmp_path):
    """A directory to put on PYTHONPATH for a setuptools build: None when
    this Python has setuptools; else setuptools installed there from PyPI
    (a Python 3.12+ venv has none). Skips, saying why, only when pip cannot
    install it (no network)."""
    import importlib.util

    if importlib.util.find_spec("setuptools") is not None:
        return None
    target = tmp_path / "setuptools"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--target",
            str(target),
            "setuptools",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if r.returncode != 0:
        pytest.skip(
            "this Python has no setuptools (a Python 3.12+ venv comes without it) and pip could not install it: "
            + (r.stderr.strip().splitlines() or ["no message"])[-1]
        )
    return target


def test_setuptools_build_of_a_pybind11_module_with_the_public_helpers(tmp_path):
    """The recipe of docs/cxx.md: kokkos.include_dirs() and kokkos.ldflags()
    are all a setuptools build needs (kokkos.get_include() alone lacks
    Kokkos_Core.hpp)."""
    import kokkos

    pytest.importorskip("pybind11")
    if kokkos.get_memory_space_available("CudaSpace"):
        pytest.skip("a CUDA Kokkos's headers compile only with its nvcc_wrapper, not the plain host compiler")
    env = dict(os.environ)
    extra = _setuptools_path(tmp_path)
    if extra is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(extra), env.get("PYTHONPATH", "")) if p)
    (tmp_path / "setup.py").write_text(SETUPTOOLS_SETUP)
    (tmp_path / "demo.cpp").write_text(SETUPTOOLS_DEMO)
    r = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    code = (
        "import numpy as np, kp_setuptools_demo as m; "
        "import kokkos; v = m.twice(np.arange(3.0)); print(isinstance(v, kokkos.View), np.asarray(v).tolist())"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["True", "[0.0,", "2.0,", "4.0]"]


# ---- a module linked without the Kokkos library (issue 26) -----------------------------------

UNLINKED = """\
#include <kokkos_python/kokkos_python.hpp>

static PyModuleDef def = {PyModuleDef_HEAD_INIT, "kp_unlinked", nullptr, -1, nullptr};

PyMODINIT_FUNC PyInit_kp_unlinked(void) {
  if (!Kokkos::is_initialized()) Kokkos::View<double *, Kokkos::HostSpace>("made", 3);
  return PyModule_Create(&def);
}
"""


def test_a_module_built_without_ldflags_gets_an_import_error_naming_the_flag(tmp_path):
    """Forgetting `python -m kokkos --ldflags`: the dynamic loader refuses the
    module before any of its code runs; importing it after kokkos gives an
    ImportError that names the flag, caused by the loader's."""
    import sysconfig

    import kokkos

    if kokkos.get_memory_space_available("CudaSpace"):
        pytest.skip("a CUDA Kokkos's headers compile only with its nvcc_wrapper, not the plain host compiler")
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    (tmp_path / "unlinked.cpp").write_text(UNLINKED)
    so = tmp_path / f"kp_unlinked{sysconfig.get_config_var('EXT_SUFFIX')}"
    includes = [f"-I{d}" for d in kokkos.include_dirs()]
    cmd = [cxx, *kokkos.cxxflags(), "-shared", "-fPIC", *includes, str(tmp_path / "unlinked.cpp"), "-o", str(so)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    code = (
        "import kokkos\n"
        "try:\n"
        "    import kp_unlinked\n"
        "except ImportError as e:\n"
        "    print(e); print('CAUSE', e.__cause__); print('NAME', e.name)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kp_unlinked: the Kokkos library is not linked into" in r.stdout, r.stdout
    assert re.search(r"\(undefined symbol _ZNK?6Kokkos\w+\)", r.stdout), r.stdout
    assert "add the flags of `python -m kokkos --ldflags`" in r.stdout
    assert re.search(r"CAUSE .*undefined symbol: _ZNK?6Kokkos", r.stdout), r.stdout
    assert "NAME kp_unlinked" in r.stdout
    # imported before kokkos: Python's own message (documented limit)
    r = subprocess.run(
        [sys.executable, "-c", "import kp_unlinked"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert r.returncode != 0 and re.search("undefined symbol: _ZNK?6Kokkos", r.stderr), r.stderr
    assert "--ldflags" not in r.stderr


def test_the_link_hint_finder_finds_what_pathfinder_finds():
    import importlib.machinery

    import kokkos._link_hint as hint

    assert hint._LinkHintFinder in sys.meta_path
    assert sys.meta_path.index(hint._LinkHintFinder) == sys.meta_path.index(importlib.machinery.PathFinder) - 1
    hint.install()  # idempotent
    assert sys.meta_path.count(hint._LinkHintFinder) == 1
    spec = hint._LinkHintFinder.find_spec("json")
    assert spec is not None and spec.origin == importlib.machinery.PathFinder.find_spec("json").origin
    ext = hint._LinkHintFinder.find_spec("_kokkos_no_such_module")
    assert ext is None
    import kokkos._core

    spec = hint._LinkHintFinder.find_spec("_core", kokkos.__path__)
    assert isinstance(spec.loader, hint._LinkHintLoader)


def test_extension_modules_imported_after_kokkos_load():
    # ctypes is not imported by Python's start-up; its own extension module
    # (_ctypes) then comes through the link-hint loader, which must not ask
    # ctypes anything while it loads (a half-imported ctypes has no CDLL)
    code = (
        "import sys\n"
        "import kokkos\n"
        "import ctypes, _decimal, _sqlite3\n"
        "print('OK', ctypes.CDLL(None) is not None, kokkos.View([2])[1])\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("OK True 0.0"), r.stdout + r.stderr


@pytest.mark.parametrize(
    "loader_said, cause",
    [
        # as glibc's loader words them (the second seen with a Kokkos 4.6 CUDA build linked without libcuda)
        ("libcuda.so.1: cannot open shared object file: No such file or directory", "has no NVIDIA driver"),
        ("/x/lib/libkokkoscore.so: undefined symbol: cuStreamGetCtx", "linked without the CUDA driver library"),
        ("libcudart.so.13: cannot open shared object file: No such file or directory", "LD_LIBRARY_PATH"),
        ("libkokkoscore.so.3.4: cannot open shared object file: No such file or directory", "is gone or moved"),
        ("libkokkoscore-e775a25a.so: cannot open shared object file: No such file or directory", "is gone or moved"),
    ],
)
def test_a_core_that_cannot_load_is_explained(loader_said, cause):
    from kokkos._load_hint import explain

    why = explain(ImportError(loader_said))
    assert why.startswith("kokkos: the core module could not load: ") and cause in why
    assert why.endswith(f"The loader said: {loader_said}")


def test_other_import_errors_of_the_core_stand_as_they_are():
    from kokkos._load_hint import explain

    assert explain(ImportError("No module named 'kokkos._core'")) is None
    assert explain(ImportError("/x/_core.so: undefined symbol: _ZN6Kokkos10initializeEv")) is None
    # with the library the package was built against still there, the
    # missing symbol is not explained by another Kokkos either
    assert explain(ImportError("/x/_core.so: undefined symbol: _ZN6Kokkos10initializeEv"), sys.executable) is None


def test_another_kokkos_in_place_of_a_gone_one_is_explained(tmp_path):
    """The package's Kokkos library is gone and the loader found another
    Kokkos of the same file name (Debian sid's libkokkoscore.so, Kokkos 5.2)
    without a symbol of the first: the message names the library that is
    gone."""
    from kokkos._load_hint import explain

    gone = str(tmp_path / "lib" / "libkokkoscore.so")
    said = "/x/_core.so: undefined symbol: _ZN6Kokkos4Impl17t_openmp_instanceE"
    why = explain(ImportError(said), gone)
    assert why.startswith(f"kokkos: the core module could not load: the Kokkos library it was built against ({gone})")
    assert "the loader found another Kokkos of that name" in why and why.endswith(f"The loader said: {said}")


def test_a_build_directory_is_built_in_by_one_process_at_a_time(tmp_path):
    """cxx_build.locked: while one process holds a build directory's lock,
    another cannot take it; once released, it can (xdist workers share the
    C++ test builds through it)."""
    import cxx_build

    probe = (
        "import fcntl, sys\n"
        f"handle = open({str(tmp_path / '.lock')!r}, 'w')\n"
        "try:\n    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError:\n    sys.exit(3)\n"
    )
    with cxx_build.locked(tmp_path):
        held = subprocess.run([sys.executable, "-c", probe], check=False)
    free = subprocess.run([sys.executable, "-c", probe], check=False)
    assert (held.returncode, free.returncode) == (3, 0)
