"""JAX on the GPU: CudaSpace Views to jax.Array and back through DLPack,
without copies. Runs where Kokkos has CUDA and JAX sees a GPU; skipped
elsewhere (tests/test_jax.py covers JAX on the CPU)."""

import os

import numpy as np
import pytest

import kokkos
from support import HAS_CUDA

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space"),
]

# JAX would take most of the GPU's memory for its pool at first use.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


@pytest.fixture(scope="module")
def jax_gpu():
    jax = pytest.importorskip("jax")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        gpus = []
    if not gpus:
        pytest.skip("JAX sees no GPU")
    jax.config.update("jax_enable_x64", True)
    return jax, gpus[0]


def test_device_view_to_jax_shares_memory(jax_gpu):
    jax, gpu = jax_gpu
    import jax.numpy as jnp

    d = kokkos.array([3, 4], space=kokkos.CudaSpace)
    kokkos.deep_copy(d, np.arange(12.0).reshape(3, 4))
    a = jnp.from_dlpack(d)
    assert a.devices() == {gpu}
    assert a.unsafe_buffer_pointer() == d.data  # the View's memory, not a copy
    np.testing.assert_array_equal(np.asarray(a), np.arange(12.0).reshape(3, 4))


def test_jax_gpu_array_to_view_shares_memory(jax_gpu):
    jax, gpu = jax_gpu
    import jax.numpy as jnp

    x = jax.device_put(jnp.arange(6.0).reshape(2, 3), gpu)
    v = kokkos.from_dlpack(x)
    assert v.space == kokkos.CudaSpace and v.data == x.unsafe_buffer_pointer()
    h = v.create_mirror_view(copy=True)
    assert np.asarray(h).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
