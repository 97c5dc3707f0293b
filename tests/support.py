"""What the test files share: the dtypes, spaces, layouts and traits to sweep,
sample data, and fresh interpreters.

Kokkos initializes once per process, so every test that initializes,
finalizes or exits with Kokkos state runs a fresh interpreter, and does so
through this module:

- ``run_scenario(script, case, *args)`` runs ``tests/scenarios/<script>.py``
  (real files, linted like the tests; ``tests/scenarios/scenario.py`` is
  what they share, including ``raises()`` for the raise a scenario expects);
- ``run_python(code)`` runs a short piece of code given as a string;
- ``run_module(module, *args)`` runs ``python -m module``;
- ``mpirun(n, argv)`` runs ``python argv`` on n MPI ranks (``MPIRUN`` is
  None where Open MPI is not installed; ``needs_mpi`` skips then);
- ``succeeded(proc, ...)`` and ``failed(proc, ...)`` assert how it ended.
"""

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kokkos

# ---- what the tests sweep ---------------------------------------------------------------------

DTYPES = list(kokkos.all_dtypes)
NP_DTYPES = {d: np.dtype(kokkos.get_dtype(d)) for d in DTYPES}
SPACES = [s for s in kokkos.memory_spaces if kokkos.get_memory_space_available(s)]
HOST_SPACES = [s for s in SPACES if kokkos.get_host_accessible(s)]
LAYOUTS = list(kokkos.layouts)
# The traits a new allocation may carry alone: all but Unmanaged (foreign
# memory only) and Aligned (swept by its own tests).
TRAITS = [t for t in kokkos.memory_traits if t not in (kokkos.Unmanaged, kokkos.Aligned)]
HAS_CUDA = kokkos.get_memory_space_available("CudaSpace")

cuda = pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space")


def shape_of(rank, base=2):
    """A small shape with distinct extents, so transposition bugs show."""
    return tuple(base + (i % 3) for i in range(rank))


