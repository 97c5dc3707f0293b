"""The C API alone: kp_test_c (tests/cxx/capi_module.c) is a plain C
extension module that includes only kokkos_python.h and links neither
Kokkos nor kokkos._core. It makes Views over its own malloc'd memory with a
deleter, over Python-owned memory, reads descriptions back, and checks every
rejection of a bad description."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import cxx_build
import kokkos

DTYPES = list(kokkos.all_dtypes)
AVAILABLE = set(kokkos.enabled_memory_spaces())


@pytest.fixture(scope="module")
def c():
    return cxx_build.test_module("kp_test_c")


def np_dtype(d):
    return np.dtype(kokkos.get_dtype(d))


def test_api_info(c):
    info = c.api_info()
    assert info["version"] >= 1
    assert info["size"] > 0 and info["max_rank"] == 8
    major, minor, patch = kokkos.kokkos_version()
    assert info["kokkos_version"] == major * 10000 + minor * 100 + patch
    assert info["has_runtime"]
    assert "kokkoscore" in info["kokkos_library"]
    assert info["is_initialized"] == 1 and info["is_finalized"] == 0
    assert info["version"] >= 2 and info["inline_capacity"] >= 64


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 1, 3, 2)], ids=str)
@pytest.mark.parametrize("fortran", [False, True])
def test_view_over_c_memory(c, dtype, shape, fortran):
    calls = c.deleter_calls()
    v = c.from_malloc(int(dtype), list(shape), fortran=fortran, label="c_mem")
    assert type(v).__base__ is kokkos.View and v.label == "c_mem"
    assert v.shape == shape and v.dtype == dtype and v.space == kokkos.HostSpace
    if len(shape) >= 1 and any(e > 1 for e in shape):
        assert v.layout == (kokkos.LayoutLeft if fortran else kokkos.LayoutRight)
    a = np.asarray(v)
    assert a.dtype == np_dtype(dtype) and a.shape == shape
    assert a.flags.f_contiguous if fortran else a.flags.c_contiguous
    a[...] = np.ones(shape, dtype=a.dtype)
    d = c.describe(v)
    assert d["data"] == v.data and d["rank"] == len(shape) and d["dtype"] == int(dtype)
    assert d["extents"] == shape and d["label"] == "c_mem" and d["dynamic"] == 0
    assert d["strides"] == tuple(s // a.itemsize for s in a.strides)
    # The memory goes exactly once, when the last reference does.
    sub = (v[1:] if len(shape) == 1 else v[0]) if shape else None
    del v, a
    gc.collect()
    assert c.deleter_calls() == calls + (0 if shape else 1)
    del sub
    gc.collect()
    assert c.deleter_calls() == calls + 1


def test_no_leak_over_many_views(c):
    calls, live = c.deleter_calls(), c.live_buffers()
    for _ in range(20000):
        v = c.from_malloc(int(kokkos.double), [4, 4])
        np.asarray(v)[0, 0] = 1.0
    del v
    gc.collect()
    assert c.deleter_calls() == calls + 20000
    assert c.live_buffers() == live


def test_dyn_rank_view_from_c(c):
    v = c.from_malloc(int(kokkos.int32), [3, 2], dynamic=True)
    assert type(v).__base__ is kokkos.DynRankView and c.is_dyn_rank_view(v) and c.is_view(v)
    assert c.describe(v)["dynamic"] == 1
    with pytest.raises(ValueError, match=r"rank 8 is outside 0\.\.7 for a DynRankView"):
        c.raw(8, int(kokkos.double), 0, 0, [1] * 8, [1] * 8, False, True)


def test_view_over_python_owned_memory(c):
    data = np.arange(6, dtype=np.int64).tobytes()
    before = sys.getrefcount(data)
    v = c.from_owner(data, int(kokkos.int64), [2, 3], [1, 2])
    assert sys.getrefcount(data) == before + 1  # the View's owner holds it
    assert v.readonly and v.layout == kokkos.LayoutStride
    np.testing.assert_array_equal(np.asarray(v), np.arange(6).reshape(3, 2).T)
    assert c.owner(v).exporter is data
    del v
    gc.collect()
    assert sys.getrefcount(data) == before


def test_describe_python_views(c):
    v = kokkos.array("py", [4, 3], dtype=kokkos.float32, layout=kokkos.LayoutLeft)
    d = c.describe(v)
    assert d == {
        "data": v.data,
        "rank": 2,
        "dtype": int(kokkos.float32),
        "space": int(kokkos.HostSpace),
        "layout": int(kokkos.LayoutLeft),
        "traits": 0,
        "readonly": 0,
        "dynamic": 0,
        "extents": (4, 3),
        "strides": (1, 4),
        "label": "py",
    }
    s = v[1:3, ::2]
    assert c.describe(s)["strides"] == (1, 8) and c.describe(s)["data"] == s.data
    assert c.owner(s) is v.allocation
    assert c.owner(kokkos.array("e", [0], dtype=kokkos.double)) in (None, kokkos.array("e", [0]).allocation)


def test_checks(c):
    v = kokkos.array("x", [2], dtype=kokkos.double)
    d = kokkos.array("y", [2], dtype=kokkos.double, dynamic=True)
    assert c.is_view(v) and c.is_view(d) and not c.is_dyn_rank_view(v) and c.is_dyn_rank_view(d)
    for other in (np.zeros(2), None, 3, "View"):
        assert not c.is_view(other) and not c.is_dyn_rank_view(other)
    assert not c.is_released(v) and not c.is_released(v.allocation) and not c.is_released(None)


def test_describe_and_owner_reject_non_views(c):
    with pytest.raises(TypeError, match=r"describe\(\): expected a kokkos.View, got numpy.ndarray"):
        c.describe(np.zeros(3))
    with pytest.raises(TypeError, match=r"owner\(\): expected a kokkos.View, got int"):
        c.owner(3)
    with pytest.raises(TypeError, match=r"external_owner\(\): expected a kokkos.View, got NoneType"):
        c.external_ctx(None, "t")


def test_external_owner_tags(c):
    v = c.from_malloc(int(kokkos.double), [2])
    assert isinstance(c.external_ctx(v, c.tag), int)
    assert c.external_ctx(v, "another.tag") is None
    assert c.external_ctx(kokkos.array("k", [2], dtype=kokkos.double), c.tag) is None
    assert c.external_ctx(v[1:], c.tag) == c.external_ctx(v, c.tag)  # same owner


# ---- view_from_inline (version 2): the context lives in the View's owner -----------------


@pytest.mark.parametrize("shape", [(), (5,), (3, 4)], ids=str)
def test_view_with_inline_context(c, shape):
    made, gone, misaligned = c.inline_calls()
    live = c.live_buffers()
    v = c.from_inline(int(kokkos.int32), list(shape), label="inline_mem")
    assert c.inline_calls() == (made + 1, gone, 0) and misaligned == 0
    assert type(v).__base__ is kokkos.View and v.label == "inline_mem" and v.shape == shape
    np.asarray(v)[...] = 7
    ctx = c.external_ctx(v, c.inline_tag)
    assert ctx is not None and ctx % 16 == 0  # the storage itself, aligned
    assert c.external_ctx(v, c.tag) is None
    assert not gc.is_tracked(v) and not gc.is_tracked(v.allocation)  # no Python object behind it
    sub = v[1:] if len(shape) >= 1 else None
    del v
    gc.collect()
    assert c.inline_calls()[1] == gone + (0 if shape else 1)  # the subview keeps the context
    if sub is not None:
        assert c.external_ctx(sub, c.inline_tag) == ctx and (np.asarray(sub) == 7).all()
    del sub
    gc.collect()
    assert c.inline_calls() == (made + 1, gone + 1, 0) and c.live_buffers() == live


def test_no_leak_over_many_inline_views(c):
    made, gone, _ = c.inline_calls()
    live = c.live_buffers()
    for _ in range(20000):
        v = c.from_inline(int(kokkos.double), [4, 4], label="loop")
        np.asarray(v)[0, 0] = 1.0
    del v
    gc.collect()
    assert c.inline_calls()[:2] == (made + 20000, gone + 20000) and c.live_buffers() == live


INLINE_BAD = [
    ("too big", {"size": 65}, ValueError, r"view_from_inline\(\): a context of 65 bytes does not fit the 64 bytes"),
    ("no construct", {"null_construct": True}, ValueError, r"construct and destroy functions are required"),
    ("overflow", {"shape": [2**62, 2**62]}, ValueError, r"view_from_inline\(\): a View of this shape would need"),
    ("extent", {"shape": [2, -1]}, ValueError, r"extent 1 is -1; extents must be >= 0"),
]


@pytest.mark.parametrize("kw,exc,match", [b[1:] for b in INLINE_BAD], ids=[b[0] for b in INLINE_BAD])
def test_inline_rejections_build_nothing(c, kw, exc, match):
    calls, live = c.inline_calls(), c.live_buffers()
    kw = {"shape": [2], **kw}
    with pytest.raises(exc, match=match):
        c.from_inline(int(kokkos.double), kw.pop("shape"), **kw)
    assert c.inline_calls() == calls and c.live_buffers() == live  # construct never ran; the buffer is ours


def test_inline_context_destroyed_when_the_view_cannot_be_made(c):
    # strides spanning more than the address space are found after the context was built
    made, gone, _ = c.inline_calls()
    live = c.live_buffers()
    with pytest.raises(BufferError, match=r"^kokkos: .*would span more than"):
        c.from_inline(int(kokkos.double), [4], strides=[2**62])
    assert c.inline_calls()[:2] == (made + 1, gone + 1) and c.live_buffers() == live


def test_deleter_not_called_when_the_view_cannot_be_made(c):
    calls, live = c.deleter_calls(), c.live_buffers()
    with pytest.raises(BufferError, match=r"^kokkos: .*would span more than"):
        c.raw(1, int(kokkos.double), 0, 0, [4], [2**62], False, False)
    assert c.deleter_calls() == calls and c.live_buffers() == live


def test_labels_handed_over(c):
    """Labels come from a small cache keyed by their bytes: many labels (more
    than it holds, so that they collide), non-ASCII, long and empty ones all
    read back as given, and Views of one label share one str."""
    labels = [f"label_{i}" for i in range(300)] + ["Temperatur_°C", "x" * 65, "y" * 64, ""]
    views = [c.from_inline(int(kokkos.double), [1], label=text) for text in labels]
    assert [v.label for v in views] == labels
    again = [c.from_inline(int(kokkos.double), [1], label=text) for text in labels]
    assert [v.label for v in again] == labels
    same = [c.from_inline(int(kokkos.double), [1], label="y" * 64) for _ in range(2)]
    assert same[0].label is same[1].label
    assert c.from_inline(int(kokkos.double), [1]).label == ""  # NULL: no label
    made, gone, _ = c.inline_calls()
    with pytest.raises(UnicodeDecodeError):
        c.from_inline(int(kokkos.double), [1], label_bytes=b"\xff")
    assert c.inline_calls()[:2] == (made + 1, gone + 1)


def test_view_from_object(c):
    a = np.arange(4.0)
    v = c.view_from_object(a, True, False)
    assert v.data == a.ctypes.data and type(v).__base__ is kokkos.View
    np.asarray(v)[0] = 9.0
    assert a[0] == 9.0
    assert type(c.view_from_object(a, True, True)).__base__ is kokkos.DynRankView
    assert c.view_from_object(v, True, False) is v
    const = np.arange(3.0)
    const.flags.writeable = False
    assert c.view_from_object(const, False, False).readonly
    with pytest.raises(BufferError):
        c.view_from_object(const, True, False)
    with pytest.raises(BufferError, match="is read-only; a writable View was requested"):
        c.view_from_object(c.view_from_object(const, False, False), True, False)
    with pytest.raises(TypeError, match="exposes neither the buffer protocol nor __array_interface__"):
        c.view_from_object(object(), False, False)
    # named as the C API function the module called, not a Python call it never made
    with pytest.raises(TypeError, match=r"^kokkos_python view_from_object\(\): cannot use str as View memory"):
        c.view_from_object("abc", False, False)


# ---- every rejection of a bad description; the deleter is never called ----------------------


BAD = [
    (
        "rank",
        (9, int(kokkos.double), 0, 0, [1] * 8, [1] * 8, False, False),
        ValueError,
        r"view_from_deleter\(\): rank 9 is outside 0\.\.8 for a View",
    ),
    ("negative rank", (-1, int(kokkos.double), 0, 0, [], [], False, False), ValueError, r"rank -1 is outside"),
    ("dtype", (1, 99, 0, 0, [2], [1], False, False), ValueError, r"99 is not a kokkos dtype \(0\.\.13\)"),
    (
        "space",
        (1, int(kokkos.double), 42, 0, [2], [1], False, False),
        ValueError,
        r"42 is not a kokkos memory space \(0\.\.9\)",
    ),
    (
        "traits",
        (1, int(kokkos.double), 0, 64, [2], [1], False, False),
        ValueError,
        r"traits 0x40 are not a combination of kokkos memory traits",
    ),
    (
        "extent",
        (2, int(kokkos.double), 0, 0, [2, -1], [1, 1], False, False),
        ValueError,
        r"extent 1 is -1; extents must be >= 0",
    ),
    (
        "null data",
        (1, int(kokkos.double), 0, 0, [4], [1], True, False),
        ValueError,
        r"data is NULL but the View has 32 bytes",
    ),
    (
        "overflow",
        (2, int(kokkos.double), 0, 0, [2**62, 2**62], [1, 1], False, False),
        ValueError,
        r"would need more than",
    ),
]


@pytest.mark.parametrize("args,exc,match", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_descriptions_rejected(c, args, exc, match):
    calls, live = c.deleter_calls(), c.live_buffers()
    with pytest.raises(exc, match=match):
        c.raw(*args)
    assert c.deleter_calls() == calls and c.live_buffers() == live


@pytest.mark.skipif("CudaSpace" in AVAILABLE, reason="CudaSpace is enabled here")
def test_unavailable_space_rejected(c):
    with pytest.raises(RuntimeError, match=r"memory space CudaSpace is not enabled in the installed Kokkos"):
        c.raw(1, int(kokkos.double), int(kokkos.CudaSpace), 0, [2], [1], False, False)


def test_empty_view_with_null_data(c):
    v = c.raw(1, int(kokkos.double), 0, 0, [0], [1], True, False)
    assert v.shape == (0,) and np.asarray(v).size == 0


def test_runtime_check(c):
    c.check_runtime_same()
    with pytest.raises(
        ImportError,
        match=r"kp_test_c uses a different Kokkos library than the kokkos package: "
        r"the module was built against Kokkos 3\.4\.1 \(.*\), kokkos._core runs "
        r"Kokkos \d+\.\d+\.\d+ \(.*kokkoscore.*\)\. Two Kokkos runtimes",
    ):
        c.check_runtime_other()


def test_runtime_ensure(c):
    c.runtime_ensure()
    assert kokkos.is_initialized()
