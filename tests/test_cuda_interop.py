"""Zero-copy exchange of CUDA memory: DLPack and __cuda_array_interface__
with CuPy and PyTorch (CUDA). Runs only where the installed Kokkos has a
CUDA memory space; elsewhere every test here is skipped (marker `cuda`).
CuPy and PyTorch-with-CUDA tests skip on their own when the library (or a
CUDA build of it) is missing."""

import gc
import sys

import numpy as np
import pytest

import kokkos
from support import sample

HAS_CUDA = kokkos.get_memory_space_available("CudaSpace")

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not HAS_CUDA, reason="no CUDA memory space in this Kokkos")]

# (memory space, DLPack device type)
CUDA_SPACES = [("CudaSpace", 2), ("CudaUVMSpace", 13), ("CudaHostPinnedSpace", 3)]
SPACE_IDS = [s for s, _ in CUDA_SPACES]
DTYPES = ["float64", "float32", "int32", "uint8", "complex128", "bool"]

IS_COPIED = 2


@pytest.fixture(scope="module")
def cupy():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except cp.cuda.runtime.CUDARuntimeError as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"CuPy cannot reach a GPU: {e}")
    return cp


@pytest.fixture(scope="module")
def torch():
    t = pytest.importorskip("torch")
    if not t.cuda.is_available():
        pytest.skip("this PyTorch has no CUDA")
    return t


def device_view(space, dtype, shape, layout=kokkos.LayoutRight, seed=0):
    """A View in space filled with known values, and those values."""
    host = sample(np.dtype(dtype), shape, seed)
    v = kokkos.View(shape, dtype, space=space, layout=layout)
    kokkos.deep_copy(v, host)
    kokkos.fence()
    return v, host


def to_numpy(v):
    """The values of a (device) View, through a host mirror."""
    m = v.create_mirror(copy=True)
    kokkos.fence()
    return np.array(m)


# ---- export: __dlpack_device__ and __cuda_array_interface__ --------------------------------


@pytest.mark.parametrize("space, dev", CUDA_SPACES, ids=SPACE_IDS)
def test_dlpack_device(space, dev):
    v = kokkos.View((4,), space=space)
    t, i = v.__dlpack_device__()
    assert t == dev
    assert i >= 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("space", SPACE_IDS)
def test_cuda_array_interface_fields(space, dtype):
    v, _ = device_view(space, dtype, (3, 5))
    d = v.__cuda_array_interface__
    assert d["version"] == 3
    assert d["shape"] == (3, 5)
    assert d["typestr"] == np.dtype(dtype).str
    assert d["data"] == (v.data, False)
    assert d["strides"] is None
    # The stream of Kokkos' default CUDA instance (no fence): an int, never 0
    assert isinstance(d["stream"], int) and d["stream"] != 0
    assert d["descr"] == [("", np.dtype(dtype).str)]


def test_cuda_array_interface_strides():
    v, _ = device_view("CudaSpace", "float64", (6, 8), layout=kokkos.LayoutLeft)
    assert v.__cuda_array_interface__["strides"] == (8, 48)
    sub = v[1::2, ::3]
    d = sub.__cuda_array_interface__
    assert d["strides"] == sub.strides
    assert d["data"][0] == sub.data


def test_cuda_array_interface_empty():
    v = kokkos.View((0, 3), space="CudaSpace")
    assert v.__cuda_array_interface__["data"][0] == 0


# ---- CuPy ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("space", SPACE_IDS)
def test_cupy_asarray_view_shares_memory(cupy, space, dtype):
    v, host = device_view(space, dtype, (4, 3))
    a = cupy.asarray(v)  # through __cuda_array_interface__
    assert a.data.ptr == v.data
    np.testing.assert_array_equal(cupy.asnumpy(a), host)
    a[1, 2] = a[0, 0]
    cupy.cuda.runtime.deviceSynchronize()
    expect = host.copy()
    expect[1, 2] = host[0, 0]
    np.testing.assert_array_equal(to_numpy(v), expect)


@pytest.mark.parametrize("space", ["CudaSpace", "CudaUVMSpace"])  # CuPy takes no CUDAHost tensors
def test_cupy_from_dlpack_view(cupy, space):
    v, host = device_view(space, "float32", (5, 2))
    a = cupy.from_dlpack(v)
    assert a.data.ptr == v.data
    np.testing.assert_array_equal(cupy.asnumpy(a), host)


