"""DLPack both ways: View.__dlpack__ / __dlpack_device__, kokkos.from_dlpack,
the DLPack 1.3 C exchange table, with NumPy and PyTorch (CPU) as real
partners, and hand-made capsules (ctypes) that count their deleter calls."""

import ctypes
import gc
import sys

import numpy as np
import pytest

import kokkos
from dlpack_abi import (
    IS_COPIED,
    LEGACY_DELETER,
    NAMES,
    READ_ONLY,
    VERSIONED_DELETER,
    DLDataType,
    DLDevice,
    DLManagedTensor,
    DLManagedTensorVersioned,
    DLTensor,
    DLVersion,
    capsule_name,
    capsule_new,
    capsule_pointer,
    legacy_of,
    versioned_of,
)
from support import DTYPES, NP_DTYPES, run_scenario, sample, shape_of, succeeded

RANKS = list(range(9))


class Producer:
    """A hand-made DLPack producer: owns a NumPy buffer, hands out one
    capsule, and counts the calls of its deleter."""

    def __init__(
        self,
        arr,
        *,
        versioned=True,
        version=(1, 0),
        flags=0,
        device=(1, 0),
        dtype=None,
        ndim=None,
        strides="auto",
        byte_offset=0,
        shape=None,
        name=None,
    ):
        self.arr = arr
        self.deleted = 0
        self.versioned = versioned
        n = arr.ndim if ndim is None else ndim
        shp = arr.shape if shape is None else shape
        self._shape = (ctypes.c_int64 * max(n, 1))(*shp)
        if strides == "auto":
            self._strides = (ctypes.c_int64 * max(n, 1))(*[s // arr.itemsize for s in arr.strides])
        elif strides is None:
            self._strides = None
        else:
            self._strides = (ctypes.c_int64 * max(n, 1))(*strides)
        t = DLTensor()
        t.data = arr.ctypes.data
        t.device = DLDevice(*device)
        t.ndim = n
        if dtype is None:
            kinds = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
            dtype = (kinds[arr.dtype.kind], arr.itemsize * 8, 1)
        t.dtype = DLDataType(*dtype)
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64)) if self._strides is not None else None
        t.byte_offset = byte_offset
        if versioned:
            self._deleter = VERSIONED_DELETER(self._delete)
            self.managed = DLManagedTensorVersioned(DLVersion(*version), None, self._deleter, flags, t)
        else:
            self._deleter = LEGACY_DELETER(self._delete)
            self.managed = DLManagedTensor(t, None, self._deleter)
        if name is None:
            name = b"dltensor_versioned" if versioned else b"dltensor"
        self.capsule = capsule_new(ctypes.addressof(self.managed), NAMES[name], None)

    def _delete(self, ptr):
        self.deleted += 1

    def __dlpack__(self, **kwargs):
        cap, self.capsule = self.capsule, None
        return cap

    def __dlpack_device__(self):
        return tuple(self.managed.dl_tensor.device.device_type for _ in (0,)) + (
            self.managed.dl_tensor.device.device_id,
        )


class Holder:
    """Hands a ready capsule to consumers that only take producers (NumPy)."""

    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, **kwargs):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


def filled_view(np_dtype, shape, layout=kokkos.LayoutRight, seed=0):
    v = kokkos.View(shape, np_dtype, layout=layout)
    vals = sample(np_dtype, shape, seed)
    kokkos.deep_copy(v, vals)
    return v, vals


# ---- export to NumPy --------------------------------------------------------------------


@pytest.mark.parametrize("rank", RANKS)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_numpy_from_view_every_dtype_and_rank(dt, rank):
    np_dtype = NP_DTYPES[dt]
    shape = shape_of(rank)
    v, vals = filled_view(np_dtype, shape)
    a = np.from_dlpack(v)
    assert a.dtype == np_dtype
    assert a.shape == shape
    np.testing.assert_array_equal(a, vals)
    assert a.ctypes.data == v.data
    assert a.flags.writeable
    if rank:
        # writes visible both ways
        idx = (1,) * rank
        a[idx] = vals.flat[0]
        new = vals.flat[-1]
        v[idx] = new
        assert a[idx] == new


