"""A bound C++ function fills a CudaSpace View on the GPU and Python sees it
through CuPy; Python hands a device View back to C++. Runs where Kokkos has
CUDA (and CuPy is installed); skipped elsewhere."""

import pytest

import kokkos
from support import HAS_CUDA, cuda_fill_module

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space"),
]


@pytest.fixture(scope="module")
def module():
    return cuda_fill_module()


def test_cxx_fills_device_view_seen_by_cupy(module):
    cp = pytest.importorskip("cupy")
    v = module.make_filled(300, 7)
    assert isinstance(v, kokkos.View) and v.space == kokkos.CudaSpace and v.label == "filled_on_gpu"
    assert v.shape == (300, 7)
    c = cp.asarray(v)
    expected = cp.arange(300)[:, None] * 1000.0 + cp.arange(7)[None, :]
    assert bool((c == expected).all())
    module.scale(v, 2.0)  # the same memory, back into C++
    assert bool((c == 2 * expected).all())


def test_python_device_view_into_cxx(module):
    cp = pytest.importorskip("cupy")
    d = kokkos.array([4, 5], space=kokkos.CudaSpace)
    kokkos.deep_copy(d, 1.5)
    module.scale(d, 4.0)
    assert bool((cp.asarray(d) == 6.0).all())
    with pytest.raises(TypeError):
        module.scale(kokkos.array([4, 5]), 2.0)  # a HostSpace View does not fit


@pytest.mark.parametrize("source", ["kokkos", "cupy", "torch"])
def test_a_cxx_kernel_sees_the_view_python_passed(module, source):
    """The View a C++ kernel captures holds the address and extent Python
    passed, in device code as in host code. With CUDA 13 and Kokkos'
    mdspan View the device compiler laid the functor out differently (the
    kernel read (0, 0, 0) here: docs/cuda.md)."""
    n = 1000
    if source == "kokkos":
        v = kokkos.array([n], space=kokkos.CudaSpace)
    else:
        lib = pytest.importorskip(source)
        v = kokkos.asarray(lib.zeros(n, dtype=lib.float64, **({"device": "cuda"} if source == "torch" else {})))
    host_data, host_extent, host_size, kernel_data, kernel_extent, kernel_size = module.view_seen_by_kernel(v)
    assert (host_data, host_extent) == (v.data, n)
    assert (kernel_data, kernel_extent, kernel_size) == (host_data, host_extent, host_size)


def test_team_collective_entered_by_one_thread(module):
    """The evidence behind pykokkos' test_outer_for failing on the GPU
    (docs/pykokkos.md): its workunit written in Kokkos C++ gives the right
    sum only with teams of one thread; with Kokkos::AUTO the TeamThreadRange
    reduction that one thread enters alone does not sum the range."""
    cp = pytest.importorskip("cupy")
    league, count = 10, 128
    one = cp.asnumpy(cp.asarray(module.outer_for(league, count, 1.0, 1)))
    assert (one == count).all()
    auto = cp.asnumpy(cp.asarray(module.outer_for(league, count, 1.0, 0)))
    print("TeamPolicy(league, AUTO):", auto.tolist())
    assert (auto != count).any()
