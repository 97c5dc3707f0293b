"""Stream-ordered GPU exchange: no device-wide fence, and still no stale reads.

A slow kernel queued by C++ on Kokkos' default CUDA instance (without a
fence) writes a CudaSpace View; CuPy (through __cuda_array_interface__'s
stream) and PyTorch and CuPy (through __dlpack__(stream=...)) read it at once
and must see what it wrote. The other way round, a PyTorch stream that is
still busy writing a tensor hands it to Kokkos (DLPack or the CUDA array
interface), and a Kokkos kernel that reads it at once must see the data.
Each test first checks that the producer is really still busy, so a pass is
not an accident of timing. Runs where Kokkos has CUDA; skipped elsewhere.
"""

import pytest

import kokkos
from support import HAS_CUDA, cuda_fill_module

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space"),
]

N = 1 << 20
# GPU clock cycles each thread of the slow kernels waits: tens of ms or more
SLOW = 200_000_000


@pytest.fixture(scope="module")
def module():
    m = cuda_fill_module()
    kokkos.initialize()
    return m


def queue_slow_fill(module, view, value):
    module.fill_async(view, value, SLOW)
    assert module.kokkos_stream_busy(), "the slow kernel was done before the read: this test would prove nothing"


def test_cuda_array_interface_names_kokkos_stream(module):
    d = kokkos.array([4], space=kokkos.CudaSpace)
    stream = module.kokkos_stream()
    assert d.__cuda_array_interface__["stream"] == (stream if stream else 1)


def test_cupy_asarray_reads_after_a_queued_kokkos_kernel(module):
    cp = pytest.importorskip("cupy")
    d = kokkos.array([N], space=kokkos.CudaSpace)
    queue_slow_fill(module, d, 7.0)
    c = cp.asarray(d)
    assert int((c == 7.0).sum()) == N


def test_cupy_from_dlpack_reads_after_a_queued_kokkos_kernel(module):
    cp = pytest.importorskip("cupy")
    d = kokkos.array([N], space=kokkos.CudaSpace)
    queue_slow_fill(module, d, 8.0)
    c = cp.from_dlpack(d)
    assert int((c == 8.0).sum()) == N


def test_torch_reads_after_a_queued_kokkos_kernel(module):
    torch = pytest.importorskip("torch")
    d = kokkos.array([N], space=kokkos.CudaSpace)
    queue_slow_fill(module, d, 9.0)
    t = torch.from_dlpack(d)
    assert int((t == 9.0).sum()) == N


def test_torch_on_its_own_stream_reads_after_a_queued_kokkos_kernel(module):
    torch = pytest.importorskip("torch")
    d = kokkos.array([N], space=kokkos.CudaSpace)
    side = torch.cuda.Stream()
    queue_slow_fill(module, d, 3.0)
    with torch.cuda.stream(side):
        t = torch.from_dlpack(d)
        count = int((t == 3.0).sum())
    assert count == N


def busy_torch_tensor(torch, value):
    """A float64 CUDA tensor that a side stream is still busy filling with
    value, and that stream."""
    t = torch.zeros(N, device="cuda", dtype=torch.float64)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLOW)
        t.fill_(value)
    return t, side


def test_a_kokkos_kernel_reads_after_a_busy_torch_stream_through_dlpack(module):
    torch = pytest.importorskip("torch")
    t, side = busy_torch_tensor(torch, 5.0)
    with torch.cuda.stream(side):
        v = kokkos.from_dlpack(t)  # the producer orders Kokkos' stream after its own
    assert v.space == kokkos.CudaSpace and v.data == t.data_ptr()
    assert not side.query(), "the producer was done before the import: this test would prove nothing"
    assert module.sum(v) == 5.0 * N


def test_a_kokkos_kernel_reads_after_a_busy_stream_named_by_the_cuda_array_interface(module):
    torch = pytest.importorskip("torch")
    t, side = busy_torch_tensor(torch, 6.0)

    class Producer:
        __cuda_array_interface__ = dict(t.__cuda_array_interface__, stream=side.cuda_stream)

    v = kokkos.asarray(Producer())
    # Kokkos' stream waits for the producer's through an event: the host
    # did not block on it.
    assert not side.query(), "the import blocked the host until the producer was done"
    assert module.sum(v) == 6.0 * N
    del t
