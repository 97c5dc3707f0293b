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