def test_cupy_strided_view(cupy):
    v, host = device_view("CudaSpace", "int64", (6, 8))
    sub = v[1:5:2, ::3]
    a = cupy.asarray(sub)
    np.testing.assert_array_equal(cupy.asnumpy(a), host[1:5:2, ::3])
    b = cupy.from_dlpack(sub)
    np.testing.assert_array_equal(cupy.asnumpy(b), host[1:5:2, ::3])


def test_view_from_cupy(cupy):
    a = cupy.arange(12, dtype=cupy.float64).reshape(3, 4)
    v = kokkos.asarray(a)  # the interface (a C-level attribute on CuPy) or DLPack
    assert v.space == kokkos.CudaSpace and v.data == a.data.ptr
    w = kokkos._core._from_cuda_array_interface(a)  # __cuda_array_interface__
    assert w.space == kokkos.CudaSpace and w.data == a.data.ptr
    kokkos.deep_copy(v, np.full((3, 4), 7.0))
    kokkos.fence()
    assert float(a.sum()) == 84.0
    t = kokkos.asarray(a.T)
    assert t.layout == kokkos.LayoutLeft
    np.testing.assert_array_equal(to_numpy(t), cupy.asnumpy(a.T))


def test_view_from_cupy_managed_memory(cupy):
    n = 16
    mem = cupy.cuda.malloc_managed(n * 8)  # a MemoryPointer to managed memory
    a = cupy.ndarray((n,), cupy.float64, mem)
    a[:] = 3.0
    cupy.cuda.runtime.deviceSynchronize()
    w = kokkos._core._from_cuda_array_interface(a)
    assert w.space == kokkos.CudaUVMSpace
    assert np.asarray(w).sum() == 48.0  # host-accessible


def test_view_from_cupy_readonly_and_stream(cupy):
    a = cupy.arange(4, dtype=cupy.int32)

    class Wrapped:
        def __init__(self, arr, stream):
            d = dict(arr.__cuda_array_interface__)
            d["data"] = (d["data"][0], True)
            d["stream"] = stream
            self.__cuda_array_interface__ = d

    s = cupy.cuda.Stream()
    with s:
        a += 1
    v = kokkos._core._from_cuda_array_interface(Wrapped(a, s.ptr))
    assert v.readonly
    np.testing.assert_array_equal(to_numpy(v), [1, 2, 3, 4])


def test_cupy_lifetimes(cupy):
    a = cupy.arange(100, dtype=cupy.float32)
    v = kokkos.asarray(a)
    del a
    gc.collect()
    assert to_numpy(v).sum() == 4950.0
    w, host = device_view("CudaSpace", "float32", (100,))
    b = cupy.asarray(w)
    del w
    gc.collect()
    np.testing.assert_array_equal(cupy.asnumpy(b), host)


def test_cupy_refcounts_flat(cupy):
    v = kokkos.View((8,), space="CudaSpace")
    a = cupy.zeros(8)
    alloc = v.allocation
    base = sys.getrefcount(v), sys.getrefcount(alloc), sys.getrefcount(a)
    for _ in range(300):
        x = cupy.asarray(v)
        y = cupy.from_dlpack(v)
        z = kokkos.asarray(a)
        del x, y, z
    gc.collect()
    assert (sys.getrefcount(v), sys.getrefcount(alloc), sys.getrefcount(a)) == base
    assert alloc.exports == 0


# ---- PyTorch (CUDA) ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_from_cuda_view(torch, dtype):
    v, host = device_view("CudaSpace", dtype, (3, 4))
    t = torch.from_dlpack(v)
    assert t.device.type == "cuda"
    assert t.data_ptr() == v.data
    np.testing.assert_array_equal(t.cpu().numpy(), host)
    t[0, 0] = t[2, 3]
    torch.cuda.synchronize()
    expect = host.copy()
    expect[0, 0] = host[2, 3]
    np.testing.assert_array_equal(to_numpy(v), expect)


def test_view_from_torch_cuda(torch):
    t = torch.arange(24, dtype=torch.float64, device="cuda").reshape(4, 6)
    v = kokkos.from_dlpack(t)  # torch's C exchange table, then its stream is waited on
    assert v.space == kokkos.CudaSpace and v.data == t.data_ptr()
    np.testing.assert_array_equal(to_numpy(v), t.cpu().numpy())
    kokkos.deep_copy(v, np.zeros((4, 6)))
    kokkos.fence()
    assert t.sum().item() == 0.0
    cap = kokkos.from_dlpack(t.__dlpack__(max_version=(1, 0), stream=1))
    assert cap.data == t.data_ptr()
    s = kokkos.from_dlpack(t[:, ::2])
    assert s.layout == kokkos.LayoutStride