@pytest.mark.parametrize("layout", [kokkos.LayoutRight, kokkos.LayoutLeft])
def test_numpy_sees_layout_strides(layout):
    v, vals = filled_view(np.dtype("float32"), (3, 4, 5), layout=layout)
    a = np.from_dlpack(v)
    assert a.strides == v.strides
    assert a.flags.f_contiguous == (layout == kokkos.LayoutLeft)
    np.testing.assert_array_equal(a, vals)


def test_numpy_from_strided_subview():
    v, vals = filled_view(np.dtype("int64"), (6, 8))
    sub = v[1:5:2, ::3]
    a = np.from_dlpack(sub)
    np.testing.assert_array_equal(a, vals[1:5:2, ::3])
    a[1, 1] = -7
    assert v[3, 3] == -7


def test_numpy_from_dynrankview():
    v = kokkos.DynRankView((2, 3), kokkos.int32)
    v[1, 2] = 9
    a = np.from_dlpack(v)
    assert a.shape == (2, 3) and a[1, 2] == 9


def test_readonly_view_exports_readonly():
    arr = np.arange(6.0)
    arr.flags.writeable = False
    v = kokkos.from_dlpack(arr)
    assert v.readonly
    a = np.from_dlpack(v)
    assert not a.flags.writeable
    cap = v.__dlpack__(max_version=(1, 0))
    assert versioned_of(cap).flags & READ_ONLY
    with pytest.raises(BufferError, match="read-only.*legacy DLPack capsule"):
        v.__dlpack__()
    # a copy is writable and says it was copied
    cap = v.__dlpack__(max_version=(1, 0), copy=True)
    m = versioned_of(cap)
    assert m.flags == IS_COPIED
    c = np.from_dlpack(Holder(cap))
    assert c.flags.writeable
    c[0] = 42.0
    assert arr[0] == 0.0


def test_numpy_copy_true_is_a_copy():
    v, vals = filled_view(np.dtype("float64"), (4, 3))
    a = np.from_dlpack(v, copy=True)
    assert a.ctypes.data != v.data
    np.testing.assert_array_equal(a, vals)
    a[0, 0] = 1234.0
    assert v[0, 0] == vals[0, 0]


def test_numpy_copy_true_keeps_layout():
    v, vals = filled_view(np.dtype("float64"), (4, 3), layout=kokkos.LayoutLeft)
    cap = v.__dlpack__(max_version=(1, 0), copy=True)
    m = versioned_of(cap)
    assert [m.dl_tensor.strides[i] for i in range(2)] == [1, 4]
    np.testing.assert_array_equal(np.from_dlpack(Holder(cap)), vals)


def test_numpy_dl_device_cpu():
    v, _vals = filled_view(np.dtype("float64"), (5,))
    a = np.from_dlpack(v, device="cpu")
    assert a.ctypes.data == v.data
    cap = v.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    assert versioned_of(cap).flags == 0


# ---- the capsules themselves ---------------------------------------------------------------


def test_dlpack_device():
    assert kokkos.View((2,)).__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("rank", RANKS)
