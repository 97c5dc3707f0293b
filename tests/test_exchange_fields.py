"""Every field of every exchange input is checked before it is used.

DLPack tensors (legacy and versioned capsules, made with ctypes), the DLPack
C exchange table's version and prev_api chain, __array_interface__ and
__cuda_array_interface__ dicts, buffers whose exporter lies (a C module
built here), and a shape given to kokkos.array together
with an array: each lie is refused with an exception naming the field and
its value, the producer's deleter runs once, and no reference leaks. The
list of what is checked is docs/hardening.md, "Exchange inputs".
"""

import gc
import re
import sys
import sysconfig

import numpy as np
import pytest

import cxx_build
import kokkos
from support import SCENARIO_LIMIT, python, stable_id
from test_dlpack import Producer

pytestmark = pytest.mark.timeout(2 * SCENARIO_LIMIT)

KINDS = pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])


def refused(p, exc, match):
    """Imports producer p, expecting exc matching match; then checks the
    deleter ran once and p's reference count is back where it was."""
    before = sys.getrefcount(p)
    with pytest.raises(exc, match=match):
        kokkos.from_dlpack(p)
    gc.collect()
    assert p.deleted == 1
    assert sys.getrefcount(p) == before


# ---- DLPack: data + byte_offset -------------------------------------------------------------


@KINDS
def test_dlpack_data_plus_offset_wrapping_to_zero(versioned):
    arr = np.arange(4.0)
    p = Producer(arr, versioned=versioned)
    p.managed.dl_tensor.byte_offset = 2**64 - arr.ctypes.data  # data + byte_offset == 2**64 == 0
    refused(p, BufferError, r"data 0x[0-9a-f]+ \+ byte_offset \d+ is past the end of the address space")


@KINDS
def test_dlpack_data_plus_offset_wrapping_past_zero(versioned):
    arr = np.arange(4.0)
    p = Producer(arr, versioned=versioned)
    p.managed.dl_tensor.byte_offset = 2**64 - 8  # wraps to data - 8
    refused(p, BufferError, r"byte_offset 18446744073709551608 is past the end")


@KINDS
def test_dlpack_null_data_with_an_offset_is_refused(versioned):
    arr = np.arange(4.0)
    p = Producer(arr, versioned=versioned)
    p.managed.dl_tensor.data = None
    p.managed.dl_tensor.byte_offset = arr.ctypes.data
    refused(p, BufferError, r"32 bytes of elements but its address is NULL \(data")


@KINDS
def test_dlpack_elements_running_off_the_address_space(versioned):
    p = Producer(np.arange(4.0), versioned=versioned)
    p.managed.dl_tensor.data = 2**64 - 16  # aligned, but 4 doubles do not fit below 2**64
    refused(p, BufferError, "would run off the address space")
    p = Producer(np.arange(4.0), versioned=versioned, strides=[-1])
    p.managed.dl_tensor.data = 16  # element 3 would be at 16 - 24
    refused(p, BufferError, "from 24 bytes below .* would run off the address space")


def test_dlpack_empty_tensor_with_null_data_is_taken():
    p = Producer(np.zeros((0, 3)))
    p.managed.dl_tensor.data = None
    v = kokkos.from_dlpack(p)
    assert v.shape == [0, 3] and v.size == 0


# ---- DLPack: shape, ndim, strides ------------------------------------------------------------


@KINDS
@pytest.mark.parametrize("ndim", [1, 2, 8])
def test_dlpack_null_shape_is_refused(versioned, ndim):
    p = Producer(np.zeros((1,) * ndim), versioned=versioned)
    p.managed.dl_tensor.shape = None
    refused(p, BufferError, f"the tensor's shape is NULL for ndim {ndim}")


@KINDS
def test_dlpack_rank_zero_needs_no_shape(versioned):
    p = Producer(np.array(2.5), versioned=versioned)
    p.managed.dl_tensor.shape = None
    p.managed.dl_tensor.strides = None
    v = kokkos.from_dlpack(p)
    assert v.rank == 0 and float(np.asarray(v)) == 2.5


