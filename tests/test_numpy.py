"""NumPy interop: buffer protocol and __array_interface__ out of Views,
zero-copy wrapping of NumPy memory into Views, and the lifetimes of both."""

import gc
import sys
import weakref

import numpy as np
import pytest

import kokkos
from support import DTYPES, LAYOUTS, NP_DTYPES, sample, shape_of


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("rank", range(0, 9))
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_asarray_shares_memory(dt, rank, layout):
    shape = shape_of(rank)
    v = kokkos.array(list(shape), dtype=dt, layout=layout)
    a = np.asarray(v)
    b = np.array(v, copy=False)
    m = memoryview(v)
    assert a.shape == b.shape == m.shape == shape
    assert a.dtype == NP_DTYPES[dt]
    ref = sample(NP_DTYPES[dt], shape)
    a[...] = ref
    np.testing.assert_array_equal(b, ref)
    np.testing.assert_array_equal(np.asarray(m), ref)
    if rank:
        idx = tuple(s - 1 for s in shape)
        assert v[idx] == ref[idx]
    assert m.format == np.dtype(NP_DTYPES[dt]).char or m.format in ("Zf", "Zd", "?", "q", "Q")


def test_array_interface():
    v = kokkos.array([3, 4], dtype=kokkos.int16, layout=kokkos.LayoutLeft)
    ai = v.__array_interface__
    assert ai["version"] == 3 and ai["shape"] == (3, 4) and ai["typestr"] == "<i2"
    assert ai["strides"] == (2, 6)
    assert ai["data"] == (v.data, False)
    c = kokkos.array([3, 4]).__array_interface__
    assert c["strides"] is None


def get_buffer(obj, flags):
    """PyObject_GetBuffer with explicit flags, as a C consumer calls it."""
    import ctypes

    buf = ctypes.create_string_buffer(256)  # larger than Py_buffer
    api = ctypes.pythonapi
    api.PyObject_GetBuffer.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    api.PyBuffer_Release.argtypes = [ctypes.c_void_p]
    api.PyObject_GetBuffer(obj, ctypes.addressof(buf), flags)
    api.PyBuffer_Release(ctypes.addressof(buf))


PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_ND, PyBUF_STRIDES = 0, 1, 8, 0x18
PyBUF_C_CONTIGUOUS, PyBUF_F_CONTIGUOUS, PyBUF_ANY_CONTIGUOUS = 0x38, 0x58, 0x98


def test_buffer_contiguity_requests():
    v = kokkos.array([4, 6])
    col = v[:, 1]
    for flags, match in [
        (PyBUF_C_CONTIGUOUS, "not C-contiguous"),
        (PyBUF_F_CONTIGUOUS, "not Fortran-contiguous"),
        (PyBUF_ANY_CONTIGUOUS, "not contiguous"),
        (PyBUF_ND, "did not ask for strides"),
        (PyBUF_SIMPLE, "did not ask for strides"),
    ]:
        with pytest.raises(BufferError, match=match):
            get_buffer(col, flags)
    get_buffer(col, PyBUF_STRIDES)
    get_buffer(v, PyBUF_C_CONTIGUOUS)
    get_buffer(kokkos.array([4, 6], layout=kokkos.LayoutLeft), PyBUF_F_CONTIGUOUS)
    assert np.asarray(col).strides == (48,)
    assert v.allocation.exports == 0


def test_exports_counted_on_allocation():
    v = kokkos.array([8])
    alloc = v.allocation
    assert alloc.exports == 0
    m1 = memoryview(v)
    a = np.asarray(v)
    assert alloc.exports == 2
    del m1, a
    gc.collect()
    assert alloc.exports == 0


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_from_numpy_zero_copy(dt):
    arr = sample(NP_DTYPES[dt], (3, 4))
    v = kokkos.array(arr)
    assert v.dtype == dt and v.shape == (3, 4)
    assert v.trait & kokkos.Unmanaged
    assert np.shares_memory(np.asarray(v), arr)
    one = NP_DTYPES[dt].type(1).item()
    v[2, 3] = one
    assert arr[2, 3] == one
    arr[0, 0] = one
    assert v[0, 0] == one