def test_torch_cuda_work_is_visible(torch):
    """Work queued on torch's stream before the exchange is complete when
    Kokkos reads the memory."""
    t = torch.zeros(1 << 20, device="cuda")
    t += 1.0
    v = kokkos.from_dlpack(t)
    assert to_numpy(v).sum() == float(1 << 20)


def test_torch_cuda_lifetimes(torch):
    t = torch.ones(64, device="cuda")
    v = kokkos.from_dlpack(t)
    del t
    gc.collect()
    assert to_numpy(v).sum() == 64.0
    w, host = device_view("CudaSpace", "float32", (64,))
    alloc = w.allocation
    u = torch.from_dlpack(w)
    del w
    gc.collect()
    assert alloc.exports == 1
    np.testing.assert_array_equal(u.cpu().numpy(), host)
    del u
    gc.collect()
    assert alloc.exports == 0


def test_from_dlpack_torch_cuda_to_host(torch):
    t = torch.arange(10, dtype=torch.int32, device="cuda")
    h = kokkos.from_dlpack(t, device=kokkos.HostSpace)
    assert h.space == kokkos.HostSpace and h.data != t.data_ptr()
    np.testing.assert_array_equal(np.asarray(h), np.arange(10))
    with pytest.raises(BufferError, match="needs a copy, but copy=False"):
        kokkos.from_dlpack(t, device=kokkos.HostSpace, copy=False)


# ---- dl_device, copies and streams on export --------------------------------------------------------


def test_export_device_view_to_cpu_copies():
    v, host = device_view("CudaSpace", "float64", (4, 4))
    a = np.from_dlpack(v, device="cpu")  # NumPy asks for dl_device=(1, 0)
    assert a.ctypes.data != v.data
    np.testing.assert_array_equal(a, host)
    with pytest.raises(BufferError, match="which the host cannot access; exporting it to the CPU"):
        v.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    with pytest.raises((BufferError, RuntimeError)):
        np.from_dlpack(v)  # a CUDA tensor: NumPy refuses it


@pytest.mark.parametrize("space", ["CudaUVMSpace", "CudaHostPinnedSpace"])
def test_export_host_accessible_view_to_cpu_zero_copy(space):
    v, host = device_view(space, "int32", (8,))
    a = np.from_dlpack(v, device="cpu")
    assert a.ctypes.data == v.data
    np.testing.assert_array_equal(a, host)
    a[0] = -5
    assert v[0] == -5


def test_export_streams():
    v = kokkos.View((4,), space="CudaSpace")
    for s in (None, -1, 1, 2):
        cap = v.__dlpack__(max_version=(1, 0), stream=s)
        del cap
    with pytest.raises(ValueError, match="stream 0 is ambiguous for CUDA"):
        v.__dlpack__(stream=0)
    with pytest.raises(ValueError, match="stream -3 is not a stream"):
        v.__dlpack__(stream=-3)
    assert v.allocation.exports == 0


class CAIAndDLPack:
    """A producer offering both __cuda_array_interface__ (a Python property,
    as on PyTorch's tensors) and __dlpack__, counting the DLPack calls."""

    def __init__(self, arr, stream):
        self.arr, self.stream, self.dlpack_calls = arr, stream, 0

    @property
    def __cuda_array_interface__(self):
        d = dict(self.arr.__cuda_array_interface__)
        d["stream"] = self.stream
        return d

    def __dlpack__(self, **kw):
        self.dlpack_calls += 1
        return self.arr.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def test_import_keeps_dlpack_for_a_python_level_interface(cupy):
    # reading a Python property costs more than a capsule: DLPack, as before
    a = cupy.arange(8, dtype=cupy.float64)
    both = CAIAndDLPack(a, cupy.cuda.Stream(non_blocking=True).ptr)
    v = kokkos.asarray(both)
    assert both.dlpack_calls == 1 and v.data == a.data.ptr
    assert v.allocation.exporter is None  # a DLPack import owns the producer's tensor


def test_cupy_import_takes_the_cai_and_orders_after_its_stream(cupy):
    a = cupy.zeros(1 << 20, dtype=cupy.float64)
    if hasattr(type(a), "__dlpack_c_exchange_api__"):
        pytest.skip("this CuPy has a DLPack C exchange table, which the import takes first")
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        if a.__cuda_array_interface__.get("stream") in (None, 1):
            pytest.skip("this CuPy's interface does not name its current stream")
        a += 1  # queued on s: Kokkos' stream must wait for it
        v = kokkos.asarray(a)
    assert v.allocation.exporter is a  # the interface's import keeps the array itself
    assert v.data == a.data.ptr and v.space == kokkos.CudaSpace
    assert float(to_numpy(v).sum()) == float(1 << 20)
