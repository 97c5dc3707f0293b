"""CUDA memory spaces (run where the installed Kokkos has CUDA; skipped
elsewhere): Views in CudaSpace, CudaUVMSpace and CudaHostPinnedSpace, copies
between every pair of spaces and layouts, fills on the device, mirrors, and
the host-access rules."""

import numpy as np
import pytest

import kokkos
from support import DTYPES, HAS_CUDA, NP_DTYPES, sample, shape_of

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space"),
]

CUDA_SPACES = ["CudaSpace", "CudaUVMSpace", "CudaHostPinnedSpace"]
ALL_SPACES = ["HostSpace"] + CUDA_SPACES


def to_host(v):
    return np.asarray(v.create_mirror_view(copy=True))


def make(space, kind, dt, shape):
    if kind == "stride":
        big = kokkos.array([s * 2 for s in shape], dtype=dt, space=space)
        return big[tuple(slice(None, None, 2) for _ in shape)]
    lay = kokkos.LayoutRight if kind == "right" else kokkos.LayoutLeft
    return kokkos.array(list(shape), dtype=dt, space=space, layout=lay)


@pytest.mark.parametrize("space", CUDA_SPACES)
@pytest.mark.parametrize("rank", [0, 1, 2, 3, 8])
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_create_fill_copy_back(space, rank, dt):
    shape = shape_of(rank)
    v = kokkos.array(list(shape), dtype=dt, space=space)
    assert v.space == kokkos.get_memory_space(space)
    assert not to_host(v).any(), "zero-filled on the device"
    one = NP_DTYPES[dt].type(1).item()
    kokkos.deep_copy(v, one)
    assert (to_host(v) == one).all()
    ref = sample(NP_DTYPES[dt], shape, seed=rank)
    kokkos.deep_copy(v, ref)
    np.testing.assert_array_equal(to_host(v), ref)


KINDS = ["right", "left", "stride"]


@pytest.mark.parametrize("src_kind", KINDS)
@pytest.mark.parametrize("dst_kind", KINDS)
@pytest.mark.parametrize("src_space", ALL_SPACES)
@pytest.mark.parametrize("dst_space", ALL_SPACES)
def test_copy_every_space_and_layout_pair(dst_space, src_space, dst_kind, src_kind):
    shape = (5, 4, 3)
    ref = sample(np.dtype(np.float64), shape, seed=7)
    src = make(src_space, src_kind, kokkos.float64, shape)
    staging = kokkos.array(list(shape))
    kokkos.deep_copy(staging, ref)
    kokkos.deep_copy(src, staging)
    dst = make(dst_space, dst_kind, kokkos.float64, shape)
    kokkos.deep_copy(dst, src)
    np.testing.assert_array_equal(to_host(dst), ref)


@pytest.mark.parametrize("dt", [kokkos.int8, kokkos.int16, kokkos.float32, kokkos.complex128], ids=str)
def test_strided_device_fill_and_copy_every_itemsize(dt):
    v = kokkos.array([6, 8], dtype=dt, space="CudaSpace")
    sub = v[1::2, ::3]
    kokkos.deep_copy(sub, 1)
    host = to_host(v)
    expected = np.zeros((6, 8), NP_DTYPES[dt])
    expected[1::2, ::3] = 1
    np.testing.assert_array_equal(host, expected)


def test_cuda_space_refuses_host_access():
    v = kokkos.array("dev", [4], space=kokkos.CudaSpace)
    assert not v.host_accessible and not kokkos.get_host_accessible(kokkos.CudaSpace)
    for action in (
        lambda: v[0],
        lambda: v.__setitem__(0, 1.0),
        lambda: np.asarray(v),
        lambda: memoryview(v),
        lambda: v.__array_interface__,
    ):
        with pytest.raises(kokkos.HostAccessError, match="CudaSpace.*create_mirror_view"):
            action()
    with pytest.raises(BufferError):
        memoryview(v)
    with pytest.raises(RuntimeError):
        v[0]
    sub = v[1:3]  # a subview touches no memory
    assert sub.shape == (2,)


@pytest.mark.parametrize("space", ["CudaUVMSpace", "CudaHostPinnedSpace"])
def test_uvm_and_pinned_are_host_accessible(space):
    assert kokkos.get_host_accessible(space)
    v = kokkos.array([2, 2], dtype=kokkos.float64, space=space)
    v[1, 1] = 3.0
    a = np.asarray(v)
    assert a[1, 1] == 3.0
    a[0, 0] = 2.0
    kokkos.fence()
    assert v[0, 0] == 2.0
    assert v.create_mirror_view() is v


def test_mirrors_of_device_views():
    d = kokkos.array("d", [3, 4], dtype=kokkos.int32, space=kokkos.CudaSpace, layout=kokkos.LayoutLeft)
    kokkos.deep_copy(d, np.arange(12, dtype=np.int32).reshape(3, 4))
    m = d.create_mirror()
    assert m.space == kokkos.HostSpace and m.layout == kokkos.LayoutLeft and m.label == "d_mirror"
    np.testing.assert_array_equal(np.asarray(m), np.arange(12).reshape(3, 4))
    mv = kokkos.create_mirror_view(d)
    assert mv is not d and mv.space == kokkos.HostSpace
    back = kokkos.create_mirror_view_and_copy(kokkos.CudaSpace, m)
    assert back.space == kokkos.CudaSpace
    np.testing.assert_array_equal(to_host(back), np.arange(12).reshape(3, 4))
    same = kokkos.create_mirror_view_and_copy(kokkos.CudaSpace, d)
    assert same is d


def test_seed_headline_example_uvm():
    view = kokkos.array(
        [2, 2],
        dtype=kokkos.double,
        space=kokkos.CudaUVMSpace,
        layout=kokkos.LayoutRight,
        trait=kokkos.RandomAccess,
        dynamic=False,
    )
    arr = np.array(view, copy=False)
    arr[0, 1] = 5.0
    assert view[0, 1] == 5.0


def test_shared_space_aliases():
    assert kokkos.memory_space["SharedSpace"] == kokkos.CudaUVMSpace
    assert kokkos.memory_space["SharedHostPinnedSpace"] == kokkos.CudaHostPinnedSpace
    v = kokkos.array([2], space="SharedSpace")
    assert v.space == kokkos.CudaUVMSpace


@pytest.mark.parametrize("shape", [(1000, 1000), (77, 1030), (33, 32)])
@pytest.mark.parametrize("dt", [kokkos.int8, kokkos.int16, kokkos.float32, kokkos.float64, kokkos.complex128], ids=str)
def test_device_transpose(dt, shape):
    ref = sample(NP_DTYPES[dt], shape, seed=3)
    r = kokkos.array(list(shape), dtype=dt, space=kokkos.CudaSpace)
    kokkos.deep_copy(r, ref)
    l = kokkos.array(list(shape), dtype=dt, space=kokkos.CudaSpace, layout=kokkos.LayoutLeft)
    kokkos.deep_copy(l, r)
    np.testing.assert_array_equal(to_host(l), ref)
    back = kokkos.array(list(shape), dtype=dt, space=kokkos.CudaSpace)
    kokkos.deep_copy(back, l)
    np.testing.assert_array_equal(to_host(back), ref)
