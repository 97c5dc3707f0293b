"""C++ applications that embed Python and hand it their Views (docs/embedding.md).

Real executables, built against the installed package as a user's
application would be (tests/cxx_embed/ and examples/embed/): pybind11's
embedded interpreter and the plain C API; every order of who initializes and
who finalizes Kokkos; a Python exception reaching C++ with its message; a
View made in Python outliving the interpreter; C++ threads calling Python;
on a GPU, CudaSpace Views written by CuPy and PyTorch on their own streams.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cxx_build
from support import CRASH_WORDS, cuda

ROOT = Path(__file__).resolve().parent.parent


def _python_path(*extra):
    # The embedded interpreter is this Python's library; it finds the
    # packages this process sees (the venv's, or a build's --target folder)
    # through PYTHONPATH.
    return os.pathsep.join([str(p) for p in extra] + [p for p in sys.path if p and os.path.isdir(p)])


def _sanitizer_env():
    """Under scripts/suite.py --sanitize address the kokkos._core the programs load is
    built with ASan and UBSan, whose runtimes must be loaded first: the
    ones this interpreter was started with. Their leak check is off: an
    embedding program's leaks are the interpreter's teardown and the
    memory kept on purpose once the interpreter is gone; ASan's and
    UBSan's error reports still go to the run's log files."""
    if os.environ.get("KOKKOS_PYTHON_SANITIZED") != "1":
        return {}
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "libasan" in line or "libubsan" in line}
    options = os.environ.get("ASAN_OPTIONS", "").replace("detect_leaks=1", "detect_leaks=0")
    return {"LD_PRELOAD": " ".join(sorted(libs)), "ASAN_OPTIONS": options}


def _run(program, *args, extra_path=(), timeout=300):
    env = dict(os.environ, PYTHONPATH=_python_path(*extra_path), PYTHONUNBUFFERED="1", **_sanitizer_env())
    return subprocess.run([str(program), *args], capture_output=True, text=True, env=env, timeout=timeout, check=False)


def _ok(proc, marker):
    report = f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-4000:]}"
    assert proc.returncode == 0, report
    assert marker in proc.stdout, report
    assert "FAILED" not in proc.stdout, report
    problems = [w for w in CRASH_WORDS if w in proc.stderr]
    assert not problems, report


@pytest.fixture(scope="module")
def programs():
    try:
        return cxx_build.cmake_build(
            Path(__file__).resolve().parent / "cxx_embed",
            "embed",
            {"pybind11_DIR": cxx_build._cmake_dir("pybind11", "--cmakedir")},
        )
    except cxx_build.BuildError as e:
        pytest.fail(f"building the embedding programs failed:\n{e}")


@pytest.mark.parametrize("scenario", ["app_owns", "python_owns", "library_initializes", "app_finalizes_first"])
def test_pybind11_embedding(programs, scenario):
    _ok(_run(programs / "embed_pybind11", scenario), "embed ok")


@pytest.mark.parametrize("scenario", ["views", "threads"])
def test_c_api_embedding(programs, scenario):
    _ok(_run(programs / "embed_capi", scenario), "embed ok")


def test_unknown_scenario_is_refused(programs):
    """The programs' own guard: a test can fail through them."""
    proc = _run(programs / "embed_pybind11", "no_such_scenario")
    assert proc.returncode == 2 and "unknown scenario" in proc.stdout


@cuda
@pytest.mark.cuda
def test_cuda_views_written_by_cupy_and_torch_on_their_streams(programs):
    pytest.importorskip("cupy")
    pytest.importorskip("torch")
    _ok(_run(programs / "embed_pybind11", "cuda_writers"), "embed ok")


def test_example_solver():
    """examples/embed: the solver calls the Python emulator every step."""
    try:
        out = cxx_build.cmake_build(
            ROOT / "examples" / "embed",
            "example-embed",
            {"pybind11_DIR": cxx_build._cmake_dir("pybind11", "--cmakedir")},
        )
    except cxx_build.BuildError as e:
        pytest.fail(f"building examples/embed failed:\n{e}")
    proc = _run(out / "solver", "12", extra_path=[ROOT / "examples" / "embed"])
    _ok(proc, "solver ok")
    assert "12 steps through" in proc.stdout
