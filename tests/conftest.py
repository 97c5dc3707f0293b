"""Shared pytest fixtures: the spaces, dtypes, ranks and layouts to sweep."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kokkos

DTYPES = list(kokkos.dtypes)
NP_DTYPES = {d: np.dtype(kokkos.get_dtype(d)) for d in DTYPES}
SPACES = [s for s in kokkos.memory_spaces if kokkos.get_memory_space_available(s)]
HOST_SPACES = [s for s in SPACES if kokkos.get_host_accessible(s)]
LAYOUTS = [kokkos.LayoutRight, kokkos.LayoutLeft, kokkos.LayoutStride]
TRAITS = [kokkos.Managed, kokkos.RandomAccess, kokkos.Atomic, kokkos.Restrict]
HAS_CUDA = kokkos.get_memory_space_available("CudaSpace")


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


def run_python(code, env=None, timeout=120):
    """Runs code in a fresh interpreter (Kokkos initializes once per process)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )


cuda = pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space")


@pytest.fixture(scope="session", autouse=True)
def _kokkos_runtime():
    kokkos.initialize()
    yield