def test_from_numpy_noncontiguous_is_layout_stride():
    arr = np.arange(24.0).reshape(4, 6)[::2, 1::2]
    v = kokkos.array(arr)
    assert v.layout == kokkos.LayoutStride
    np.testing.assert_array_equal(np.asarray(v), arr)
    f = kokkos.array(np.asfortranarray(np.ones((3, 2))))
    assert f.layout == kokkos.LayoutLeft


def test_from_numpy_negative_strides():
    arr = np.arange(5)[::-1]
    v = kokkos.array(arr)
    assert [v[i] for i in range(5)] == [4, 3, 2, 1, 0]
    np.testing.assert_array_equal(np.asarray(v), arr)


def test_from_numpy_copy_true():
    arr = np.arange(6.0).reshape(2, 3)
    v = kokkos.array(arr, copy=True)
    assert not (v.trait & kokkos.Unmanaged)
    assert not np.shares_memory(np.asarray(v), arr)
    np.testing.assert_array_equal(np.asarray(v), arr)


def test_from_numpy_dtype_or_layout_change_copies():
    arr = np.arange(6, dtype=np.int64).reshape(2, 3)
    v = kokkos.array(arr, dtype=kokkos.float32)
    assert v.dtype == kokkos.float32
    np.testing.assert_array_equal(np.asarray(v), arr.astype(np.float32))
    w = kokkos.array(arr, layout=kokkos.LayoutLeft)
    assert w.layout == kokkos.LayoutLeft
    np.testing.assert_array_equal(np.asarray(w), arr)


def test_seed_from_numpy_example():
    arr = np.ones([10, 10], dtype=np.int32)
    for i in range(10):
        arr[i, i] = 0
    view = kokkos.array(arr, dtype=kokkos.int32, dynamic=True)
    assert isinstance(view, kokkos.DynRankView)
    assert view.ndim == 2 and view.shape == (10, 10)
    assert view[3, 3] == 0 and view[3, 4] == 1


def test_unmanaged_array_keeps_numpy_alive():
    arr = np.arange(10.0)
    ref = weakref.ref(arr) if hasattr(arr, "__weakref__") else None
    # Counts compared before and after, never absolute: Python 3.14 no
    # longer counts the reference getrefcount's own argument held.
    alone = sys.getrefcount(arr)
    v = kokkos.unmanaged_array(arr, dtype=kokkos.double, trait=kokkos.Unmanaged)
    assert sys.getrefcount(arr) > alone  # the View holds the array
    del arr
    gc.collect()
    assert v[9] == 9.0
    if ref is not None:
        assert ref() is not None
    del v
    gc.collect()
    if ref is not None:
        assert ref() is None


def test_numpy_array_outlives_view():
    v = kokkos.array([1000])
    v[999] = 42
    a = np.asarray(v)
    del v
    gc.collect()
    assert a[999] == 42
    a[0] = 1
    assert a.base is not None


def test_refcounts_around_wrapping():
    arr = np.zeros(4)
    base = sys.getrefcount(arr)
    v = kokkos.array(arr)
    assert sys.getrefcount(arr) > base
    del v
    gc.collect()
    after = sys.getrefcount(arr)
    assert after == base


def test_readonly_numpy_stays_readonly():
    arr = np.arange(3.0)
    arr.flags.writeable = False
    v = kokkos.array(arr)
    a = np.asarray(v)
    assert not a.flags.writeable
    with pytest.raises(BufferError, match="read-only"):
        get_buffer(v, PyBUF_WRITABLE | PyBUF_STRIDES)
    with pytest.raises(BufferError, match="writable View"):
        kokkos._core._wrap(arr, True)