@KINDS
@pytest.mark.parametrize("ndim", [9, -1, 2**31 - 1])
def test_dlpack_ndim_beyond_eight_is_refused(versioned, ndim):
    p = Producer(np.zeros((2,) * 8), versioned=versioned)
    p.managed.dl_tensor.ndim = ndim
    why = "a rank cannot be negative" if ndim < 0 else f"a rank-{ndim} tensor exceeds Kokkos' maximum View rank 8"
    refused(p, BufferError, f"the tensor's ndim is {ndim}[:;] {why}")


@KINDS
def test_dlpack_negative_extent_is_refused(versioned):
    p = Producer(np.zeros(2), versioned=versioned, shape=[-2])
    refused(p, BufferError, r"the tensor's shape\[0\] is -2; extents cannot be negative")


# Strides whose byte size overflows, where the extent cannot reach them.
HUGE_STRIDES = [
    ([1], [2**63 - 1], r"strides\[0\] is 9223372036854775807 elements of 8 bytes"),
    ([1], [-(2**63) + 1], r"strides\[0\] is -9223372036854775807 elements of 8 bytes"),
    ([1], [2**60], r"strides\[0\] is 1152921504606846976 elements of 8 bytes"),
    ([0], [2**62], r"strides\[0\] is 4611686018427387904 elements of 8 bytes"),
    ([2, 1], [1, 2**61], r"strides\[1\] is 2305843009213693952 elements of 8 bytes"),
    ([2, 0], [1, 2**61], r"strides\[1\] is 2305843009213693952 elements of 8 bytes"),
]


@KINDS
@pytest.mark.parametrize("shape,strides,match", HUGE_STRIDES, ids=stable_id)
def test_dlpack_stride_overflowing_where_the_extent_is_0_or_1(versioned, shape, strides, match):
    p = Producer(np.zeros(4), versioned=versioned, ndim=len(shape), shape=shape, strides=strides)
    refused(p, BufferError, match)


@KINDS
def test_dlpack_strides_whose_sum_overflows(versioned):
    # each dimension spans 2**62 bytes; together they span 2**63 + 8 bytes
    p = Producer(np.zeros(4), versioned=versioned, ndim=2, shape=[2, 2], strides=[2**59, 2**59])
    refused(p, BufferError, "would span more than 9223372036854775807 bytes")


@KINDS
def test_dlpack_empty_tensor_whose_other_extent_overflows_is_refused(versioned):
    # No element, but v[67] would compute 67 * stride: refused as for the interface.
    p = Producer(np.zeros(4, np.uint8), versioned=versioned, ndim=2, shape=[68, 0], strides=[2**63 - 1, 1])
    refused(p, BufferError, r"span more than .* \(shape\[0\] = 68 with strides\[0\] = 9223372036854775807")