def sample(np_dtype, shape, seed=0):
    """Deterministic values of the dtype, not all equal."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    if np_dtype.kind == "b":
        vals = rng.integers(0, 2, n).astype(bool)
    elif np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        vals = rng.integers(max(info.min, -100), min(info.max, 100), n).astype(np_dtype)
    elif np_dtype.kind == "c":
        vals = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np_dtype)
    else:
        vals = rng.standard_normal(n).astype(np_dtype)
    return vals.reshape(shape)


# ---- fresh interpreters -----------------------------------------------------------------------

SCENARIOS = Path(__file__).resolve().parent / "scenarios"

# The variables that load a Kokkos Tools library into every Kokkos process.
TOOLS_VARIABLES = ("KOKKOS_TOOLS_LIBS", "KOKKOS_PROFILE_LIBRARY", "KOKKOS_TOOLS_ARGS")

# What a crash leaves on stderr.
CRASH_WORDS = ("Segmentation", "Aborted", "Fatal Python error", "Traceback", "terminate called")


def python(*args, env=None, unset=(), paths=(), timeout=120):
    """Runs sys.executable with args in a fresh interpreter and returns the
    CompletedProcess (text output captured). env: variables to set; unset:
    variables of this process not to pass on; paths: directories put first
    on PYTHONPATH."""
    full = {k: v for k, v in os.environ.items() if k not in unset}
    # A crash then says where it happened (the Python stack, on stderr) and
    # leaves what the program printed before it (stdout unbuffered).
    full.setdefault("PYTHONFAULTHANDLER", "1")
    full.setdefault("PYTHONUNBUFFERED", "1")
    full.update(env or {})
    if paths:
        full["PYTHONPATH"] = os.pathsep.join([str(p) for p in paths] + [full.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, *map(str, args)],
        capture_output=True,
        text=True,
        env=full,
        timeout=timeout,
        check=False,
    )


def run_python(code, **kw):
    """Runs a short piece of code (dedented) in a fresh interpreter; keywords
    as for python()."""
    return python("-c", textwrap.dedent(code), **kw)


def run_module(module, *args, **kw):
    """Runs `python -m module args` in a fresh interpreter."""
    return python("-m", module, *args, **kw)


# The time limit of a scenario that takes a few seconds (Kokkos alone, no
# large library to import): passed as timeout, it only catches a hang
# (subprocess.TimeoutExpired then fails the test that ran it, by name).
SCENARIO_LIMIT = 60


def run_scenario(script, *args, **kw):
    """Runs tests/scenarios/<script>.py with args (the case and its
    arguments) in a fresh interpreter; keywords as for python()."""
    path = SCENARIOS / f"{script}.py"
    assert path.exists(), f"no scenario script {path}"
    return python(path, *args, **kw)


def load_scenario(script):
    """tests/scenarios/<script>.py as a module, without running a case: for
    the tables of cases a test parametrizes over."""
    if str(SCENARIOS) not in sys.path:
        sys.path.append(str(SCENARIOS))
    return importlib.import_module(script)


# ---- MPI ----------------------------------------------------------------------------------------

MPIRUN = shutil.which("mpirun")
HAS_MPI4PY = importlib.util.find_spec("mpi4py") is not None

needs_mpi = pytest.mark.skipif(
    MPIRUN is None or not HAS_MPI4PY,
    reason="needs mpirun (apt install openmpi-bin libopenmpi-dev) and mpi4py (pip install mpi4py)",
)


def mpirun(n, argv, timeout=180):
    """Runs sys.executable with argv on n ranks under mpirun (oversubscribed,
    allowed as root) and returns the CompletedProcess (text output captured)."""
    env = dict(os.environ)
    env.update(
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        # Containers often forbid the cross-process copy (CMA) Open MPI's
        # shared-memory transport uses for large messages.
        OMPI_MCA_btl_vader_single_copy_mechanism="none",
        OMPI_MCA_rmaps_base_oversubscribe="1",
        PYTHONUNBUFFERED="1",
    )
    cmd = [MPIRUN, "--oversubscribe", "-n", str(n)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return subprocess.run(
        [*cmd, sys.executable, *map(str, argv)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


# ---- how it ended -------------------------------------------------------------------------------


def _output(proc):
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-6000:]}"


def succeeded(proc, *printed, clean=False):
    """Asserts that the fresh interpreter exited 0 and printed each of
    printed on stdout; clean: and left nothing that looks like a crash on
    stderr. Returns proc."""
    assert proc.returncode == 0, _output(proc)
    for text in printed:
        assert text in proc.stdout, f"{text!r} not printed\n{_output(proc)}"
    if clean:
        problems = [w for w in CRASH_WORDS if w in proc.stderr]
        assert not problems, f"{problems} on stderr\n{_output(proc)}"
    return proc


def failed(proc, *reported, returncode=None):
    """Asserts that the fresh interpreter failed (exit status returncode, or
    any but 0) and reported each of reported on stderr. Returns proc."""
    if returncode is None:
        assert proc.returncode != 0, f"expected a failure\n{_output(proc)}"
    else:
        assert proc.returncode == returncode, f"expected exit {returncode}\n{_output(proc)}"
    for text in reported:
        assert text in proc.stderr, f"{text!r} not reported\n{_output(proc)}"
    return proc


def stable_id(value):
    """A test id for a parameter that is the same in every process: repr(),
    with the memory address of objects that have none of their own replaced
    by their type's name (pytest-xdist workers must collect equal ids)."""
    return re.sub(r"<([\w.]+) object at 0x[0-9a-f]+>", r"<\1>", repr(value))[:40]


def cuda_fill_module():
    """The C++ test module of tests/cxx_cuda (pybind11, CudaSpace Views),
    built once per interpreter and worker, and imported."""
    import cxx_build

    out = cxx_build.cmake_build(
        Path(__file__).parent / "cxx_cuda",
        "cuda-fill",
        {"pybind11_DIR": cxx_build._cmake_dir("pybind11", "--cmakedir")},
    )
    return cxx_build.import_from(out, "kp_cuda_fill")


def pykokkos_tree():
    """A checkout of pykokkos: PYKOKKOS_SRC, or the tree of an importable
    pykokkos (one installed from its checkout, tests/ beside it); None where
    there is neither (CI cannot download pykokkos: docs/pykokkos.md)."""
    src = os.environ.get("PYKOKKOS_SRC")
    if src:
        return Path(src)
    try:
        import pykokkos  # noqa: F401
    except Exception:
        return None
    root = Path(sys.modules["pykokkos"].__file__).resolve().parent.parent
    return root if (root / "tests").is_dir() else None
