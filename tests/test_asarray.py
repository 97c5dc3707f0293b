"""kokkos.asarray: zero-copy Views of anything that exposes its memory
(DLPack, __cuda_array_interface__, __array_interface__, the buffer
protocol), copies only when asked or needed; and the View's
__cuda_array_interface__ export rules on hosts without CUDA."""

import array
import gc
import sys

import numpy as np
import pytest

import kokkos
from support import DTYPES, NP_DTYPES, sample

HAS_CUDA = kokkos.get_memory_space_available("CudaSpace")


class ArrayInterfaceOnly:
    """Exposes a NumPy array's memory through __array_interface__ alone."""

    def __init__(self, arr):
        self.arr = arr
        self.__array_interface__ = arr.__array_interface__


class FakeCAI:
    """An object that claims CUDA memory through __cuda_array_interface__."""

    def __init__(self, **entries):
        d = {"shape": (4,), "typestr": "<f8", "data": (0x1000, False), "version": 3}
        d.update(entries)
        self.__cuda_array_interface__ = {k: v for k, v in d.items() if v is not KeyError}


# ---- zero-copy ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_asarray_numpy_zero_copy(dt):
    arr = sample(NP_DTYPES[dt], (3, 4))
    v = kokkos.asarray(arr)
    assert v.data == arr.ctypes.data
    assert int(v.dtype) == int(dt)
    assert v.space == kokkos.HostSpace and v.trait == kokkos.Unmanaged
    v[1, 2] = arr[0, 0]
    assert arr[1, 2] == arr[0, 0]


def test_asarray_view_is_returned_as_is():
    v = kokkos.View((3,), kokkos.int32)
    assert kokkos.asarray(v) is v
    assert kokkos.asarray(v, dtype=kokkos.int32, space=kokkos.HostSpace, layout=kokkos.LayoutRight) is v
    assert kokkos.asarray(v, copy=False) is v


def test_asarray_keeps_producer_alive():
    arr = np.arange(10.0)
    base = sys.getrefcount(arr)
    v = kokkos.asarray(arr)
    assert sys.getrefcount(arr) > base
    del arr
    gc.collect()
    assert np.asarray(v).sum() == 45.0
    del v
    gc.collect()


def test_asarray_readonly_numpy():
    arr = np.arange(4)
    arr.flags.writeable = False
    v = kokkos.asarray(arr)
    assert v.readonly
    with pytest.raises((ValueError, TypeError), match="read-only"):
        v[0] = 1


def test_asarray_array_interface_only():
    arr = np.arange(6, dtype=np.int16).reshape(2, 3)
    obj = ArrayInterfaceOnly(arr)
    v = kokkos.asarray(obj)
    assert v.data == arr.ctypes.data
    v[1, 1] = 99
    assert arr[1, 1] == 99


def test_asarray_buffer_protocol_only():
    buf = bytearray(b"\x01\x02\x03")
    v = kokkos.asarray(buf)
    assert v.dtype == kokkos.uint8 and tuple(v.shape) == (3,)
    v[0] = 7
    assert buf[0] == 7
    doubles = array.array("d", [1.0, 2.0])
    w = kokkos.asarray(doubles)
    assert w.dtype == kokkos.float64 and w[1] == 2.0


def test_asarray_strided_is_layout_stride():
    base = np.arange(40.0).reshape(5, 8)
    v = kokkos.asarray(base[::2, 1::3])
    assert v.layout == kokkos.LayoutStride
    assert v.data == base[::2, 1::3].ctypes.data
    np.testing.assert_array_equal(np.asarray(v), base[::2, 1::3])
    # LayoutStride takes any strides: still no copy
    w = kokkos.asarray(base[::2, 1::3], layout=kokkos.LayoutStride, copy=False)
    assert w.data == v.data


def test_asarray_torch():
    torch = pytest.importorskip("torch")
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    v = kokkos.asarray(t)
    assert v.data == t.data_ptr()
    v[0, 0] = 5.0
    assert t[0, 0].item() == 5.0


def test_asarray_capsule():
    arr = np.arange(3.0)
    v = kokkos.asarray(arr.__dlpack__(max_version=(1, 0)))
    assert v.data == arr.ctypes.data


# ---- copies ---------------------------------------------------------------------------------------------


