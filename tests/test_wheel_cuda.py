"""The CUDA 13 wheel (scripts/wheel.sh --cuda, make wheel-cuda): distribution
pykokkos-base-cu13, import name kokkos.

What the built wheel holds (its name and metadata; machine code for every
compute capability of CUDA_ARCHS and PTX for the lowest, in libkokkoscore and
in the package's core module, by cuobjdump; libcudart bundled; no libcuda),
and what it does when installed into a fresh virtual environment: on a
machine without the NVIDIA driver `import kokkos` raises an ImportError that
says so; with the driver it imports with CUDA. Installed over the CPU wheel
(pykokkos-base), or the other way round, import says the two cannot share a
site-packages.

The wheel is the newest dist/pykokkos_base_cu13-*.whl, or the one
KOKKOS_PYTHON_CUDA_WHEEL names; building one takes nvcc 13, a Kokkos 4 source
and many minutes (docs/building.md, "The CUDA wheel"), so where there is none
(CI) those tests skip. CUDA_ARCHS, as for the build, names the compute
capabilities it must hold (default 75 80 86 89 90 100 120).
"""

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHS = os.environ.get("CUDA_ARCHS", "75 80 86 89 90 100 120").split()


def _wheel():
    named = os.environ.get("KOKKOS_PYTHON_CUDA_WHEEL")
    if named:
        return Path(named)
    found = sorted((ROOT / "dist").glob("pykokkos_base_cu13-*.whl"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


WHEEL = _wheel()
needs_wheel = pytest.mark.skipif(WHEEL is None, reason="no CUDA wheel built (make wheel-cuda)")
# Installing it needs a wheel for this Python (one built on the GPU machine
# for its Python can still be read here).
_HERE = f"-cp{sys.version_info[0]}{sys.version_info[1]}-"
needs_installable_wheel = pytest.mark.skipif(
    WHEEL is None or _HERE not in WHEEL.name, reason=f"no CUDA wheel for this Python ({_HERE.strip('-')}) built"
)


def _cuobjdump():
    """cuobjdump: on PATH, in CUDA_HOME, or from PyPI's nvidia-cuda-cuobjdump
    in wheel.sh --cuda's tool environment."""
    found = shutil.which("cuobjdump")
    if found:
        return found
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for candidate in [
        Path(home) / "bin" / "cuobjdump",
        *sorted(ROOT.glob("build/wheel-env-*/lib/*/site-packages/nvidia/cu*/bin/cuobjdump")),
    ]:
        if candidate.is_file():
            return str(candidate)
    return None


def _run(cmd, *, env=None, timeout=600, cwd=None):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)


def _ok(proc):
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    where = tmp_path_factory.mktemp("cuda-wheel")
    with zipfile.ZipFile(WHEEL) as z:
        z.extractall(where)
    return where


def _driver_here():
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


@needs_wheel
def test_the_distribution_is_pykokkos_base_cu13(unpacked):
    assert WHEEL.name.startswith("pykokkos_base_cu13-") and "-manylinux_" in WHEEL.name, WHEEL.name
    (info,) = unpacked.glob("*.dist-info")
    assert info.name.startswith("pykokkos_base_cu13-"), info.name
    meta = (info / "METADATA").read_text()
    assert re.search(r"^Name: pykokkos-base-cu13$", meta, re.M), meta[:400]
    assert (unpacked / "kokkos" / "__init__.py").is_file()
    assert list((unpacked / "kokkos").glob("_core*.so"))
    assert (unpacked / "bin" / "nvcc_wrapper").is_file()


@needs_wheel
def test_libcuda_is_never_inside_and_libcudart_is(unpacked):
    names = [p.relative_to(unpacked).as_posix() for p in unpacked.rglob("*") if p.is_file()]
    assert not [n for n in names if re.search(r"(^|/)libcuda[.-]", n)], names
    assert [n for n in names if re.match(r"pykokkos_base_cu13\.libs/libcudart-[0-9a-f]+\.so\.13[.0-9]*$", n)], names
    # the real library under its own name (lib/libkokkoscore.so is a linker script naming it)
    (core,) = (unpacked / "lib").glob("libkokkoscore-*.so")
    dyn = _ok(_run(["readelf", "-d", core]))
    assert "Shared library: [libcuda.so.1]" in dyn, dyn
    # no path of the build machine (the driver stub's, the toolkit's) to search at run time
    for lib in [core, *(unpacked / "kokkos").glob("_core*.so")]:
        paths = re.findall(r"R(?:UN)?PATH.*\[(.*)\]", _ok(_run(["readelf", "-d", lib])))
        assert all(p.startswith("$ORIGIN") for path in paths for p in path.split(":")), (lib, paths)


@needs_wheel
@pytest.mark.parametrize("member", ["lib/libkokkoscore-", "kokkos/_core"])
def test_machine_code_for_every_architecture_and_ptx_for_the_lowest(unpacked, member):
    tool = _cuobjdump()
    if tool is None:
        pytest.skip("no cuobjdump (pip install nvidia-cuda-cuobjdump)")
    (lib,) = unpacked.glob(member + "*.so")
    elf = _ok(_run([tool, "--list-elf", lib]))
    ptx = _ok(_run([tool, "--list-ptx", lib]))
    assert set(re.findall(r"\.sm_(\d+)a?\.cubin", elf)) == set(ARCHS), elf[-2000:]
    assert set(re.findall(r"\.sm_(\d+)a?\.ptx", ptx)) == {min(ARCHS, key=int)}, ptx[-2000:]


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    where = tmp_path_factory.mktemp("venv") / "venv"
    _ok(_run([sys.executable, "-m", "venv", where]))
    return where / "bin" / "python"


IMPORT = "import kokkos; kokkos.initialize(); print('backends', kokkos.enabled_backends()); kokkos.finalize()"


@needs_installable_wheel
def test_import_in_a_fresh_environment_says_when_there_is_no_driver(venv, tmp_path):
    _ok(_run([venv, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", WHEEL]))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "LD_PRELOAD")}
    proc = _run([venv, "-c", IMPORT], env=env, cwd=tmp_path)
    if _driver_here():
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert "'Cuda'" in proc.stdout, proc.stdout
        return
    # an exception, not a loader crash (a signal gives a negative code)
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-4000:])
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: kokkos: the core module could not load: "), proc.stderr[-4000:]
    assert "this machine has no NVIDIA driver (libcuda.so.1 is missing)" in last
    assert "pip install pykokkos-base" in last


def _cpu_wheel(tmp_path):
    found = sorted((ROOT / "dist").glob("pykokkos_base-*.whl"), key=lambda p: p.stat().st_mtime)
    if found:
        return found[-1]
    pytest.skip("no CPU wheel in dist/ (make wheel)")


@needs_installable_wheel
@pytest.mark.parametrize("order", ["cpu-then-cuda", "cuda-then-cpu"])
def test_the_two_wheels_side_by_side_are_refused(tmp_path, order):
    py = tmp_path / "venv" / "bin" / "python"
    _ok(_run([sys.executable, "-m", "venv", tmp_path / "venv"]))
    wheels = [_cpu_wheel(tmp_path), WHEEL]
    if order == "cuda-then-cpu":
        wheels.reverse()
    for wheel in wheels:
        _ok(_run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", wheel]))
    proc = _run([py, "-c", "import kokkos"], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-4000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: kokkos: pykokkos-base and pykokkos-base-cu13 are both installed in "), last
    assert "pip uninstall -y pykokkos-base pykokkos-base-cu13" in last


@pytest.mark.parametrize(
    "infos, clash",
    [
        (["pykokkos_base-0.1.0.dist-info"], False),
        (["pykokkos_base_cu13-0.1.0.dist-info", "numpy-2.1.0.dist-info"], False),
        (["pykokkos_base-0.1.0.dist-info", "pykokkos_base_cu13-0.1.0.dist-info"], True),
        (["pykokkos_base_cu13-0.2.0.dist-info", "pykokkos_base-0.1.0.dist-info", "pykokkos_base_x-1.dist-info"], True),
    ],
)
def test_conflict_reads_the_installed_distributions(tmp_path, infos, clash):
    """kokkos._load_hint.conflict on a site-packages laid out as pip lays it."""
    from kokkos._load_hint import conflict

    (tmp_path / "kokkos").mkdir()
    for name in infos:
        (tmp_path / name).mkdir()
    said = conflict(str(tmp_path / "kokkos"))
    if not clash:
        assert said is None
    else:
        assert said.startswith(f"kokkos: pykokkos-base and pykokkos-base-cu13 are both installed in {tmp_path}.")
        assert "pip uninstall -y pykokkos-base pykokkos-base-cu13" in said