def test_wrap_other_buffers():
    b = bytearray(16)
    v = kokkos.array(b)
    assert v.dtype == kokkos.uint8 and v.shape == (16,)
    v[3] = 200
    assert b[3] == 200
    import array as pyarray

    a = pyarray.array("d", [1.0, 2.0])
    w = kokkos.array(a)
    assert w.dtype == kokkos.float64 and w[1] == 2.0


class Interface:
    def __init__(self, **ai):
        self.__array_interface__ = ai


def test_wrap_array_interface_objects():
    backing = np.arange(6, dtype=np.int32)
    obj = Interface(shape=(2, 3), typestr="<i4", data=(backing.ctypes.data, False), version=3)
    obj.keep = backing
    v = kokkos.array(obj)
    assert v.shape == (2, 3) and v[1, 2] == 5


@pytest.mark.parametrize(
    "ai,exc,match",
    [
        (dict(shape=(2,), typestr="<f16", data=(8, False)), TypeError, "not supported"),
        (dict(shape=(2,), typestr="<f8"), ValueError, "lacks"),
        (dict(shape=(2,), typestr="<f8", data=(0, False)), ValueError, "null pointer"),
        (dict(shape=(2,), typestr="<f8", data=(8, False), strides=(3,)), BufferError, "not a multiple"),
        (dict(shape=(2,), typestr="<f8", data=(8, False), strides=(8, 8)), ValueError, "2 entries for rank 1"),
        (dict(shape=(-2,), typestr="<f8", data=(8, False)), ValueError, "negative"),
        (dict(shape=("a",), typestr="<f8", data=(8, False)), TypeError, "must be an int"),
        (dict(shape=(2,), typestr=5, data=(8, False)), TypeError, "typestr"),
        (dict(shape=(2,), typestr="<f8", data=8), TypeError, "pointer, read_only"),
        (dict(shape=(2,), typestr="<f8", data=(8, False), mask=object()), BufferError, "masked arrays"),
    ],
)
def test_bad_array_interface(ai, exc, match):
    with pytest.raises(exc, match=match):
        kokkos.array(Interface(**ai))


def test_lying_array_interface_property():
    class Raises:
        @property
        def __array_interface__(self):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        kokkos.array(Raises())


def test_not_array_like():
    with pytest.raises(TypeError, match="neither the buffer protocol nor __array_interface__"):
        kokkos.array(object())


@pytest.mark.parametrize("data", [[[1, 2], [3, 4]], ([1.0], [2.0]), [3, [1, 2]]])
def test_nested_lists_are_not_a_shape(data):
    # a list is a shape (pykokkos-base); nested lists get a pointer to the data route
    with pytest.raises(TypeError, match=r"is the View's shape .* kokkos.array\(numpy.array\(data\)\)"):
        kokkos.array(data)


def test_nested_lists_through_numpy():
    v = kokkos.array(np.array([[1, 2], [3, 4]]))
    assert v.shape == [2, 2] and np.asarray(v).tolist() == [[1, 2], [3, 4]]


def test_unsupported_numpy_dtypes():
    with pytest.raises(TypeError, match="element format 'g' .* not supported"):
        kokkos.array(np.zeros(3, np.longdouble))
    with pytest.raises(TypeError, match="not supported"):
        kokkos.array(np.zeros(3, ">f8"))
    with pytest.raises(TypeError):
        kokkos.array(np.zeros(3, "U3"))
    with pytest.raises(ValueError, match="not a multiple"):
        kokkos.array(np.zeros(3, [("a", "i1"), ("b", "f8")])["b"])


def test_array_and_deep_copy_take_dlpack_producers():
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    v = kokkos.array(t)
    assert v.shape == (2, 3) and v.dtype == kokkos.float64
    v[1, 2] = -1.0
    assert t[1, 2].item() == -1.0, "kokkos.array(tensor) shares the tensor's memory"
    w = kokkos.array([2, 3])
    kokkos.deep_copy(w, t.T.contiguous().T)
    assert np.asarray(w).tolist() == t.tolist()
    c = kokkos.array(t, copy=True)
    c[0, 0] = 99.0
    assert t[0, 0].item() == 0.0
