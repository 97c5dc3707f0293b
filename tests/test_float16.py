"""float16 (IEEE binary16) Views: creation by every accepted name, element
reads and writes rounded exactly as NumPy rounds (round-to-nearest-even,
subnormals, signed zeros, overflow to infinity, nan), zero-copy exchange
with NumPy (buffer protocol 'e', __array_interface__ '<f2') and DLPack
(kDLFloat, 16 bits) with NumPy and PyTorch both ways, pickling, deep copies
between layouts and fills, every rank and layout, and the C++ side
(Kokkos::Experimental::half_t and _Float16 through kokkos_python.hpp).

The sweeps over kokkos.all_dtypes in the other test files cover float16 too;
this file holds what is particular to it."""

import gc
import pickle
import struct
import sys

import numpy as np
import pytest

import kokkos
from support import LAYOUTS, shape_of, stable_id

F16 = np.float16


def bits(a):
    return np.asarray(a, dtype=F16).view(np.uint16)


def every_half():
    """All 65536 binary16 values, in bit-pattern order."""
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(F16)


def numpy_half(values):
    """NumPy's float64 -> float16 conversion, without its overflow warning."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(F16)


# ---- names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        kokkos.float16,
        kokkos.half,
        kokkos.dtype.float16,
        13,
        F16,
        np.dtype(F16),
        np.dtype("<f2"),
        "float16",
        "half",
        "f2",
        "<f2",
        "=f2",
        "e",
        np.zeros(1, F16),
    ],
    ids=repr,
)
def test_created_by_every_accepted_name(name):
    v = kokkos.array([4], dtype=name)
    assert v.dtype is kokkos.float16 and v.itemsize == 2 and v.nbytes == 8
    assert np.asarray(v).dtype == F16 and np.all(np.asarray(v) == 0)
    w = kokkos.View((2, 3), name, layout=kokkos.LayoutLeft)
    assert w.dtype is kokkos.float16 and w.strides == (2, 4)


def test_enum_and_helpers():
    assert kokkos.float16 == 13 and kokkos.half is kokkos.float16
    assert kokkos.all_dtypes[-1] is kokkos.float16 and kokkos.float16 not in kokkos.dtypes
    assert str(kokkos.float16) == "dtype.float16"
    assert np.dtype(kokkos.float16) == F16
    assert kokkos.get_dtype("float16") is kokkos.float16
    assert kokkos.get_dtype(kokkos.float16) == "float16"
    assert kokkos.read_dtype(F16) is kokkos.float16
    assert kokkos.convert_dtype(kokkos.float16) is F16
    assert np.zeros(2, dtype=kokkos.float16).dtype == F16
    v = kokkos.array("h", [2], dtype=kokkos.float16)
    assert "float16" in repr(v)


def test_dynamic_rank_view():
    d = kokkos.array([3, 2], dtype="float16", dynamic=True)
    assert type(d).__base__ is kokkos.DynRankView and d.dtype is kokkos.float16
    d[1, 1] = 0.1
    assert d[1, 1] == float(F16(0.1))


@pytest.mark.parametrize(
    "name,exc,match",
    [
        ("float8", ValueError, "unknown dtype 'float8'"),
        ("f3", ValueError, "unknown dtype 'f3'"),
        (">f2", ValueError, r"unknown dtype '>f2'"),
        (np.dtype(">f2"), TypeError, "dtype >f2 is not supported by Kokkos Views"),
        (np.longdouble, TypeError, r"is not supported by Kokkos Views \(supported: .*float16, float32"),
    ],
    ids=repr,
)
def test_bad_names(name, exc, match):
    with pytest.raises(exc, match=match):
        kokkos.array([2], dtype=name)


# ---- element reads and writes ------------------------------------------------------------


def test_every_value_reads_as_numpy_reads_it():
    h = every_half()
    v = kokkos.array(h)
    got = np.array([v[i] for i in range(h.size)])
    assert all(type(v[i]) is float for i in (0, 1, 0x3C00, 0x7C00, 0x7E00))
    want = h.astype(np.float64)
    assert np.array_equal(got, want, equal_nan=True)
    # signs of zeros and nans too
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_every_finite_value_round_trips_through_python():
    h = every_half()
    h = h[np.isfinite(h)]
    v = kokkos.View((h.size,), kokkos.float16)
    for i, x in enumerate(h.tolist()):
        v[i] = x
    assert np.array_equal(bits(v), bits(h))


def test_midpoints_round_to_nearest_even():
    # Halfway between neighbours (exact in float64), and a hair either side:
    # ties go to the even neighbour, the rest to the nearer one.
    h = every_half()
    h = h[np.isfinite(h)]
    pos = np.sort(h[h > 0].astype(np.float64))
    pos = np.concatenate([[0.0], pos])
    mid = (pos[:-1] + pos[1:]) / 2
    values = np.concatenate([mid, np.nextafter(mid, 0), np.nextafter(mid, np.inf)])
    values = np.concatenate([values, -values])
    v = kokkos.View((values.size,), kokkos.float16)
    for i, x in enumerate(values.tolist()):
        v[i] = x
    assert np.array_equal(bits(v), bits(numpy_half(values)))
    # the textbook cases
    v = kokkos.View((4,), kokkos.float16)
    v[0], v[1], v[2], v[3] = 2049, 2051, 1 + 2**-11, 1 + 3 * 2**-11
    assert list(v) == [2048.0, 2052.0, 1.0, 1 + 2**-9]


def test_random_values_as_numpy():
    rng = np.random.default_rng(16)
    mags = 10.0 ** rng.uniform(-10, 6, 20000)
    values = mags * rng.choice([-1.0, 1.0], mags.size)
    v = kokkos.View((values.size,), kokkos.float16)
    for i, x in enumerate(values.tolist()):
        v[i] = x
    assert np.array_equal(bits(v), bits(numpy_half(values)))


@pytest.mark.parametrize(
    "value,expected",
    [
        (65504.0, 65504.0),
        (65519.99, 65504.0),  # rounds down to the largest finite value
        (65520.0, np.inf),  # the tie rounds to even: 2**16, which overflows
        (-65520.0, -np.inf),
        (1e300, np.inf),
        (-1e300, -np.inf),
        (70000, np.inf),  # a Python int
        (np.float32(1e10), np.inf),
        (float("inf"), np.inf),
        (float("-inf"), -np.inf),
    ],
)
def test_overflow_gives_infinity_as_numpy(value, expected):
    v = kokkos.View((1,), kokkos.float16)
    v[0] = value
    assert v[0] == expected
    assert bits(v)[0] == bits(numpy_half([float(value)]))[0]


def test_subnormals_zeros_and_nan():
    tiny = 2.0**-24  # the smallest subnormal
    cases = [
        tiny,
        tiny / 2,
        tiny * 0.5000001,
        tiny * 1.5,
        tiny * 2.5,
        2.0**-14,
        2.0**-14 - tiny,
        1e-9,
        -1e-9,
        0.0,
        -0.0,
        -tiny / 2,
    ]
    v = kokkos.View((len(cases),), kokkos.float16)
    for i, x in enumerate(cases):
        v[i] = x
    assert np.array_equal(bits(v), bits(numpy_half(cases)))
    assert v[0] == tiny and v[1] == 0.0 and v[2] == tiny and v[3] == 2 * tiny and v[4] == 2 * tiny
    assert str(v[10]) == "-0.0" and str(v[11]) == "-0.0"  # signed zeros survive
    n = kokkos.View((2,), kokkos.float16)
    n[0] = float("nan")
    n[1] = -float("nan")
    assert np.isnan(n[0]) and np.isnan(n[1])
    assert bits(n)[0] == 0x7E00 and bits(n)[1] == 0xFE00  # quiet nans, as NumPy's


def test_stores_numbers_of_every_kind():
    v = kokkos.View((7,), kokkos.float16)
    v[0] = 3
    v[1] = True
    v[2] = F16(0.1)
    v[3] = np.float32(0.1)
    v[4] = np.float64(0.1)
    v[5] = np.int64(-7)

    class Real:
        def __float__(self):
            return 2.5

    v[6] = Real()
    assert list(v) == [3.0, 1.0, float(F16(0.1)), float(F16(0.1)), float(F16(0.1)), -7.0, 2.5]


@pytest.mark.parametrize(
    "value,exc,match",
    [
        ("1.0", TypeError, "cannot store a str in a View of float16"),
        (b"1", TypeError, "cannot store a bytes in a View of float16"),
        (1j, TypeError, "cannot store a complex in a View of float16"),
        (object(), TypeError, "cannot store a object in a View of float16"),
        (None, TypeError, "cannot store a NoneType in a View of float16"),
        (10**400, OverflowError, "int too large to convert to float"),
    ],
    ids=stable_id,
)
def test_bad_stores(value, exc, match):
    v = kokkos.View((2, 2), kokkos.float16)
    np.asarray(v)[...] = 1.5
    with pytest.raises(exc, match=match):
        v[0, 1] = value
    if isinstance(value, (int, complex)):  # Python scalars fill through the same conversion
        with pytest.raises(exc, match=match):
            kokkos.deep_copy(v, value)
    assert np.all(np.asarray(v) == 1.5)  # nothing written


def test_failing_float_conversion_propagates():
    class Bad:
        def __float__(self):
            raise ZeroDivisionError("no float here")

    v = kokkos.View((1,), kokkos.float16)
    with pytest.raises(ZeroDivisionError, match="no float here"):
        v[0] = Bad()


# ---- ranks, layouts, fills, copies ----------------------------------------------------------


@pytest.mark.parametrize("layout", [kokkos.LayoutRight, kokkos.LayoutLeft])
@pytest.mark.parametrize("rank", range(9))
def test_every_rank_and_layout(rank, layout):
    shape = shape_of(rank)
    v = kokkos.View(shape, kokkos.float16, layout=layout)
    ref = (np.arange(int(np.prod(shape))).reshape(shape) * 0.25 - 3).astype(F16)
    for idx in np.ndindex(*shape):
        v[idx] = float(ref[idx])
    a = np.asarray(v)
    assert a.dtype == F16 and a.shape == shape and a.ctypes.data == v.data
    np.testing.assert_array_equal(a, ref)
    assert a.flags.f_contiguous if layout == kokkos.LayoutLeft else a.flags.c_contiguous
    for idx in np.ndindex(*shape):
        assert v[idx] == float(ref[idx])
    if rank:
        assert v.strides == a.strides


@pytest.mark.parametrize("rank", range(1, 9))
def test_deep_copy_between_layouts(rank):
    shape = shape_of(rank)
    ref = (np.random.default_rng(rank).standard_normal(shape) * 100).astype(F16)
    right = kokkos.View(shape, kokkos.float16)
    np.asarray(right)[...] = ref
    left = kokkos.View(shape, kokkos.float16, layout=kokkos.LayoutLeft)
    kokkos.deep_copy(left, right)
    assert np.array_equal(bits(left), bits(ref))
    back = kokkos.View(shape, kokkos.float16)
    back.deep_copy(left)
    assert np.array_equal(bits(back), bits(ref))
    # strided subviews (LayoutStride) both ways
    if rank >= 2:
        big = kokkos.View(tuple(2 * e for e in shape), kokkos.float16, layout=kokkos.LayoutLeft)
        sub = big[tuple(slice(None, None, 2) for _ in shape)]
        assert sub.layout == kokkos.LayoutStride
        kokkos.deep_copy(sub, right)
        assert np.array_equal(bits(sub), bits(ref))
        kokkos.deep_copy(left, 0.0)
        kokkos.deep_copy(left, sub)
        assert np.array_equal(bits(left), bits(ref))


def test_mirrors():
    v = kokkos.View((3, 4), kokkos.float16, layout=kokkos.LayoutLeft)
    np.asarray(v)[...] = np.arange(12).reshape(3, 4) / 8
    m = v.create_mirror()
    assert m.dtype is kokkos.float16 and m.layout == kokkos.LayoutLeft and m.data != v.data
    np.testing.assert_array_equal(np.asarray(m), np.asarray(v))
    assert kokkos.create_mirror_view(v).data == v.data


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fill_with_scalars(layout):
    base = kokkos.View((6, 5), kokkos.float16, layout=layout if layout != kokkos.LayoutStride else kokkos.LayoutRight)
    v = base[::2, 1:] if layout == kokkos.LayoutStride else base
    kokkos.deep_copy(v, 0.1)
    assert np.all(bits(v) == bits(F16(0.1)))
    v.deep_copy(1e6)  # overflows to infinity, as NumPy's fill
    assert np.all(np.isposinf(np.asarray(v)))
    kokkos.deep_copy(v, F16(-2.5))
    assert np.all(np.asarray(v) == -2.5)
    v[...] = 7
    assert np.all(np.asarray(v) == 7)
    if layout == kokkos.LayoutStride:
        untouched = np.asarray(base)[1::2, :]
        assert np.all(untouched == 0) and np.all(np.asarray(base)[:, 0] == 0)


def test_converting_copies_go_through_numpy_rounding():
    src = np.array([0.1, 65520.0, 1e-8, -3.75], np.float64)
    v = kokkos.View((4,), kokkos.float16)
    with np.errstate(over="ignore"):
        kokkos.deep_copy(v, src)
        kokkos.deep_copy(v, kokkos.array(src))  # a float64 View
    assert np.array_equal(bits(v), bits(numpy_half(src)))
    f32 = kokkos.View((4,), kokkos.float32)
    kokkos.deep_copy(f32, v)
    np.testing.assert_array_equal(np.asarray(f32), numpy_half(src).astype(np.float32))
    c = kokkos.array(np.ones(3, np.float32), dtype=kokkos.float16)
    assert c.dtype is kokkos.float16 and list(c) == [1.0, 1.0, 1.0]
    # a Python sequence
    kokkos.deep_copy(v, [1.5, 2.5, 3.5, 4.5])
    assert list(v) == [1.5, 2.5, 3.5, 4.5]


# ---- NumPy: buffer protocol and __array_interface__ -----------------------------------------------


def test_buffer_and_array_interface_export():
    v = kokkos.View((3, 4), kokkos.float16, layout=kokkos.LayoutLeft)
    m = memoryview(v)
    assert m.format == "e" and m.itemsize == 2 and m.shape == (3, 4) and m.strides == (2, 6)
    assert struct.calcsize(m.format) == 2
    ai = v.__array_interface__
    assert ai["typestr"] == "<f2" and ai["data"][0] == v.data and ai["strides"] == (2, 6)
    a = np.asarray(v)
    assert a.dtype == F16 and a.ctypes.data == v.data
    a[2, 3] = 0.3
    assert v[2, 3] == float(F16(0.3))
    v[0, 0] = -1.25
    assert a[0, 0] == -1.25
    del m


def test_numpy_arrays_wrap_without_copy():
    arr = np.arange(12, dtype=F16).reshape(3, 4) / 4
    v = kokkos.array(arr)
    assert v.dtype is kokkos.float16 and v.data == arr.ctypes.data
    assert v.trait & kokkos.Unmanaged and v.layout == kokkos.LayoutRight
    v[1, 1] = 9.5
    assert arr[1, 1] == 9.5
    f = kokkos.array(np.asfortranarray(arr))
    assert f.layout == kokkos.LayoutLeft
    s = kokkos.array(arr[:, ::2])
    assert s.layout == kokkos.LayoutStride and s.strides == (8, 4) and s[2, 1] == arr[2, 2]
    ro = arr.copy()
    ro.flags.writeable = False
    r = kokkos.array(ro)
    assert r.readonly
    with pytest.raises(ValueError, match="read-only"):
        r[0, 0] = 1.0
    # the View keeps the array's memory alive
    ref = sys.getrefcount(arr)
    w = kokkos.array(arr)
    assert sys.getrefcount(arr) > ref
    del w
    gc.collect()
    assert sys.getrefcount(arr) == ref
    # copy=True
    c = kokkos.array(arr, copy=True)
    assert c.data != arr.ctypes.data and c.dtype is kokkos.float16
    np.testing.assert_array_equal(np.asarray(c), arr)


def test_misaligned_byte_strides_rejected():
    raw = np.zeros(16, np.uint8)
    odd = np.lib.stride_tricks.as_strided(raw.view(F16), shape=(3,), strides=(3,))
    with pytest.raises(ValueError, match="not a multiple"):
        kokkos.array(odd)


def test_big_endian_rejected():
    with pytest.raises(TypeError, match="not supported by Kokkos Views"):
        kokkos.array(np.zeros(3, ">f2"))


# ---- DLPack --------------------------------------------------------------------------------------


def test_dlpack_numpy_both_ways():
    v = kokkos.View((4, 3), kokkos.float16, layout=kokkos.LayoutLeft)
    np.asarray(v)[...] = np.arange(12).reshape(4, 3) / 2
    a = np.from_dlpack(v)
    assert a.dtype == F16 and a.ctypes.data == v.data and a.strides == (2, 8)
    np.testing.assert_array_equal(a, np.asarray(v))
    arr = np.linspace(-1, 1, 10).astype(F16)
    w = kokkos.from_dlpack(arr)
    assert w.dtype is kokkos.float16 and w.data == arr.ctypes.data
    assert w[3] == float(arr[3])
    x = kokkos.asarray(arr)
    assert x.dtype is kokkos.float16 and x.data == arr.ctypes.data


def test_dlpack_capsule_dtype():
    import ctypes

    v = kokkos.View((2,), kokkos.float16)
    cap = v.__dlpack__(max_version=(1, 0))
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    p = get(cap, b"dltensor_versioned")
    # DLManagedTensorVersioned: version (8), manager_ctx, deleter, flags (8),
    # then DLTensor: data, device (8), ndim (4), dtype {code u8, bits u8, lanes u16}
    dl_tensor = p + 8 + 8 + 8 + 8
    code, nbits, lanes = struct.unpack("BBH", ctypes.string_at(dl_tensor + 8 + 8 + 4, 4))
    assert (code, nbits, lanes) == (2, 16, 1)  # kDLFloat, 16 bits
    del cap


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def test_dlpack_torch_both_ways(torch):
    v = kokkos.View((3, 4), kokkos.float16)
    np.asarray(v)[...] = np.arange(12).reshape(3, 4) - 5.5
    t = torch.from_dlpack(v)
    assert t.dtype == torch.float16 and t.data_ptr() == v.data and t.shape == (3, 4)
    t[1, 2] = 0.1
    assert v[1, 2] == float(F16(0.1))
    assert v.allocation.exports >= 1
    del t
    gc.collect()

    src = torch.arange(20, dtype=torch.float16).reshape(4, 5) / 3
    w = kokkos.from_dlpack(src)
    assert w.dtype is kokkos.float16 and w.data == src.data_ptr() and w.layout == kokkos.LayoutRight
    np.testing.assert_array_equal(np.asarray(w), src.numpy())
    w[0, 0] = 42
    assert src[0, 0].item() == 42.0
    strided = kokkos.from_dlpack(src[:, ::2])
    assert strided.layout == kokkos.LayoutStride and strided.strides == (10, 4)
    np.testing.assert_array_equal(np.asarray(strided), src[:, ::2].numpy())
    c = kokkos.asarray(src, copy=True)
    assert c.data != src.data_ptr() and c.dtype is kokkos.float16
    # and back: torch sees the same values, bits included
    special = torch.tensor([float("inf"), -0.0, 2.0**-24, 65504.0], dtype=torch.float16)
    sv = kokkos.from_dlpack(special)
    assert list(sv) == [float("inf"), -0.0, 2.0**-24, 65504.0]
    assert torch.equal(torch.from_dlpack(sv).view(torch.int16), special.view(torch.int16))


def test_torch_dtype_helpers(torch):
    assert kokkos.convert_dtype("float16", torch) is torch.float16
    assert kokkos.convert_dtype(kokkos.half, torch) is torch.float16


# ---- pickle --------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [2, 5])
@pytest.mark.parametrize("layout", [kokkos.LayoutRight, kokkos.LayoutLeft])
def test_pickle_keeps_every_bit(layout, protocol):
    h = every_half()[::97].reshape(-1, 2)  # nans, infinities, subnormals, zeros among them
    v = kokkos.View(h.shape, kokkos.float16, layout=layout, label="halves")
    np.asarray(v)[...] = h
    w = pickle.loads(pickle.dumps(v, protocol=protocol))
    assert w.dtype is kokkos.float16 and w.layout == layout and w.label == "halves"
    assert np.array_equal(bits(w), bits(h))
    d = kokkos.DynRankView((3,), kokkos.float16)
    d[2] = 0.5
    e = pickle.loads(pickle.dumps(d))
    assert type(e).__base__ is kokkos.DynRankView and e.dtype is kokkos.float16 and e[2] == 0.5


def test_view_from_bytes_checks_size():
    with pytest.raises(ValueError, match="float16"):
        kokkos._core._view_from_bytes(bytes(5), kokkos.float16, (3,), kokkos.LayoutRight, "x", False, 0)


# ---- __cuda_array_interface__ (code path; no GPU here) --------------------------------------------


def test_cuda_array_interface_refuses_host_views():
    v = kokkos.View((2,), kokkos.float16)
    with pytest.raises(AttributeError, match="__cuda_array_interface__"):
        v.__cuda_array_interface__  # noqa: B018  (the attribute access raises)


# ---- C++: half_t and _Float16 through kokkos_python.hpp ----------------------------------------------


@pytest.fixture(scope="module")
def pyb():
    import cxx_build

    return cxx_build.test_module("kp_test_pyb")


@pytest.mark.cxx_modules
def test_half_t_maps_to_what_kokkos_stores(pyb):
    dtype, is_float, size = pyb.half_t_dtype()
    if is_float:  # host-only backends: Kokkos makes half_t a float
        assert (dtype, size) == (int(kokkos.float32), 4)
    else:
        assert (dtype, size) == (int(kokkos.float16), 2)


@pytest.mark.cxx_modules
def test_cxx_float16_round_trip(pyb):
    if not hasattr(pyb, "make_float16_2_right"):
        pytest.skip("the C++ compiler has no _Float16")
    v = pyb.make_float16_2_right([3, 4])
    assert v.dtype is kokkos.float16 and v.shape == (3, 4)
    np.testing.assert_array_equal(np.asarray(v), (np.arange(12) + 0.5).reshape(3, 4).astype(F16))
    assert pyb.echo_float16_2_right(v).data == v.data
    w = kokkos.View((3, 4), kokkos.float16)
    assert pyb.echo_float16_2_right(w) is w  # a Python View comes back as itself
    arr = np.zeros((3, 4), F16)
    pyb.fill_float16_2_right(arr)
    np.testing.assert_array_equal(arr, np.asarray(v))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        pyb.fill_float16_2_right(np.zeros((3, 4), np.float32))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        pyb.fill_float32_2_right(kokkos.View((3, 4), kokkos.float16))


def test_one_element_views_convert_to_python_numbers():
    h = kokkos.array([1, 1], dtype=kokkos.float16)
    h[0, 0] = 0.1
    assert float(h) == float(F16(0.1)) and complex(h) == float(F16(0.1))
    z = kokkos.View((), kokkos.float16)
    z[()] = -2.5
    assert float(z) == -2.5 and int(z) == -2 and bool(z) is True
    with pytest.raises(TypeError, match=r"dtype float16\) cannot be used as an index"):
        [0, 1, 2][z]