def test_versioned_capsule_fields(rank):
    shape = shape_of(rank)
    v = kokkos.View(shape, kokkos.complex64, layout=kokkos.LayoutLeft)
    cap = v.__dlpack__(max_version=(1, 7))
    assert capsule_name(cap) == "dltensor_versioned"
    m = versioned_of(cap)
    assert (m.version.major, m.version.minor) == (1, 3)
    assert m.flags == 0
    t = m.dl_tensor
    assert t.data == v.data and t.byte_offset == 0
    assert (t.device.device_type, t.device.device_id) == (1, 0)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (5, 64, 1)
    assert t.ndim == rank
    assert bool(t.strides)  # always filled (DLPack >= 1.2)
    assert tuple(t.shape[i] for i in range(rank)) == shape
    assert tuple(t.strides[i] for i in range(rank)) == tuple(s // 8 for s in v.strides)


def test_versioned_minor_follows_consumer():
    v = kokkos.View((2,))
    assert versioned_of(v.__dlpack__(max_version=(1, 0))).version.minor == 0
    assert versioned_of(v.__dlpack__(max_version=(1, 2))).version.minor == 2
    # a newer major: still the 1.x struct (the consumer checks the major)
    assert versioned_of(v.__dlpack__(max_version=(2, 0))).version.major == 1


def test_legacy_capsule_fields():
    v = kokkos.View((3, 2), kokkos.bool)
    for kwargs in ({}, {"max_version": None}, {"max_version": (0, 8)}):
        cap = v.__dlpack__(**kwargs)
        assert capsule_name(cap) == "dltensor"
        t = legacy_of(cap).dl_tensor
        assert (t.dtype.code, t.dtype.bits) == (6, 8)
        assert [t.strides[i] for i in range(2)] == [2, 1]


def test_capsule_renamed_when_consumed():
    v = kokkos.View((3,))
    cap = v.__dlpack__(max_version=(1, 0))
    np.from_dlpack(Holder(cap))
    assert capsule_name(cap) == "used_dltensor_versioned"
    cap = v.__dlpack__()
    w = kokkos.from_dlpack(cap)
    assert capsule_name(cap) == "used_dltensor"
    assert w.data == v.data
    with pytest.raises(BufferError, match="consumed already"):
        kokkos.from_dlpack(cap)


def test_capsule_with_wrong_name():
    p = Producer(np.zeros(3), name=b"something_else")
    with pytest.raises(TypeError, match="got one named 'something_else'"):
        kokkos.from_dlpack(p.capsule)
    assert p.deleted == 0


# ---- lifetimes and reference counts ------------------------------------------------------------


def test_capsule_never_consumed_releases():
    v = kokkos.View((10,))
    alloc = v.allocation
    base = sys.getrefcount(alloc)
    cap = v.__dlpack__(max_version=(1, 0))
    assert alloc.exports == 1
    assert sys.getrefcount(alloc) == base + 1
    del cap
    gc.collect()
    assert alloc.exports == 0
    assert sys.getrefcount(alloc) == base


def test_legacy_capsule_never_consumed_releases():
    v = kokkos.View((10,))
    alloc = v.allocation
    base = sys.getrefcount(alloc)
    cap = v.__dlpack__()
    del cap
    gc.collect()
    assert alloc.exports == 0 and sys.getrefcount(alloc) == base


def test_view_deleted_first_numpy_keeps_memory():
    v, vals = filled_view(np.dtype("float64"), (1000,))
    alloc = v.allocation
    base = sys.getrefcount(alloc)
    a = np.from_dlpack(v)
    assert alloc.exports == 1
    del v
    gc.collect()
    np.testing.assert_array_equal(a, vals)
    a[:] = 3.0
    assert a.sum() == 3000.0
    del a
    gc.collect()
    assert alloc.exports == 0
    assert sys.getrefcount(alloc) == base - 1  # the View's reference went too


def test_refcounts_flat_over_many_exports():
    v = kokkos.View((16,), kokkos.int32)
    alloc = v.allocation
    base_v, base_a = sys.getrefcount(v), sys.getrefcount(alloc)
    for _ in range(2000):
        a = np.from_dlpack(v)
        w = kokkos.from_dlpack(v)
        c = v.__dlpack__(max_version=(1, 0))
        del a, w, c
    gc.collect()
    assert sys.getrefcount(v) == base_v
    assert sys.getrefcount(alloc) == base_a
    assert alloc.exports == 0


def test_numpy_producer_deleted_first():
    arr = sample(np.dtype("int16"), (4, 5))
    expect = arr.copy()
    base = sys.getrefcount(arr)
    v = kokkos.from_dlpack(arr)
    assert sys.getrefcount(arr) == base + 1
    assert v.data == arr.ctypes.data
    del arr
    gc.collect()
    np.testing.assert_array_equal(np.asarray(v), expect)


def test_numpy_producer_released_once():
    arr = np.arange(12.0)
    base = sys.getrefcount(arr)
    for _ in range(500):
        v = kokkos.from_dlpack(arr)
        sub = v[2:8]
        del v
        assert sys.getrefcount(arr) == base + 1  # the subview holds it
        del sub
    gc.collect()
    assert sys.getrefcount(arr) == base


@pytest.mark.parametrize("versioned", [True, False])
def test_deleter_runs_once_after_last_view(versioned):
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    p = Producer(arr, versioned=versioned)
    v = kokkos.from_dlpack(p)
    sub = v[1]
    assert p.deleted == 0
    del v
    gc.collect()
    assert p.deleted == 0
    assert list(np.asarray(sub)) == [3.0, 4.0, 5.0]
    a = np.from_dlpack(sub)  # re-export the foreign memory
    del sub
    gc.collect()
    assert p.deleted == 0
    assert a[2] == 5.0
    del a
    gc.collect()
    assert p.deleted == 1


def test_producer_flags_read_only():
    arr = np.arange(4.0)
    p = Producer(arr, flags=READ_ONLY)
    v = kokkos.from_dlpack(p)
    assert v.readonly
    with pytest.raises((ValueError, TypeError), match="read-only"):
        v[0] = 1.0


def test_legacy_producer_without_strides_and_with_offset():
    arr = np.arange(24, dtype=np.int64)
    p = Producer(arr, versioned=False, strides=None, shape=(2, 5), ndim=2, byte_offset=16)
    v = kokkos.from_dlpack(p)
    np.testing.assert_array_equal(np.asarray(v), arr[2:12].reshape(2, 5))
    assert not v.readonly


def test_view_keeps_producer_alive_in_subprocess_shutdown():
    """Capsules never consumed, Views of foreign memory and arrays of View
    memory alive at interpreter exit: no crash, no error output."""
    r = succeeded(run_scenario("dlpack_exit", "alive_at_exit"))
    assert r.stdout.strip() == "ok"
    assert "Error" not in r.stderr and "Traceback" not in r.stderr


def test_numpy_array_survives_finalize_in_subprocess():
    r = succeeded(run_scenario("dlpack_exit", "numpy_array_survives_finalize"))
    assert r.stdout.strip() == "ok"


# ---- import from NumPy ---------------------------------------------------------------------------


@pytest.mark.parametrize("rank", RANKS)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_from_numpy_every_dtype_and_rank(dt, rank):
    np_dtype = NP_DTYPES[dt]
    arr = sample(np_dtype, shape_of(rank), seed=rank)
    v = kokkos.from_dlpack(arr)
    assert int(v.dtype) == int(dt)
    assert tuple(v.shape) == arr.shape
    assert v.space == kokkos.HostSpace
    assert v.trait == kokkos.Unmanaged
    assert not v.readonly
    assert v.data == arr.ctypes.data
    np.testing.assert_array_equal(np.asarray(v), arr)
    if rank:
        idx = (1,) * rank
        v[idx] = arr.flat[0]
        assert arr[idx] == arr.flat[0]
        arr[idx] = arr.flat[-1]
        assert v[idx] == arr.flat[-1]


@pytest.mark.parametrize(
    "make, layout",
    [
        (lambda a: a.T, kokkos.LayoutLeft),
        (lambda a: a[::2, 1::3], kokkos.LayoutStride),
        (lambda a: a[:, ::-1], kokkos.LayoutStride),
        (lambda a: np.asfortranarray(a), kokkos.LayoutLeft),
        (lambda a: a, kokkos.LayoutRight),
    ],
    ids=["transposed", "sliced", "reversed", "fortran", "c"],
)
def test_from_numpy_strided(make, layout):
    base = sample(np.dtype("float64"), (6, 9))
    arr = make(base)
    v = kokkos.from_dlpack(arr)
    assert v.layout == layout
    assert v.strides == arr.strides
    np.testing.assert_array_equal(np.asarray(v), arr)
    v[1, 1] = -1.0
    assert arr[1, 1] == -1.0


def test_from_numpy_readonly_stays_readonly():
    arr = np.arange(5.0)
    arr.flags.writeable = False
    v = kokkos.from_dlpack(arr)
    assert v.readonly
    with pytest.raises((ValueError, TypeError), match="read-only"):
        v[0] = 3.0
    with pytest.raises(ValueError, match="read-only"):
        kokkos.deep_copy(v, 1.0)
    assert arr[0] == 0.0


def test_from_dlpack_view_round_trip():
    v, _vals = filled_view(np.dtype("uint32"), (3, 4))
    w = kokkos.from_dlpack(v)  # through the View type's C exchange table
    assert w is not v
    assert w.data == v.data and w.readonly == v.readonly
    w[2, 3] = 77
    assert v[2, 3] == 77


def test_from_dlpack_copy_and_device_arguments():
    arr = np.arange(8.0)
    v = kokkos.from_dlpack(arr, copy=True, label="copied")
    assert v.data != arr.ctypes.data and v.label == "copied"
    assert v.trait == kokkos.Managed
    v[0] = 100.0
    assert arr[0] == 0.0
    same = kokkos.from_dlpack(arr, device=kokkos.HostSpace, copy=False)
    assert same.data == arr.ctypes.data
    same = kokkos.from_dlpack(arr, device=(1, 0))
    assert same.data == arr.ctypes.data
    assert kokkos.from_dlpack(arr, label="mine").label == "mine"


# ---- errors ----------------------------------------------------------------------------------------


def test_unsupported_dtypes_rejected():
    p = Producer(np.zeros(4, np.uint8), dtype=(2, 8, 1), shape=(4,), strides=(1,), ndim=1)
    with pytest.raises(BufferError, match="float8 has no Kokkos View dtype"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1
    p = Producer(np.zeros(4, np.uint8), dtype=(4, 16, 1), shape=(2,), strides=(1,), ndim=1)
    with pytest.raises(BufferError, match="bfloat16 has no Kokkos View dtype"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1
    p = Producer(np.zeros(4, np.float32), dtype=(2, 32, 4), shape=(1,), strides=(1,), ndim=1)
    with pytest.raises(BufferError, match="code 2, 32 bits, 4 lanes"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1


def test_unsupported_devices_rejected():
    p = Producer(np.zeros(3), device=(7, 0))
    with pytest.raises(BufferError, match=r"device type 7 \(Vulkan\), which no Kokkos memory space"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1
    if not kokkos.get_memory_space_available("CudaSpace"):
        p = Producer(np.zeros(3), device=(2, 0))
        with pytest.raises(BufferError, match="CUDA device 0, but this Kokkos has no CudaSpace"):
            kokkos.from_dlpack(p)
        assert p.deleted == 1


def test_unsupported_major_version_released():
    p = Producer(np.zeros(3), version=(2, 0))
    with pytest.raises(BufferError, match="DLPack 2.0 tensor; kokkos reads DLPack major version 1"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1


def test_rank_above_eight_rejected():
    arr = np.zeros((1,) * 9)
    with pytest.raises(BufferError, match="rank-9 tensor exceeds Kokkos' maximum View rank 8"):
        kokkos.from_dlpack(arr)


def test_misaligned_and_null_data_rejected():
    arr = np.zeros(4)
    p = Producer(arr, byte_offset=3, shape=(2,), strides=(1,), ndim=1)
    with pytest.raises(BufferError, match="not aligned"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1
    p = Producer(arr, shape=(-1,), strides=(1,), ndim=1)
    with pytest.raises(BufferError, match=r"shape\[0\] is -1"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1


@pytest.mark.parametrize("strides", [(2**62,), (-(2**63) + 1,)])
def test_strides_spanning_beyond_memory_rejected(strides):
    p = Producer(np.zeros(4), shape=(4,), strides=strides, ndim=1)
    with pytest.raises(BufferError, match="strides would span more than"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1


def test_from_dlpack_argument_errors():
    arr = np.zeros(3)
    with pytest.raises(TypeError, match="does not support DLPack"):
        kokkos.from_dlpack(object())
    with pytest.raises(TypeError, match="does not support DLPack"):
        kokkos.from_dlpack([1, 2, 3])
    with pytest.raises(TypeError, match="missing its argument x"):
        kokkos.from_dlpack()
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        kokkos.from_dlpack(arr, None)
    with pytest.raises(TypeError, match="unexpected keyword argument 'stream'"):
        kokkos.from_dlpack(arr, stream=1)
    with pytest.raises(TypeError, match="copy must be True, False or None"):
        kokkos.from_dlpack(arr, copy="yes")
    with pytest.raises(TypeError, match="label must be a str"):
        kokkos.from_dlpack(arr, label=5)
    with pytest.raises(ValueError, match="DLPack device type 99 has no Kokkos memory space"):
        kokkos.from_dlpack(arr, device=(99, 0))
    with pytest.raises(ValueError, match="unknown memory space"):
        kokkos.from_dlpack(arr, device="NoSuchSpace")
    if not kokkos.get_memory_space_available("CudaSpace"):
        with pytest.raises(RuntimeError, match="CudaSpace is not enabled"):
            kokkos.from_dlpack(arr, device=kokkos.CudaSpace)


def test_dlpack_export_argument_errors():
    v = kokkos.View((3,))
    with pytest.raises(TypeError, match="takes 0 positional arguments"):
        v.__dlpack__(None)
    with pytest.raises(TypeError, match="unexpected keyword argument 'streams'"):
        v.__dlpack__(streams=None)
    with pytest.raises(TypeError, match="got multiple values|unexpected keyword"):
        v.__dlpack__(**{"copy": None, "copy ": None})
    with pytest.raises(TypeError, match="max_version must be a tuple of two ints"):
        v.__dlpack__(max_version=1)
    with pytest.raises(TypeError, match="max_version must be a tuple of two ints"):
        v.__dlpack__(max_version=(1, "0"))
    with pytest.raises(TypeError, match="dl_device must be a tuple of two ints"):
        v.__dlpack__(dl_device="cpu")
    with pytest.raises(BufferError, match=r"cannot export View '' \(in HostSpace.*to DLPack device \(2, 0\)"):
        v.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="copy must be True, False or None"):
        v.__dlpack__(copy=1)
    with pytest.raises(TypeError, match="stream must be an int or None"):
        v.__dlpack__(stream="s")
    with pytest.raises(ValueError, match="stream must be None for a tensor on the CPU"):
        v.__dlpack__(stream=1)
    assert v.allocation.exports == 0


# ---- PyTorch (CPU) ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("rank", [0, 1, 3, 8])
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_torch_from_view(torch, dt, rank):
    np_dtype = NP_DTYPES[dt]
    v, vals = filled_view(np_dtype, shape_of(rank))
    t = torch.from_dlpack(v)
    assert tuple(t.shape) == vals.shape
    assert t.data_ptr() == v.data
    np.testing.assert_array_equal(t.numpy(), vals)
    if rank:
        idx = (1,) * rank
        v[idx] = vals.flat[-1]
        assert t[idx].item() == vals.flat[-1]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_view_from_torch(torch, dt):
    np_dtype = NP_DTYPES[dt]
    vals = sample(np_dtype, (3, 4))
    t = torch.from_numpy(vals.copy())
    v = kokkos.from_dlpack(t)  # through torch's C exchange table
    assert v.data == t.data_ptr()
    np.testing.assert_array_equal(np.asarray(v), vals)
    v[2, 1] = vals[0, 0]
    assert t[2, 1].item() == vals[0, 0]
    cap = kokkos.from_dlpack(t.__dlpack__(max_version=(1, 0)))  # through a capsule
    assert cap.data == t.data_ptr()


def test_view_from_torch_strided_and_transposed(torch):
    base = torch.arange(48, dtype=torch.float64).reshape(6, 8)
    for t, layout in (
        (base.T, kokkos.LayoutLeft),
        (base[::2, 1::3], kokkos.LayoutStride),
        (base[1:], kokkos.LayoutRight),
    ):
        v = kokkos.from_dlpack(t)
        assert v.layout == layout
        assert tuple(s // 8 for s in v.strides) == t.stride()
        np.testing.assert_array_equal(np.asarray(v), t.numpy())


def test_torch_tensor_deleted_first(torch):
    t = torch.arange(100, dtype=torch.int32)
    v = kokkos.from_dlpack(t)
    del t
    gc.collect()
    assert np.asarray(v).sum() == 4950


def test_view_deleted_first_torch_keeps_memory(torch):
    v, vals = filled_view(np.dtype("float32"), (64,))
    alloc = v.allocation
    t = torch.from_dlpack(v)
    del v
    gc.collect()
    assert alloc.exports == 1
    np.testing.assert_array_equal(t.numpy(), vals)
    del t
    gc.collect()
    assert alloc.exports == 0


def test_torch_refcounts_flat(torch):
    t = torch.zeros(8)
    v = kokkos.View((8,))
    alloc = v.allocation
    base_t, base_a = sys.getrefcount(t), sys.getrefcount(alloc)
    for _ in range(1000):
        a = kokkos.from_dlpack(t)
        b = torch.from_dlpack(v)
        del a, b
    gc.collect()
    assert sys.getrefcount(t) == base_t
    assert sys.getrefcount(alloc) == base_a
    assert alloc.exports == 0


def test_torch_unsupported_dtype(torch):
    with pytest.raises(BufferError, match="bfloat16 has no Kokkos View dtype"):
        kokkos.from_dlpack(torch.zeros(3, dtype=torch.bfloat16))
    with pytest.raises(BufferError, match=r"DLPack code 12, 8 bits, 1 lanes\) has no Kokkos View dtype"):
        kokkos.from_dlpack(torch.zeros(3, dtype=torch.float8_e5m2))


# ---- the DLPack 1.3 C exchange table -------------------------------------------------------------

SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)


class ExchangeHeader(ctypes.Structure):
    _fields_ = [("version", DLVersion), ("prev_api", ctypes.c_void_p)]


class ExchangeAPI(ctypes.Structure):
    # Called with the GIL held, as the table requires: PYFUNCTYPE.
    _fields_ = [
        ("header", ExchangeHeader),
        (
            "managed_tensor_allocator",
            ctypes.PYFUNCTYPE(
                ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, SET_ERROR
            ),
        ),
        (
            "managed_tensor_from_py_object_no_sync",
            ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p)),
        ),
        (
            "managed_tensor_to_py_object_no_sync",
            ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.py_object)),
        ),
        (
            "dltensor_from_py_object_no_sync",
            ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor)),
        ),
        (
            "current_work_stream",
            ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p)),
        ),
    ]


