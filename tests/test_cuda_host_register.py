"""NumPy memory in a CUDA space on a GPU that cannot read pageable memory
(docs/views.md, "Host memory in a device space"): the package registers the
pages under the array with the CUDA runtime when the View is made, counts the
Views over each registered range (arrays sharing a page, slices, the same
array wrapped twice), and unregisters a range with the last View over it.
kokkos._core._registered_host_bytes() is the registry's own count, which
every test brings back to where it started. KOKKOS_PYTHON_PAGEABLE_ACCESS=0
makes a GPU with pageable memory access (HMM, ATS) take this path too. The
cuda-marked tests need a CUDA Kokkos, CuPy and the C++ test module of
test_cuda_cxx.py."""

import gc
import resource
import threading

import numpy as np
import pytest

import kokkos
from support import cuda, cuda_fill_module, run_python, succeeded

pytestmark = [pytest.mark.cuda, cuda]


@pytest.fixture(scope="module")
def module():
    """The C++ test module of tests/cxx_cuda (built once)."""
    return cuda_fill_module()


@pytest.fixture(autouse=True)
def without_pageable_access(monkeypatch):
    monkeypatch.setenv("KOKKOS_PYTHON_PAGEABLE_ACCESS", "0")
    monkeypatch.delenv("KOKKOS_PYTHON_REGISTER_HOST_MEMORY", raising=False)
    before = registered()
    yield
    gc.collect()
    assert registered() == before, "a test left host pages registered"


@pytest.fixture
def cp():
    return pytest.importorskip("cupy")


def registered():
    return kokkos._core._registered_host_bytes()


def device_view(host):
    return kokkos.unmanaged_array(host, space=kokkos.CudaSpace)


def test_a_kernel_writes_numpy_memory_and_numpy_sees_it(module):
    host = np.arange(24.0).reshape(8, 3)
    v = device_view(host)
    assert registered() >= host.nbytes
    assert v.data == host.ctypes.data  # this GPU reads registered memory at its host address
    module.scale(v, 3.0)  # a C++ Kokkos kernel writes it
    kokkos.fence()
    np.testing.assert_array_equal(host, 3.0 * np.arange(24.0).reshape(8, 3))
    host[0, 0] = -1.0  # NumPy's write is seen by the next kernel
    module.scale(v, 2.0)
    kokkos.fence()
    assert host[0, 0] == -2.0 and host[7, 2] == 6.0 * 23
    del v
    assert registered() == 0


def test_cupy_and_torch_read_registered_memory(cp):
    host = np.arange(10.0)
    v = device_view(host)
    assert cp.asarray(v).data.ptr == host.ctypes.data
    assert float(cp.asarray(v).sum()) == 45.0
    kokkos.deep_copy(v, 2.5)  # a fill on the device
    kokkos.fence()
    assert (host == 2.5).all()
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(v)
    assert t.device.type == "cuda" and t.sum().item() == 25.0
    del t, v


class ArrayInterface:
    """Host memory seen only through __array_interface__ (no buffer protocol)."""

    def __init__(self, array):
        self.array = array
        self.__array_interface__ = array.__array_interface__


@pytest.mark.parametrize("kind", ["array.array", "memoryview", "__array_interface__"])
def test_every_kind_of_host_memory(kind):
    """Not NumPy alone: an array.array, a memoryview of a bytearray and an
    object with only __array_interface__ are registered the same way, and a
    fill on the device reaches their memory."""
    import array

    numbers = np.arange(32.0)
    if kind == "array.array":
        obj = array.array("d", numbers)
        host = np.frombuffer(obj)
    elif kind == "memoryview":
        buffer = bytearray(numbers.tobytes())
        obj, host = memoryview(buffer).cast("d"), np.frombuffer(buffer)
    else:
        host = numbers.copy()
        obj = ArrayInterface(host)
    v = device_view(obj)
    assert registered() >= host.nbytes and v.data == host.ctypes.data and v.shape == [32]
    kokkos.deep_copy(v, 2.5)
    kokkos.fence()
    assert (host == 2.5).all()
    del v
    assert registered() == 0


def one_page():
    """A float64 array of 512 elements filling one 4 KiB page exactly."""
    buffer = np.zeros(1024)
    skip = (-buffer.ctypes.data % 4096) // 8
    return buffer[skip : skip + 512]


def test_two_arrays_on_one_page(module):
    page = one_page()
    a, b = page[:100].reshape(50, 2), page[200:300].reshape(50, 2)  # separate arrays, one page
    va, vb = device_view(a), device_view(b)
    held = registered()
    assert held == 4096
    a[...] = 1.0
    b[...] = 2.0
    del va  # b's pages stay registered
    gc.collect()
    assert registered() == held
    module.scale(vb, 5.0)
    kokkos.fence()
    assert (b == 10.0).all() and (a == 1.0).all()
    del vb
    assert registered() == 0