def test_asarray_copy_true():
    arr = np.arange(5.0)
    v = kokkos.asarray(arr, copy=True, label="fresh")
    assert v.data != arr.ctypes.data
    assert v.label == "fresh" and v.trait == kokkos.Managed
    np.testing.assert_array_equal(np.asarray(v), arr)
    v[0] = -1.0
    assert arr[0] == 0.0
    w = kokkos.View((2,))
    c = kokkos.asarray(w, copy=True)
    assert c is not w and c.data != w.data


def test_asarray_dtype_conversion_copies():
    arr = np.arange(6, dtype=np.int32)
    v = kokkos.asarray(arr, dtype=kokkos.float64)
    assert v.dtype == kokkos.float64
    np.testing.assert_array_equal(np.asarray(v), arr.astype(np.float64))
    with pytest.raises(ValueError, match=r"needs a copy \(its dtype is int32, not float64\), but copy=False"):
        kokkos.asarray(arr, dtype="float64", copy=False)
    assert kokkos.asarray(arr, dtype=np.int32).data == arr.ctypes.data


@pytest.mark.parametrize("want, order", [(kokkos.LayoutLeft, "C"), (kokkos.LayoutRight, "F")])
def test_asarray_layout_copies(want, order):
    arr = np.asarray(np.arange(12.0).reshape(3, 4), order=order)
    v = kokkos.asarray(arr, layout=want)
    assert v.layout == want
    assert v.data != arr.ctypes.data
    np.testing.assert_array_equal(np.asarray(v), arr)
    with pytest.raises(ValueError, match="strides are not Layout.*copy=False"):
        kokkos.asarray(arr, layout=want, copy=False)


def test_asarray_layout_matching_is_zero_copy():
    arr = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    v = kokkos.asarray(arr, layout=kokkos.LayoutLeft, copy=False)
    assert v.data == arr.ctypes.data and v.layout == kokkos.LayoutLeft


@pytest.mark.parametrize("shape", [(4,), (5, 1), (1, 5), (3, 1, 1)])
@pytest.mark.parametrize("want", [kokkos.LayoutLeft, kokkos.LayoutRight])
def test_asarray_layout_both_orders_fit_is_the_one_asked_for(shape, want):
    # an array contiguous in both orders fits either layout: no copy, and the
    # View has the layout asked for (its class names it)
    arr = np.zeros(shape)
    v = kokkos.asarray(arr, layout=want, copy=False)
    assert v.data == arr.ctypes.data and v.layout == want
    assert type(v).__name__.endswith(f"_{want.name}_{len(shape)}")
    assert kokkos.asarray(v, layout=kokkos.LayoutStride) is v  # a View given comes back as it is


def test_asarray_strided_copy_keeps_values():
    base = np.arange(60, dtype=np.int64).reshape(6, 10)
    src = base[1::2, ::-3]
    v = kokkos.asarray(src, layout=kokkos.LayoutRight)
    assert v.layout == kokkos.LayoutRight
    np.testing.assert_array_equal(np.asarray(v), src)


def test_asarray_sequences_and_scalars():
    v = kokkos.asarray([[1, 2], [3, 4]], dtype=kokkos.int16)
    assert v.dtype == kokkos.int16 and tuple(v.shape) == (2, 2)
    assert v[1, 0] == 3
    s = kokkos.asarray(2.5)
    assert s.ndim == 0 and s[()] == 2.5
    with pytest.raises(ValueError, match="a list is not an array.*copy=False"):
        kokkos.asarray([1, 2], copy=False)


def test_asarray_space_host():
    arr = np.arange(3.0)
    assert kokkos.asarray(arr, space=kokkos.HostSpace).data == arr.ctypes.data
    assert kokkos.asarray(arr, space="HostSpace", copy=False).data == arr.ctypes.data


@pytest.mark.skipif(HAS_CUDA, reason="checks the error of a Kokkos without CUDA")
def test_asarray_space_unavailable():
    with pytest.raises(RuntimeError, match="CudaSpace is not enabled"):
        kokkos.asarray(np.arange(3.0), space=kokkos.CudaSpace)
    with pytest.raises(ValueError, match=r"it lives in HostSpace, not CudaSpace\), but copy=False"):
        kokkos.asarray(np.arange(3.0), space=kokkos.CudaSpace, copy=False)


