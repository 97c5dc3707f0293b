"""JAX on the CPU: Views to jax.Array and back through DLPack, without copies
(scripts/setup.sh installs jax for the tests; they skip without it)."""

import gc

import numpy as np
import pytest

import kokkos

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
# JAX narrows 64-bit types to 32 bits (a copy) unless told otherwise
jax.config.update("jax_enable_x64", True)
# These tests are about host memory: on a machine with a GPU, JAX's default
# device is the GPU (tests/test_cuda_interop.py covers that side).
_CPU = jax.devices("cpu")[0]


@pytest.fixture(autouse=True)
def _jax_on_the_cpu():
    with jax.default_device(_CPU):
        yield


@pytest.mark.parametrize(
    "dt", [kokkos.float32, kokkos.float64, kokkos.int32, kokkos.float16, kokkos.complex64], ids=str
)
@pytest.mark.parametrize("layout", [kokkos.LayoutRight, kokkos.LayoutLeft], ids=str)
def test_view_to_jax_shares_memory(dt, layout):
    v = kokkos.array([3, 4], dtype=dt, layout=layout)
    ref = np.arange(12).reshape(3, 4).astype(np.dtype(dt))
    np.asarray(v)[:] = ref
    a = jnp.from_dlpack(v)
    assert a.shape == (3, 4) and a.dtype == np.dtype(dt)
    assert a.unsafe_buffer_pointer() == v.data  # the View's memory, not a copy
    np.testing.assert_array_equal(np.asarray(a), ref)


def test_jax_to_view_shares_memory_and_keeps_the_array_alive():
    x = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    address = x.unsafe_buffer_pointer()
    k = kokkos.from_dlpack(x)
    assert k.shape == [2, 3] and k.dtype == np.float32 and k.data == address
    del x
    gc.collect()
    assert np.asarray(k).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert kokkos.asarray(jnp.ones(4)).data != 0


def test_strided_views_are_refused_by_jax_with_its_message():
    # JAX takes compact (possibly transposed) tensors only; a stepped subview
    # needs a copy first.
    v = kokkos.array([3, 4], dtype=kokkos.float32)
    with pytest.raises(Exception, match="striding"):
        jnp.from_dlpack(v[:, ::2])
    c = kokkos.array(np.asarray(v[:, ::2]), copy=True)
    assert jnp.from_dlpack(c).shape == (3, 2)