@pytest.fixture
def api():
    cap = kokkos.View.__dlpack_c_exchange_api__
    assert capsule_name(cap) == "dlpack_exchange_api"
    assert kokkos.DynRankView.__dlpack_c_exchange_api__ is cap
    return ExchangeAPI.from_address(capsule_pointer(cap, b"dlpack_exchange_api"))


def test_exchange_api_header(api):
    assert (api.header.version.major, api.header.version.minor) == (1, 3)
    assert not api.header.prev_api


def test_exchange_api_from_py_object(api):
    v, _vals = filled_view(np.dtype("int32"), (3, 5), layout=kokkos.LayoutLeft)
    alloc = v.allocation
    out = ctypes.c_void_p()
    assert api.managed_tensor_from_py_object_no_sync(v, ctypes.byref(out)) == 0
    assert alloc.exports == 1
    m = DLManagedTensorVersioned.from_address(out.value)
    assert (m.version.major, m.version.minor) == (1, 3)
    t = m.dl_tensor
    assert t.data == v.data and t.ndim == 2
    assert [t.shape[i] for i in range(2)] == [3, 5] and [t.strides[i] for i in range(2)] == [1, 3]
    assert (t.dtype.code, t.dtype.bits) == (0, 32)
    m.deleter(ctypes.cast(out, ctypes.POINTER(DLManagedTensorVersioned)))
    assert alloc.exports == 0
    with pytest.raises(TypeError, match="expected a kokkos.View, got list"):
        api.managed_tensor_from_py_object_no_sync([1], ctypes.byref(out))


