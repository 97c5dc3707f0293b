"""The build: the original package's knobs are accepted and reported, and
Kokkos is found (including Debian's broken CMake package)."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
def test_seed_knobs_are_accepted(tmp_path):
    import kokkos

    env = dict(os.environ, PYKOKKOS_BASE_SETUP_ARGS="-DENABLE_LAYOUTS=ON -DENABLE_MEMORY_TRAITS=OFF")
    # the Kokkos the package was built with (found by default only when installed system-wide)
    lib = kokkos._paths.build_config().get("kokkos_library", "")
    if lib and not lib.startswith("/usr/"):
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
    cxx_std=17,
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


def test_setuptools_build_of_a_pybind11_module_with_the_public_helpers(tmp_path):
    """The recipe of docs/cxx.md: kokkos.include_dirs() and kokkos.ldflags()
    are all a setuptools build needs (kokkos.get_include() alone lacks
    Kokkos_Core.hpp)."""
    import kokkos

    pytest.importorskip("pybind11")
    if kokkos.get_memory_space_available("CudaSpace"):
        pytest.skip("a CUDA Kokkos's headers compile only with its nvcc_wrapper, not the plain host compiler")
    (tmp_path / "setup.py").write_text(SETUPTOOLS_SETUP)
    (tmp_path / "demo.cpp").write_text(SETUPTOOLS_DEMO)
    r = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
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