# ---- errors ------------------------------------------------------------------------------------------------


def test_asarray_argument_errors():
    arr = np.zeros(2)
    with pytest.raises(TypeError, match="copy must be True, False or None, got str"):
        kokkos.asarray(arr, copy="no")
    with pytest.raises(TypeError, match="label must be a str, got int"):
        kokkos.asarray(arr, label=1)
    with pytest.raises(ValueError, match="unknown memory space"):
        kokkos.asarray(arr, space="Nowhere")
    with pytest.raises((TypeError, ValueError), match="dtype"):
        kokkos.asarray(arr, dtype="float128x")
    with pytest.raises(TypeError):
        kokkos.asarray(object())


def test_asarray_unsupported_dtype():
    with pytest.raises((BufferError, TypeError, ValueError), match="longdouble|'g'"):
        kokkos.asarray(np.zeros(3, dtype=np.longdouble))


# ---- __cuda_array_interface__ on a host without CUDA --------------------------------------------------------


def test_host_view_has_no_cuda_array_interface():
    v = kokkos.View((3,))
    assert not hasattr(v, "__cuda_array_interface__")
    with pytest.raises(
        AttributeError, match="lives in HostSpace: __cuda_array_interface__ is offered by Views in CUDA"
    ):
        _ = v.__cuda_array_interface__


@pytest.mark.skipif(HAS_CUDA, reason="checks the error of a Kokkos without CUDA")
def test_cai_import_without_cuda():
    with pytest.raises(BufferError, match="holds CUDA memory, but this Kokkos has no CUDA backend"):
        kokkos.asarray(FakeCAI())


@pytest.mark.parametrize(
    "entries, exc, match",
    [
        ({"mask": object()}, BufferError, "masked arrays"),
        ({"typestr": "<f16"}, TypeError, "element type '<f16' .* is not supported"),
        ({"typestr": 8}, TypeError, r"\['typestr'\] must be a str"),
        ({"strides": (12,)}, BufferError, "byte stride 12 \\(dimension 0\\) is not a multiple of the 8-byte"),
        ({"strides": (8, 8)}, ValueError, "has 2 entries for rank 1"),
        ({"shape": (3,), "strides": (2**62,)}, BufferError, "strides would span more than"),
        ({"shape": (1,) * 9}, ValueError, "rank 9 is larger than the maximum 8"),
        ({"shape": (-2,)}, ValueError, r"\['shape'\]\[0\] is -2"),
        ({"shape": 4}, TypeError, r"\['shape'\] must be a tuple of ints"),
        ({"data": 0x1000}, TypeError, r"\['data'\] must be a \(pointer, read_only\) tuple"),
        ({"data": KeyError}, ValueError, "lacks its 'data' entry"),
        ({"version": "3"}, TypeError, r"\['version'\] must be an int"),
        ({"stream": 0}, ValueError, "'stream'\\] is 0, which the interface forbids"),
        ({"stream": 1.5}, TypeError, r"\['stream'\] must be an int or None"),
    ],
)
def test_cai_import_rejects_malformed(entries, exc, match):
    with pytest.raises(exc, match=match):
        kokkos._core._from_cuda_array_interface(FakeCAI(**entries))
    with pytest.raises(exc, match=match):
        kokkos.asarray(FakeCAI(**entries))


def test_cai_import_not_a_dict():
    class Bad:
        __cuda_array_interface__ = (1, 2)

    with pytest.raises(TypeError, match="__cuda_array_interface__ must be a dict, got tuple"):
        kokkos.asarray(Bad())
    with pytest.raises(AttributeError):
        kokkos._core._from_cuda_array_interface(object())


# ---- the import names the call it serves --------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda o: kokkos.asarray(o), r"kokkos\.asarray\(\)"),
        (lambda o: kokkos.array(o), r"kokkos\.array\(\)"),
        (lambda o: kokkos.deep_copy(kokkos.View((4,)), o), r"kokkos\.deep_copy\(\)"),
        (lambda o: kokkos.View((4,)).deep_copy(o), r"View\.deep_copy\(\)"),
    ],
)
def test_exchange_import_errors_name_the_call(call, name):
    with pytest.raises(ValueError, match=name + r": __cuda_array_interface__ lacks its 'data' entry"):
        call(FakeCAI(data=KeyError))