@KINDS
def test_dlpack_legal_extreme_strides_are_taken(versioned):
    # extent 1, the largest byte stride that fits: taken, and read back exactly
    arr = np.arange(3.0)
    p = Producer(arr, versioned=versioned, ndim=2, shape=[3, 1], strides=[1, (2**63 - 1) // 8])
    v = kokkos.from_dlpack(p)
    assert v.strides == (8, ((2**63 - 1) // 8) * 8)
    np.testing.assert_array_equal(np.asarray(v)[:, 0], arr)


# ---- DLPack: dtype and device ------------------------------------------------------------------


@KINDS
@pytest.mark.parametrize(
    "dtype,match",
    [
        ((2, 64, 2), r"DLPack code 2, 64 bits, 2 lanes"),
        ((2, 64, 0), r"DLPack code 2, 64 bits, 0 lanes"),
        ((2, 24, 1), "element type float24 has no Kokkos View dtype"),
        ((200, 8, 1), r"DLPack code 200, 8 bits, 1 lanes"),
        ((3, 64, 1), r"DLPack code 3, 64 bits"),
    ],
    ids=stable_id,
)
def test_dlpack_dtype_fields_are_checked(versioned, dtype, match):
    refused(Producer(np.zeros(2), versioned=versioned, dtype=dtype), BufferError, match)


@KINDS
@pytest.mark.parametrize("device", [(0, 0), (-5, 0), (99, 0), (7, 0)], ids=stable_id)
def test_dlpack_device_type_is_checked(versioned, device):
    p = Producer(np.zeros(2), versioned=versioned)
    p.managed.dl_tensor.device.device_type = device[0]
    refused(p, BufferError, f"DLPack device type {device[0]} ")


# ---- the DLPack C exchange table -----------------------------------------------------------------

# Run in a fresh interpreter: before the fix the walk never ended, and a
# hang must fail the test, not block the run.
EXCHANGE_TABLE = """
import ctypes, sys
import numpy as np
import kokkos

class Header(ctypes.Structure):
    pass
Header._fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.POINTER(Header))]

new = ctypes.pythonapi.PyCapsule_New
new.restype = ctypes.py_object
new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
NAME = ctypes.create_string_buffer(b"dlpack_exchange_api")

def producer(tables):
    class P:
        __dlpack_c_exchange_api__ = new(ctypes.addressof(tables[0]), NAME, None)
        def __init__(self):
            self.arr = np.arange(3.0)
        def __dlpack__(self, **kw):
            return self.arr.__dlpack__(**kw)
        def __dlpack_device__(self):
            return (1, 0)
    return P()

case = sys.argv[1]
if case == "self":
    t = Header(2, 0)
    t.prev_api = ctypes.pointer(t)
    tables = [t]
elif case == "two":
    tables = [Header(3, 0), Header(2, 0)]
    tables[0].prev_api = ctypes.pointer(tables[1])
    tables[1].prev_api = ctypes.pointer(tables[0])
elif case == "long":
    tables = [Header(100 - i, 0) for i in range(12)]
    for a, b in zip(tables, tables[1:]):
        a.prev_api = ctypes.pointer(b)
elif case == "old_minor":
    tables = [Header(1, 2)]  # no table layout before DLPack 1.3: __dlpack__ instead
elif case == "unknown_major":
    tables = [Header(2, 0)]  # the end of the chain, nothing this reads: __dlpack__
p = producer(tables)
for call in (kokkos.from_dlpack, kokkos.asarray):
    before = sys.getrefcount(p)
    try:
        v = call(p)
        print("taken", list(np.asarray(v)))
        del v
    except BufferError as e:
        print("refused", e)
    assert sys.getrefcount(p) == before, (before, sys.getrefcount(p))
"""


@pytest.mark.parametrize(
    "case,expect",
    [
        ("self", r"prev_api chain loops \(table 1 is table 0 again\)"),
        ("two", r"prev_api chain loops \(table 2 is table 0 again\)"),
        ("long", "prev_api chain is longer than 8 tables"),
    ],
)
def test_exchange_table_prev_api_chain_is_bounded(case, expect):
    r = _run_table(case)
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    assert len(lines) == 2, r.stdout  # from_dlpack and asarray
    for line in lines:
        assert line.startswith("refused P.__dlpack_c_exchange_api__: the exchange table's"), line
        assert re.search(expect, line), line


@pytest.mark.parametrize("case", ["old_minor", "unknown_major"])
def test_exchange_table_of_no_version_we_read_falls_back_to_dlpack(case):
    r = _run_table(case)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["taken [np.float64(0.0), np.float64(1.0), np.float64(2.0)]"] * 2


def _run_table(case):
    return python("-c", EXCHANGE_TABLE, case, timeout=SCENARIO_LIMIT)


# ---- __array_interface__ and __cuda_array_interface__ ----------------------------------------


class Interface:
    def __init__(self, d, keep=None):
        self.__array_interface__ = d
        self.keep = keep


class CudaInterface:
    def __init__(self, d):
        self.__cuda_array_interface__ = d


def interface(arr=None, **changes):
    arr = np.arange(4.0) if arr is None else arr
    d = dict(arr.__array_interface__)
    d.update(changes)
    return Interface({k: v for k, v in d.items() if v is not KeyError}, keep=arr)


def cuda_interface(**changes):
    d = {"shape": (4,), "typestr": "<f8", "data": (0x1000, False), "version": 3}
    d.update(changes)
    return CudaInterface({k: v for k, v in d.items() if v is not KeyError})


def refused_both(changes, exc, match):
    """The same lie in __array_interface__ (kokkos.array, kokkos.asarray)
    and __cuda_array_interface__ is refused with the same words, and the
    object's reference count is back where it was."""
    obj = interface(**changes)
    before = sys.getrefcount(obj)
    with pytest.raises(exc, match=match):
        kokkos.array(obj)
    with pytest.raises(exc, match=match):
        kokkos.asarray(obj)
    assert sys.getrefcount(obj) == before
    cobj = cuda_interface(**changes)
    before = sys.getrefcount(cobj)
    with pytest.raises(exc, match=match):
        kokkos._core._from_cuda_array_interface(cobj)
    assert sys.getrefcount(cobj) == before


BAD_TYPESTRS = ["<f8\x00junk", "<f08", "<f008", "f8", "<f8 ", " <f8", "<f+8", "<f 8", "<f-8", "<", "<f", "", "<f٨"]
BAD_TYPESTRS += ["<f0", "<88", "<f8\x00", "\x00f8", "<f1" + "0" * 10, "<f8.0", "<\u00e9" + "8"]


@pytest.mark.parametrize("ts", BAD_TYPESTRS, ids=ascii)
def test_typestr_is_parsed_exactly(ts):
    refused_both({"typestr": ts}, TypeError, r"\['typestr'\] = .* is not a typestr")


@pytest.mark.parametrize("ts,dtype", [("<f8", "float64"), ("=f8", "float64"), ("|f8", "float64"), ("|u1", "uint8")])
@pytest.mark.parametrize("ts_extra", [">i1", "<b1", "<i2", "<c16", "<f2"])
def test_exact_typestrs_stay_accepted(ts, dtype, ts_extra):
    assert kokkos.asarray(interface(np.zeros(4, dtype), typestr=ts)).dtype == getattr(kokkos, dtype)
    arr = np.zeros(4, np.dtype(ts_extra).newbyteorder("="))
    assert np.asarray(kokkos.asarray(interface(arr, typestr=ts_extra))).dtype == arr.dtype


@pytest.mark.parametrize("ts", [">f8", "<f3", "<f16", "|V8", "<M8", "<U4", "|O8", "<b2"])
def test_exact_but_unsupported_typestrs(ts):
    refused_both({"typestr": ts}, TypeError, "is not supported by Kokkos Views")


def test_array_interface_empty_with_overflowing_stride_is_refused():
    # NumPy accepts this empty array; v[67] would compute 67 * (2**63 - 1):
    # refused (docs/hardening.md), never indexed.
    changes = {"shape": (68, 0), "strides": (2**63 - 1, 1), "typestr": "|u1"}
    refused_both(changes, BufferError, r"span more than .* \(shape\[0\] = 68 with strides\[0\] = 9223372036854775807")


def test_array_interface_empty_with_sane_strides_stays_accepted():
    arr = np.zeros((68, 0), np.uint8)
    v = kokkos.asarray(interface(arr, strides=(1, 1)))
    assert v.shape == [68, 0] and v[67].shape == [0]


@pytest.mark.parametrize(
    "changes,exc,match",
    [
        (
            {"strides": (2**62, 2**62), "shape": (2, 2)},
            BufferError,
            r"span more than 9223372036854775807 bytes \(shape\[1\] = 2 with strides\[1\]",
        ),
        ({"strides": (8,), "shape": (True,)}, TypeError, r"\['shape'\]\[0\] must be an int, got bool"),
        ({"strides": (True,), "shape": (1,), "typestr": "|u1"}, TypeError, r"\['strides'\]\[0\] must be an int"),
        ({"strides": (8, 8)}, ValueError, r"\['strides'\] has 2 entries for rank 1"),
        ({"shape": (4, 4, 4, 4, 4, 4, 4, 4, 4)}, ValueError, "rank 9 is larger than the maximum 8"),
        ({"shape": (-1,)}, ValueError, r"\['shape'\]\[0\] is -1; extents cannot be negative"),
        ({"shape": (2**63,)}, OverflowError, r"\['shape'\]\[0\] = 9223372036854775808 does not fit"),
        ({"data": (2**64 - 8, False)}, BufferError, "would run off the address space"),
        ({"data": (8, False), "strides": (-8,)}, BufferError, "from 24 bytes below .* would run off"),
        ({"data": (0x1000, None)}, TypeError, r"\['data'\]\[1\] \(read-only\) must be a bool, got NoneType"),
        ({"data": (0x1000, "yes")}, TypeError, r"\['data'\]\[1\] \(read-only\) must be a bool, got str"),
        ({"data": (0x1000, False, 3)}, TypeError, r"\['data'\] must be a \(pointer, read_only\) tuple"),
        ({"data": (4096.0, False)}, TypeError, r"\['data'\]\[0\] must be an int address, got float"),
        ({"data": (0, False)}, ValueError, r"\['data'\] is a null pointer for 32 bytes"),
        ({"data": (-8, False)}, OverflowError, r"\['data'\]\[0\] = -8 is not an address"),
        ({"version": "3"}, TypeError, r"\['version'\] must be an int, got str"),
        ({"version": True}, TypeError, r"\['version'\] must be an int, got bool"),
        ({"descr": 5}, TypeError, r"\['descr'\] must be a list of tuples, got int"),
        ({"descr": ["<f8"]}, TypeError, r"\['descr'\]\[0\] must be a \(name, typestr\) tuple, got str"),
        ({"offset": 8}, ValueError, r"\['offset'\] is 8; an offset applies to a buffer object"),
        ({"offset": "8"}, TypeError, r"\['offset'\] must be an int, got str"),
        ({"mask": np.zeros(4, bool)}, BufferError, "masked arrays"),
    ],
    ids=stable_id,
)
def test_interface_fields_are_checked(changes, exc, match):
    refused_both(changes, exc, match)


@pytest.mark.parametrize("version", [0, 1, 2, 4, -1, 2**70])
def test_array_interface_version_must_be_3(version):
    obj = interface(version=version)
    with pytest.raises(ValueError, match=rf"\['version'\] is {version}; kokkos reads version 3"):
        kokkos.asarray(obj)


@pytest.mark.parametrize("version", [4, -1, 2**70])
def test_cuda_array_interface_version_is_0_to_3(version):
    with pytest.raises(ValueError, match=rf"\['version'\] is {version}; kokkos reads versions 0 to 3"):
        kokkos._core._from_cuda_array_interface(cuda_interface(version=version))


def test_cuda_array_interface_negative_stream_is_refused():
    with pytest.raises(ValueError, match=r"\['stream'\] is -5, which is not a stream handle"):
        kokkos._core._from_cuda_array_interface(cuda_interface(stream=-5))


@pytest.mark.parametrize(
    "changes",
    [
        {"version": KeyError},
        {"descr": [("", "<f8")]},
        {"descr": None},
        {"offset": 0},
        {"mask": None},
        {"data": (None, False), "shape": (0,)},
    ],
    ids=stable_id,
)
def test_well_formed_interface_entries_stay_accepted(changes):
    if "data" in changes:
        changes = {**changes, "data": (0, False)}
    v = kokkos.asarray(interface(**changes))
    assert v.shape == list(changes.get("shape", (4,)))


def test_interface_read_only_flag_as_int():
    arr = np.arange(4.0)
    v = kokkos.asarray(interface(arr, data=(arr.ctypes.data, 1)))
    assert v.readonly and not np.asarray(v).flags.writeable


# ---- the buffer protocol -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def lying_buffer(tmp_path_factory):
    """tests/cxx/lying_buffer.c: an exporter whose Py_buffer fields lie."""
    out = tmp_path_factory.mktemp("lying_buffer")
    include = sysconfig.get_paths()["include"]
    cxx_build.compile_module(cxx_build.SOURCES / "lying_buffer.c", "kp_lying_buffer", [f"-I{include}"], out)
    return cxx_build.import_from(out, "kp_lying_buffer").Exporter


@pytest.mark.parametrize(
    "fields,exc,match",
    [
        ({"ndim": -1}, BufferError, r"buffer has a negative ndim \(ndim -1\)"),
        ({"ndim": 9, "shape": [1] * 8}, ValueError, r"rank 9 is larger than the maximum 8"),
        ({"ndim": 2}, BufferError, r"buffer has no shape for ndim > 1 \(ndim 2\)"),
        (
            {"ndim": 1, "shape": [8], "suboffsets": True},
            BufferError,
            r"buffer has suboffsets, which were not asked for",
        ),
        ({"ndim": 2, "shape": [2, -3]}, BufferError, r"buffer has shape\[1\] = -3; extents cannot be negative"),
        ({"ndim": 2, "shape": [2**62, 4]}, ValueError, r"would need more than 9223372036854775807 bytes"),
        (
            {"ndim": 1, "shape": [8], "null_buf": True},
            BufferError,
            r"buffer has 64 bytes of elements at a NULL address",
        ),
        ({"ndim": 1, "shape": [8], "strides": [12]}, ValueError, r"stride 12 bytes of dimension 0 is not a multiple"),
        ({"ndim": 1, "shape": [8], "strides": [2**62]}, BufferError, r"would span more than"),
    ],
    ids=stable_id,
)
def test_buffer_lies_are_refused(lying_buffer, fields, exc, match):
    exporter = lying_buffer(**fields)
    before = sys.getrefcount(exporter)
    with pytest.raises(exc, match=rf"^kokkos.asarray\(\): .*{match}"):
        kokkos.asarray(exporter)
    gc.collect()
    assert sys.getrefcount(exporter) == before  # the buffer was released


def test_buffer_that_tells_the_truth_is_taken(lying_buffer):
    for fields in ({"ndim": 1}, {"ndim": 1, "shape": [8]}, {"ndim": 2, "shape": [2, 4], "strides": [32, 8]}):
        v = kokkos.asarray(lying_buffer(**fields))
        assert np.asarray(v).ravel().tolist() == [float(i) for i in range(8)]
    empty = kokkos.asarray(lying_buffer(ndim=1, shape=[0], null_buf=True))  # no elements: NULL is fine
    assert empty.shape == [0]


# ---- kokkos.array with an array and a shape ------------------------------------------------------


@pytest.mark.parametrize(
    "args,kwargs,given,has",
    [
        ((np.zeros(4),), {"shape": [7]}, r"\[7\]", r"\(4,\)"),
        ((np.zeros(4), [7]), {}, r"\[7\]", r"\(4,\)"),
        ((b"x", (3,)), {"dtype": "float64"}, r"\(3,\)", r"\(1,\)"),
        ((np.zeros((2, 3)),), {"shape": (3, 2)}, r"\(3, 2\)", r"\(2, 3\)"),
        ((np.zeros((2, 3)),), {"shape": 6}, "6", r"\(2, 3\)"),
        (([4],), {"array": np.zeros(3)}, r"\[4\]", r"\(3,\)"),
        (("label",), {"shape": [2], "array": np.zeros(3)}, r"\[2\]", r"\(3,\)"),
        ((np.zeros(4),), {"shape": [4], "trait": kokkos.Unmanaged}, None, None),
    ],
    ids=stable_id,
)
def test_array_shape_must_agree_with_the_array(args, kwargs, given, has):
    if given is None:  # agrees
        assert kokkos.array(*args, **kwargs).shape == [4]
        return
    with pytest.raises(ValueError, match=rf"shape {given} disagrees with the array's shape {has}"):
        kokkos.array(*args, **kwargs)
    with pytest.raises(ValueError, match="disagrees with the array's shape"):
        kokkos.unmanaged_array(*args, **kwargs)


def test_array_shape_that_agrees_stays_accepted():
    arr = np.arange(6.0).reshape(2, 3)
    for v in (
        kokkos.array(arr, [2, 3]),
        kokkos.array(arr, shape=(2, 3)),
        kokkos.array([2, 3], array=arr),
        kokkos.array("x", shape=[2, 3], array=arr),
        kokkos.array(arr, shape=[2, 3], dynamic=True),
        kokkos.array(arr, shape=[2, 3], dtype=kokkos.float32),
    ):
        assert v.shape == [2, 3]
    assert kokkos.array(np.array(2.0), shape=()).shape == []
    assert np.asarray(kokkos.array(arr, shape=[2, 3])).base is not None


@pytest.mark.parametrize(
    "args,kwargs,exc,match",
    [
        (([1, 2, 3], (5,)), {}, ValueError, r"first argument \[1, 2, 3\] is the View's shape .* and shape \(5,\)"),
        (([2, 2],), {"shape": [4]}, ValueError, r"first argument \[2, 2\] is the View's shape .* and shape \[4\]"),
        (([[1, 2, 3], [4, 5, 6]],), {"shape": (2, 3)}, TypeError, "this one holds sequences"),
        (([1.0, 2.0],), {"shape": [2]}, TypeError, r"shape\[0\] = 1.0 is not an int"),
    ],
    ids=stable_id,
)
def test_array_list_first_with_a_shape_is_refused(args, kwargs, exc, match):
    # a list first is the shape (pykokkos-base); a second shape beside it was once silently ignored
    with pytest.raises(exc, match=rf"^kokkos.array\(\): .*{match}"):
        kokkos.array(*args, **kwargs)