def test_exchange_api_dltensor(api):
    v = kokkos.View((4, 2), kokkos.float64)
    t = DLTensor()
    assert api.dltensor_from_py_object_no_sync(v, ctypes.byref(t)) == 0
    assert t.data == v.data and t.ndim == 2
    assert [t.shape[i] for i in range(2)] == [4, 2] and [t.strides[i] for i in range(2)] == [2, 1]
    assert v.allocation.exports == 0  # non-owning


def test_exchange_api_to_py_object_and_allocator(api):
    errors = []
    set_error = SET_ERROR(lambda ctx, kind, msg: errors.append((kind.decode(), msg.decode())))
    shape = (ctypes.c_int64 * 2)(3, 4)
    proto = DLTensor(
        None, DLDevice(1, 0), 2, DLDataType(2, 32, 1), ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)), None, 0
    )
    out = ctypes.c_void_p()
    assert api.managed_tensor_allocator(ctypes.byref(proto), ctypes.byref(out), None, set_error) == 0
    assert not errors
    obj = ctypes.py_object()
    assert api.managed_tensor_to_py_object_no_sync(out, ctypes.byref(obj)) == 0
    v = obj.value
    assert isinstance(v, kokkos.View)
    assert tuple(v.shape) == (3, 4) and v.dtype == kokkos.float32
    v[2, 3] = 1.5
    assert np.asarray(v)[2, 3] == 1.5
    # bad prototypes report through set_error, return -1
    bad = DLTensor(
        None, DLDevice(1, 0), 2, DLDataType(4, 16, 1), ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)), None, 0
    )
    assert api.managed_tensor_allocator(ctypes.byref(bad), ctypes.byref(out), None, set_error) == -1
    assert errors and errors[0][0] == "BufferError" and "bfloat16" in errors[0][1]


def test_exchange_api_refuses_null_arguments(api):
    errors = []
    set_error = SET_ERROR(lambda ctx, kind, msg: errors.append((kind.decode(), msg.decode())))
    out = ctypes.c_void_p()
    assert api.managed_tensor_allocator(None, ctypes.byref(out), None, set_error) == -1
    assert errors[-1][0] == "ValueError" and errors[-1][1].endswith("the prototype is NULL") and not out.value
    no_shape = DLTensor(None, DLDevice(1, 0), 2, DLDataType(2, 32, 1), None, None, 0)
    assert api.managed_tensor_allocator(ctypes.byref(no_shape), ctypes.byref(out), None, set_error) == -1
    assert errors[-1][0] == "ValueError" and "the prototype's shape is NULL for ndim 2" in errors[-1][1]
    with pytest.raises(ValueError, match=r"managed_tensor_to_py_object_no_sync\): the tensor is NULL"):
        api.managed_tensor_to_py_object_no_sync(None, ctypes.byref(ctypes.py_object()))


def test_exchange_api_current_work_stream(api):
    s = ctypes.c_void_p(1234)
    assert api.current_work_stream(1, 0, ctypes.byref(s)) == 0
    assert not s.value
