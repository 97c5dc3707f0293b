"""Host memory as an Unmanaged View in a CUDA space (docs/views.md, "Host
memory in a device space"): the View is made over the array's own memory
whatever it is; a C++ kernel reads and writes it where the GPU can reach it
(device memory behind a host pointer, pinned memory, managed memory,
pageable memory on a GPU with pageable memory access); where it cannot,
the package registers its pages with the CUDA runtime for as long as a View
needs them (test_cuda_host_register.py), and under the strict setting
kernels, copies and device exports refuse it with a message. The cuda-marked
tests need a CUDA Kokkos, CuPy and the C++ test module of test_cuda_cxx.py;
the last test checks the refusal on a Kokkos without CUDA."""

import ctypes

import numpy as np
import pytest

import kokkos
from support import HAS_CUDA, cuda_fill_module

needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space")

# CUDA's device attribute number of cudaDevAttrPageableMemoryAccess.
PAGEABLE_MEMORY_ACCESS = 88


@pytest.fixture(scope="module")
def module():
    return cuda_fill_module()


@pytest.fixture
def cp():
    return pytest.importorskip("cupy")


def pageable_access(cp):
    return cp.cuda.runtime.deviceGetAttribute(PAGEABLE_MEMORY_ACCESS, cp.cuda.Device().id) != 0


def data_pointer(obj):
    return obj.__array_interface__["data"][0]


def scaled_by_kernel(module, host, view):
    """Runs the C++ kernel on view (over host's memory) and checks host saw it."""
    host[...] = np.arange(host.size, dtype=np.float64).reshape(host.shape)
    module.scale(view, 3.0)
    kokkos.fence()
    np.testing.assert_array_equal(host, 3.0 * np.arange(host.size).reshape(host.shape))


@pytest.mark.cuda
@needs_cuda
def test_device_memory_behind_a_host_pointer(module, cp):
    # pykokkos' from_array: an ndarray made over a CuPy array's device pointer
    c = cp.arange(20, dtype=cp.float64).reshape(4, 5)
    fake = np.ctypeslib.as_array(ctypes.cast(c.data.ptr, ctypes.POINTER(ctypes.c_double)), shape=c.shape)
    v = kokkos.unmanaged_array(fake, dtype=kokkos.double, space=kokkos.CudaSpace, layout=kokkos.LayoutRight)
    assert v.space == kokkos.CudaSpace and kokkos.Unmanaged in kokkos.memory_trait(v.trait)
    # the host consumer gets back the buffer it gave (pykokkos: np.array(view, copy=False))
    assert data_pointer(np.array(v, copy=False)) == c.data.ptr
    module.scale(v, 2.0)
    assert bool((c == 2.0 * cp.arange(20).reshape(4, 5)).all())
    assert cp.asarray(v).data.ptr == c.data.ptr  # a real device View: CuPy takes it too
    with pytest.raises(kokkos.HostAccessError):
        v[0, 0]  # noqa: B018  the package's own element access follows the space


@pytest.mark.cuda
@needs_cuda
def test_pinned_host_memory(module, cp):
    import cupyx

    host = cupyx.zeros_pinned((6, 7), dtype=np.float64)
    v = kokkos.unmanaged_array(host, space=kokkos.CudaSpace)
    assert data_pointer(np.asarray(v)) == data_pointer(host)
    scaled_by_kernel(module, host, v)
    d = kokkos.array([6, 7], space=kokkos.CudaSpace)
    kokkos.deep_copy(d, v)  # a device copy from it
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(d)), host)


@pytest.mark.cuda
@needs_cuda
def test_managed_memory(module, cp):
    managed = kokkos.array([5, 3], space=kokkos.CudaUVMSpace)
    host = np.asarray(managed)  # an ndarray over managed memory
    v = kokkos.array(host, trait=kokkos.Unmanaged, space=kokkos.CudaSpace)
    scaled_by_kernel(module, host, v)
    kokkos.deep_copy(v, 1.5)  # a fill on the device
    kokkos.fence()
    assert (host == 1.5).all()