def test_a_slice_of_a_wrapped_array(module):
    host = np.zeros((64, 4))
    whole = device_view(host)
    held = registered()
    part = device_view(host[10:20])  # NumPy's slice: inside ranges already registered
    assert registered() == held
    sub = whole[30:40]  # a subview shares the whole View's registration
    del whole
    kokkos.deep_copy(sub, 7.0)
    module.scale(part, 0.0)
    kokkos.deep_copy(part, 3.0)
    kokkos.fence()
    assert (host[30:40] == 7.0).all() and (host[10:20] == 3.0).all() and (host[:10] == 0).all()
    del part
    assert registered() > 0  # sub still holds the range
    del sub
    assert registered() == 0


def test_memory_the_user_registered_or_pinned(module, cp):
    import cupyx

    host = np.zeros((16, 2))
    cp.cuda.runtime.hostRegister(host.ctypes.data, host.nbytes, 0)
    try:
        v = device_view(host)
        assert registered() == 0  # the runtime knew it: nothing of ours
        module.scale(v, 1.0)
        kokkos.deep_copy(v, 4.0)
        kokkos.fence()
        assert (host == 4.0).all()
        del v
    finally:
        cp.cuda.runtime.hostUnregister(host.ctypes.data)
    pinned = cupyx.zeros_pinned((8, 2))
    v = device_view(pinned)
    assert registered() == 0
    kokkos.deep_copy(v, 1.5)
    kokkos.fence()
    assert (pinned == 1.5).all()


def test_managed_memory_is_not_registered(module):
    managed = kokkos.array([6, 2], space=kokkos.CudaUVMSpace)
    v = device_view(np.asarray(managed))
    assert registered() == 0
    module.scale(v, 2.0)


def test_the_array_outlives_the_view():
    host = np.ones(1000)
    v = device_view(host)
    del v
    assert registered() == 0
    host += 1  # still the process's own memory, usable as ever
    assert (host == 2).all()


def test_the_view_outlives_finalize():
    proc = run_python(
        """
        import numpy as np, kokkos
        host = np.arange(6.0)
        v = kokkos.unmanaged_array(host, space=kokkos.CudaSpace)
        assert kokkos._core._registered_host_bytes() > 0
        kokkos.finalize()
        assert kokkos._core._registered_host_bytes() == 0
        try:
            v.__cuda_array_interface__
        except RuntimeError as e:
            print("released:", "released" in str(e))
        host += 1
        print("array", host.tolist())
        """,
        env={"KOKKOS_PYTHON_PAGEABLE_ACCESS": "0"},
        timeout=120,
    )
    succeeded(proc, "released: True", "array [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]", clean=True)


def test_soak_of_wrap_and_drop_leaves_nothing_registered():
    rng = np.random.default_rng(0)
    arrays = [np.zeros(int(n)) for n in rng.integers(1, 4000, 64)]
    for a in arrays:
        device_view(a)  # warm up: NumPy and the runtime allocate once
    gc.collect()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for i in range(100_000):
        v = device_view(arrays[i % len(arrays)])
        del v
    gc.collect()
    assert registered() == 0
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
    assert grown_kib < 16 * 1024, f"resident memory grew by {grown_kib} KiB over 100k cycles"


def test_eight_threads_wrap_and_drop_overlapping_arrays(module):
    buffer = np.zeros(64 * 1024)  # 512 KiB, slices of it overlap from thread to thread
    errors = []

    def work(k):
        try:
            for i in range(400):
                lo = (k * 997 + i * 131) % 60000
                v = device_view(buffer[lo : lo + 4000])
                if i % 50 == 0:
                    kokkos.deep_copy(v, float(k))
                del v
        except Exception as e:  # noqa: BLE001  reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads) and not errors, errors
    kokkos.fence()
    assert registered() == 0
    v = device_view(buffer.reshape(-1, 2))
    module.scale(v, 0.0)
    kokkos.fence()
    assert (buffer == 0).all()


def test_memory_the_runtime_cannot_register(tmp_path, cp):
    # a read-only file mapping: the runtime refuses to pin it (the View is
    # refused with its reason), or registers it read-only (then the GPU reads it)
    path = tmp_path / "data.bin"
    np.arange(1024.0).tofile(path)
    mapped = np.memmap(path, dtype=np.float64, mode="r")
    try:
        v = device_view(mapped)
    except kokkos.DeviceAccessError as e:
        assert "registering the array's 8192 bytes with its runtime failed" in str(e)
        assert registered() == 0
    else:
        assert float(cp.asarray(v).sum()) == float(np.arange(1024.0).sum())
        del v
    del mapped


def test_strict_setting_registers_nothing(monkeypatch):
    monkeypatch.setenv("KOKKOS_PYTHON_REGISTER_HOST_MEMORY", "0")
    v = device_view(np.zeros(100))
    assert registered() == 0
    with pytest.raises(kokkos.DeviceAccessError, match="which this GPU cannot read"):
        kokkos.deep_copy(v, 1.0)