@pytest.mark.cuda
@needs_cuda
def test_pageable_memory_where_the_gpu_reads_it(module, cp):
    if not pageable_access(cp):
        pytest.skip("this GPU has no pageable memory access (HMM / ATS): test_cuda_host_register.py covers it")
    host = np.zeros((8, 3))
    v = kokkos.unmanaged_array(host, space=kokkos.CudaSpace)
    scaled_by_kernel(module, host, v)
    sub = v[2:5]  # a subview of it is as usable
    kokkos.deep_copy(sub, 7.0)
    kokkos.fence()
    assert (host[2:5] == 7.0).all() and (host[5:] != 7.0).all()
    assert cp.asarray(v).data.ptr == data_pointer(host)


@pytest.mark.cuda
@needs_cuda
def test_pageable_memory_refused_under_the_strict_setting(module, cp, monkeypatch):
    # KOKKOS_PYTHON_REGISTER_HOST_MEMORY=0 registers nothing: pageable memory
    # a GPU cannot read is refused where it would be used (on a GPU with HMM /
    # ATS, KOKKOS_PYTHON_PAGEABLE_ACCESS=0 makes it one without)
    monkeypatch.setenv("KOKKOS_PYTHON_REGISTER_HOST_MEMORY", "0")
    if pageable_access(cp):
        monkeypatch.setenv("KOKKOS_PYTHON_PAGEABLE_ACCESS", "0")
    host = np.arange(12.0).reshape(4, 3)
    v = kokkos.unmanaged_array(host, space=kokkos.CudaSpace)  # made, as pykokkos needs
    assert v.space == kokkos.CudaSpace and kokkos._core._registered_host_bytes() == 0
    assert data_pointer(np.array(v, copy=False)) == data_pointer(host)
    unreachable = "pageable host memory, which this GPU cannot read"
    # the casters refuse it, saying why (no kernel runs): as an argument and
    # cast explicitly, as pykokkos' kernels take their Views
    with pytest.raises(kokkos.DeviceAccessError, match=f"from_python: View .*{unreachable}"):
        module.scale(v, 2.0)
    with pytest.raises(kokkos.DeviceAccessError, match=f"from_python: View .*{unreachable}"):
        module.scale_cast(v, 2.0)
    d = kokkos.array([4, 3], space=kokkos.CudaSpace)
    with pytest.raises(kokkos.DeviceAccessError, match=f"kokkos.deep_copy.*{unreachable}.*pinned host memory"):
        kokkos.deep_copy(d, v)
    with pytest.raises(ValueError, match=unreachable):
        kokkos.deep_copy(v, d)
    with pytest.raises(ValueError, match=unreachable):
        kokkos.deep_copy(v, 0.0)
    for view in (v, v[1:]):  # subviews carry the mark
        with pytest.raises(BufferError, match=unreachable):
            _ = view.__cuda_array_interface__
        with pytest.raises(BufferError, match=unreachable):
            view.__dlpack__()
    np.testing.assert_array_equal(host, np.arange(12.0).reshape(4, 3))
    # the same memory made a View without the setting is registered and used
    monkeypatch.delenv("KOKKOS_PYTHON_REGISTER_HOST_MEMORY")
    scaled_by_kernel(module, host, kokkos.unmanaged_array(host, space=kokkos.CudaSpace))


@pytest.mark.cuda
@needs_cuda
@pytest.mark.parametrize("space", ["CudaUVMSpace", "CudaHostPinnedSpace"])
def test_host_accessible_device_spaces_keep_refusing(space):
    # the host reads Views there directly: only memory of that space fits
    with pytest.raises(ValueError, match="would need a copy \\(it lives in HostSpace, not "):
        kokkos.unmanaged_array(np.zeros(3), space=space)


def test_device_space_this_kokkos_lacks():
    if HAS_CUDA:
        pytest.skip("this Kokkos has CUDA")
    with pytest.raises(RuntimeError, match=r"kokkos.unmanaged_array\(\): memory space CudaSpace is not enabled"):
        kokkos.unmanaged_array(np.zeros(3), space=kokkos.CudaSpace)


def test_device_access_error_is_what_each_refusal_raised():
    # deep_copy and from_python raised ValueError, the device exports
    # BufferError; a RuntimeError makes the C++ casters raise it rather than
    # try the next overload (docs/views.md)
    err = kokkos.DeviceAccessError
    assert issubclass(err, ValueError) and issubclass(err, BufferError) and issubclass(err, RuntimeError)
    assert err.__module__ == "kokkos" and "cannot read" in err.__doc__
    assert "DeviceAccessError" in kokkos.__all__
