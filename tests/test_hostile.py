"""Hostile input: each must give a clear Python exception, never a crash.

Huge and overflowing shapes, negative and non-integer extents, labels with
NUL bytes or megabytes long, objects whose __index__ or __array_interface__
raises, lies or changes things under the reader, buffers released while a
View wraps them, DLPack capsules reused or malformed, Kokkos Tools callbacks
that finalize Kokkos from inside the operation that called them. Anything
that finalizes Kokkos runs in a subprocess (Kokkos initializes once per
process): tests/scenarios/hostile_reentry.py. Under scripts/suite.py --sanitize address
these run with ASan and UBSan, and the last tests prove that the sanitizers
are really watching.
"""

import array
import ctypes
import gc
import mmap
import os
import sys
import tempfile

import numpy as np
import pytest

import kokkos
from dlpack_abi import (
    NAMES,
    TYPE_CODES,
    VERSIONED_DELETER,
    DLDataType,
    DLDevice,
    DLManagedTensorVersioned,
    DLVersion,
    capsule_new,
)
from support import SCENARIO_LIMIT, load_scenario, run_scenario, stable_id, succeeded

# A hang (a finalize that waits for itself, ...) fails the test that hung:
# each scenario under SCENARIO_LIMIT, each test under twice that.
pytestmark = pytest.mark.timeout(2 * SCENARIO_LIMIT)

# ---- shapes ---------------------------------------------------------------------------------

OVERFLOWING = [
    (2**62, 2**62),
    (2**31, 2**31, 2**31),
    (2**63 - 1, 2),
    (0, 2**62, 2**62),  # empty, but the other extents overflow (NumPy refuses too)
    (2**62, 2**62, 0),
    (3, 0, 2**40, 2**40),
]


@pytest.mark.parametrize("shape", OVERFLOWING)
@pytest.mark.parametrize("dtype", [kokkos.int8, kokkos.complex128])
def test_overflowing_shapes_are_value_errors(shape, dtype):
    with pytest.raises(ValueError):
        np.empty(shape, kokkos.convert_dtype(dtype))  # the oracle agrees
    with pytest.raises(ValueError, match="would need more than .* bytes"):
        kokkos.View(shape, dtype)
    with pytest.raises(ValueError, match="would need more than .* bytes"):
        kokkos.View(shape, dtype, layout=kokkos.LayoutLeft)


@pytest.mark.parametrize("extent", [2**63, 2**64, -(2**63) - 1, 10**30])
def test_extents_beyond_ssize_t_are_value_errors(extent):
    with pytest.raises(ValueError, match=r"shape\[1\] is too large"):
        kokkos.View((2, extent))


def test_allocation_failure_is_a_memory_error():
    # 2**45 doubles (256 TiB): representable, never allocatable here.
    with pytest.raises(MemoryError):
        kokkos.View((2**45,), kokkos.float64)
    v = kokkos.View((4,))  # and the runtime is fine afterwards
    v[0] = 1.0
    assert v[0] == 1.0


@pytest.mark.parametrize("shape", [(-1,), (3, -2), (0, -1, 4)])
def test_negative_extents_are_value_errors(shape):
    with pytest.raises(ValueError, match="must be >= 0"):
        kokkos.View(shape)


class Index:
    """An object with __index__ (as NumPy integers have)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class RaisingIndex:
    def __index__(self):
        raise ZeroDivisionError("no index today")


@pytest.mark.parametrize(
    "shape",
    [(1.5,), ("3",), (None,), ([2],), (True,), (2, False), (object(),), (1j,), (RaisingIndex(),), (Index(2.0),)],
    ids=lambda s: type(s[-1]).__name__,
)
def test_non_integer_extents_are_type_errors(shape):
    with pytest.raises(TypeError, match=r"shape\[\d\] must be an int"):
        kokkos.View(shape)


def test_shape_list_whose_item_repr_empties_it():
    # kokkos.array reads a list shape in place; the error message's reprs
    # run Python code that may drop the very item being reported.
    class Emptying(float):
        def __repr__(self):
            shape.clear()
            return "Emptying()"

    shape = [2, Emptying(1.5)]
    with pytest.raises(TypeError, match=r"shape\[1\] = Emptying\(\) is not an int"):
        kokkos.array(shape)


@pytest.mark.parametrize("shape", [None, 1.5, object()])
def test_non_sequence_shapes_are_type_errors(shape):
    with pytest.raises(TypeError, match="shape"):
        kokkos.View(shape)


def test_index_like_extents_are_taken():
    v = kokkos.View((np.int64(2), np.uint8(3), Index(4)))
    assert tuple(v.shape) == (2, 3, 4)
    assert kokkos.View(Index(5)).shape == (5,)


def test_index_returning_a_huge_int():
    with pytest.raises(ValueError, match="too large"):
        kokkos.View((Index(2**70),))


def test_extent_index_that_empties_the_shape_list():
    """__index__ of an extent clears the list being read: the core reads a
    snapshot (it used to read freed list storage)."""
    shape = []

    class Clearing:
        def __index__(self):
            shape.clear()
            return 2

    shape.extend([Clearing(), Clearing(), Clearing()])
    v = kokkos.View(shape)
    assert tuple(v.shape) == (2, 2, 2)


def test_rank_beyond_eight():
    with pytest.raises(ValueError, match="rank 9 is larger than the maximum 8"):
        kokkos.View((1,) * 9)
    with pytest.raises(ValueError, match="larger than the maximum"):
        kokkos.array(np.zeros((1,) * 9))


# ---- indices --------------------------------------------------------------------------------

HUGE_SLICES = [
    np.s_[:: 2**62],
    np.s_[:: -(2**62)],
    np.s_[5 : 5 : 2**62],
    np.s_[2**62 :],
    np.s_[-(2**62) :],
    np.s_[: 2**63 - 1 : 2**63 - 1],
    np.s_[1 :: 2**62, :: -(2**62)],
    np.s_[..., :: 2**62],
]


@pytest.mark.parametrize("index", HUGE_SLICES, ids=repr)
def test_slices_with_huge_steps_and_bounds_match_numpy(index):
    arr = np.arange(80.0).reshape(10, 8)
    v = kokkos.array(arr)
    ref = arr[index]
    sub = v[index]
    got = np.asarray(sub)
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)
    # the strides stay meaningful: copying through them reads the right elements
    np.testing.assert_array_equal(np.asarray(sub.create_mirror()), ref)


@pytest.mark.parametrize("index", [2**62, -(2**62), 2**64, (0, 2**63), Index(2**40)], ids=stable_id)
def test_huge_integer_indices_are_index_errors(index):
    arr = np.zeros((4, 4))
    v = kokkos.array(arr)
    with pytest.raises((IndexError, OverflowError)):  # NumPy says either, depending on the path
        arr[index]
    with pytest.raises(IndexError):
        v[index]
    with pytest.raises(IndexError):
        v[index] = 1.0


def test_index_whose_index_raises_propagates_its_error():
    v = kokkos.View((4,))
    with pytest.raises(ZeroDivisionError, match="no index today"):
        v[RaisingIndex()]
    with pytest.raises(ZeroDivisionError, match="no index today"):
        v[1 : RaisingIndex()]


@pytest.mark.parametrize("value", ["1", b"1", object(), [1.0], None], ids=stable_id)
def test_values_that_are_not_numbers(value):
    v = kokkos.View((4,))
    with pytest.raises(TypeError, match="cannot store"):
        v[0] = value
    assert v[0] == 0.0


@pytest.mark.parametrize("dt", [kokkos.int8, kokkos.uint8, kokkos.int64, kokkos.uint64])
def test_out_of_range_integers_are_overflow_errors(dt):
    npdt = np.dtype(kokkos.convert_dtype(dt))
    info = np.iinfo(npdt)
    v = kokkos.View((2,), dt)
    for bad in (int(info.max) + 1, int(info.min) - 1, 2**100):
        with pytest.raises(OverflowError):
            np.zeros(2, npdt)[0] = bad  # NumPy 2 raises the same class
        with pytest.raises(OverflowError, match="out of range"):
            v[0] = bad
        with pytest.raises(OverflowError, match="out of range"):
            kokkos.deep_copy(v, bad)
    np.testing.assert_array_equal(np.asarray(v), 0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_floats_into_integer_views(bad):
    v = kokkos.View((2,), kokkos.int32)
    with pytest.raises(ValueError, match="not a finite number"):
        v[0] = bad


# ---- labels ---------------------------------------------------------------------------------


@pytest.mark.parametrize("label", ["a\0b", "\0", "tail\0"])
def test_labels_with_nul_are_value_errors(label):
    with pytest.raises(ValueError, match="NUL"):
        kokkos.View((2,), label=label)
    with pytest.raises(ValueError, match="NUL"):
        kokkos.DynRankView((2,), label=label)
    with pytest.raises(ValueError, match="NUL"):
        kokkos.array(label, shape=[2])


def test_very_long_labels():
    label = "L" * (1 << 20) + "é"
    v = kokkos.View((3,), label=label)
    assert v.label == label
    assert v[1:].label == label
    assert v.create_mirror().label == label + "_mirror"
    assert label[:50] in repr(v)
    kokkos.deep_copy(v, 1.0)
    kokkos.deep_copy(v.create_mirror(), v)


def test_labels_that_are_not_utf8_encodable():
    with pytest.raises(ValueError, match="lone surrogate"):
        kokkos.View((2,), label="\ud800")


@pytest.mark.parametrize("label", [b"bytes", 3, ["x"]], ids=repr)
def test_labels_that_are_not_str(label):
    with pytest.raises(TypeError, match="label must be a str"):
        kokkos.View((2,), label=label)


# ---- __array_interface__ that raises or lies ----------------------------------------------


class Interface:
    """Exposes the given __array_interface__ (and keeps `keep` alive)."""

    def __init__(self, interface, keep=None):
        self.__array_interface__ = interface
        self.keep = keep


def _interface_of(arr, **changes):
    d = dict(arr.__array_interface__)
    d.update(changes)
    return Interface(d, keep=arr)


class RaisingInterface:
    @property
    def __array_interface__(self):
        raise KeyError("interface unavailable")


def test_array_interface_that_raises_propagates():
    with pytest.raises(KeyError, match="interface unavailable"):
        kokkos.array(RaisingInterface())
    with pytest.raises(KeyError, match="interface unavailable"):
        kokkos.deep_copy(kokkos.View((2,)), RaisingInterface())


BAD_INTERFACES = [
    (dict(typestr=">f8"), TypeError, "not supported"),
    (dict(typestr="<f3"), TypeError, "not supported"),
    (dict(typestr="zz"), TypeError, "is not a typestr"),
    (dict(typestr=b"<f8"), TypeError, "must be a str"),
    (dict(typestr=8), TypeError, "must be a str"),
    (dict(data=(2**70, False)), OverflowError, "is not an address"),
    (dict(data=(-1, False)), OverflowError, "is not an address"),
    (dict(data=("0x10", False)), TypeError, "must be an int address"),
    (dict(data=(0, False)), ValueError, "null pointer"),
    (dict(data=(8,)), TypeError, "pointer, read_only"),
    (dict(data=[8, False]), TypeError, "pointer, read_only"),
    (dict(shape=[4]), TypeError, "must be a tuple"),
    (dict(shape=(-4,)), ValueError, "negative"),
    (dict(shape=(4.0,)), TypeError, "must be an int"),
    (dict(shape=(2**62, 2**62)), ValueError, "would need more than"),
    (dict(shape=(0, 2**62, 2**62)), ValueError, "would need more than"),
    (dict(shape=(1,) * 9), ValueError, "larger than the maximum"),
    (dict(strides=(8, 8)), ValueError, "has 2 entries for rank 1"),
    (dict(strides=(3,)), BufferError, "not a multiple of the 8-byte item size"),
    (dict(strides=[8]), TypeError, "must be a tuple"),
    (dict(mask=object()), BufferError, "masked arrays"),
]


@pytest.mark.parametrize("changes,exc,match", BAD_INTERFACES, ids=stable_id)
def test_lying_array_interfaces_are_refused(changes, exc, match):
    obj = _interface_of(np.arange(4.0), **changes)
    with pytest.raises(exc, match=match or None):  # (no match: CPython's own message)
        kokkos.array(obj)


def test_array_interface_that_is_not_a_dict():
    with pytest.raises(TypeError, match="must be a dict"):
        kokkos.array(Interface([("shape", (4,))]))


def test_array_interface_without_required_keys():
    for missing in ("shape", "typestr", "data"):
        d = dict(np.arange(4.0).__array_interface__)
        del d[missing]
        with pytest.raises(ValueError, match="lacks"):
            kokkos.array(Interface(d))


def test_array_interface_with_negative_strides_is_honoured():
    base = np.arange(10.0)
    rev = base[::-1]
    v = kokkos.array(Interface(dict(rev.__array_interface__), keep=base))
    np.testing.assert_array_equal(np.asarray(v), rev)
    assert v.strides == (-8,)
    v[0] = 100.0
    assert base[-1] == 100.0


def test_array_interface_dict_changed_while_it_is_read():
    """__index__ of an extent empties the interface dict mid-read: the core
    reads a copy, so the values it holds stay alive."""
    arr = np.arange(6.0)
    d = {}

    class Emptying:
        def __index__(self):
            d.clear()
            gc.collect()
            return 6

    d.update(
        shape=(Emptying(),),
        typestr="<f8",
        data=(arr.__array_interface__["data"][0], False),
        strides=(8,),
        version=3,
    )
    v = kokkos.array(Interface(d, keep=arr))
    np.testing.assert_array_equal(np.asarray(v), arr)


def test_array_interface_keeps_its_object_alive():
    arr = np.arange(5.0)
    obj = _interface_of(arr)
    v = kokkos.array(obj)
    base = sys.getrefcount(obj)
    w = kokkos.array(obj)
    assert sys.getrefcount(obj) == base + 1
    del w
    gc.collect()
    assert sys.getrefcount(obj) == base
    del obj, arr
    gc.collect()
    np.testing.assert_array_equal(np.asarray(v), np.arange(5.0))


# ---- buffers released while wrapped ---------------------------------------------------------


def test_bytearray_cannot_resize_while_wrapped():
    ba = bytearray(np.arange(4.0).tobytes())
    v = kokkos.array(ba)
    assert v.dtype == kokkos.uint8 and v.shape == (32,)
    with pytest.raises(BufferError):
        ba.extend(b"x" * 4096)
    with pytest.raises(BufferError):
        del ba[:8]
    v[0] = 7
    assert ba[0] == 7
    del v
    gc.collect()
    ba.extend(b"x" * 4096)  # released with the View


def test_memoryview_cannot_be_released_while_wrapped():
    arr = np.arange(6, dtype=np.int32)
    mv = memoryview(arr)
    v = kokkos.array(mv)
    with pytest.raises(BufferError):
        mv.release()
    np.testing.assert_array_equal(np.asarray(v), arr)
    del v
    gc.collect()
    mv.release()


def test_mmap_cannot_close_while_wrapped():
    with tempfile.TemporaryFile() as f:
        f.write(b"\0" * 4096)
        f.flush()
        m = mmap.mmap(f.fileno(), 4096)
        v = kokkos.array(m)
        with pytest.raises(BufferError):
            m.close()
        v[10] = 42
        assert m[10] == 42
        del v
        gc.collect()
        m.close()


def test_array_module_array_cannot_grow_while_wrapped():
    a = array.array("d", [1.0, 2.0])
    v = kokkos.array(a)
    with pytest.raises(BufferError):
        a.append(3.0)
    assert v[1] == 2.0
    del v
    gc.collect()
    a.append(3.0)


def test_numpy_array_cannot_resize_while_wrapped():
    arr = np.zeros(8)
    v = kokkos.array(arr)
    with pytest.raises(ValueError):
        arr.resize((100,))
    del v
    gc.collect()
    arr.resize((100,), refcheck=False)


def test_exported_memory_outlives_its_view():
    v = kokkos.View((1000,), kokkos.int64)
    kokkos.deep_copy(v, np.arange(1000))
    mv = memoryview(v)
    a = np.asarray(v)
    alloc = v.allocation
    del v
    gc.collect()
    assert mv[999] == 999 and a[500] == 500
    assert alloc.exports >= 1
    mv.release()
    del a
    gc.collect()
    assert alloc.exports == 0


def test_double_release_of_a_view_buffer():
    v = kokkos.View((4,))
    mv = memoryview(v)
    mv.release()
    mv.release()  # a no-op, as for any memoryview
    assert v.allocation.exports == 0


# ---- re-entrancy: Python code that finalizes Kokkos in the middle of an operation ------------
# (the cases are in tests/scenarios/hostile_reentry.py)

REENTRY = load_scenario("hostile_reentry")


def _ok(case, *args):
    return succeeded(run_scenario("hostile_reentry", case, *args, timeout=SCENARIO_LIMIT), "done")


def test_index_that_finalizes_during_element_store():
    """The value's __index__ finalizes Kokkos after the View was checked:
    the store is refused (it used to write into freed memory)."""
    _ok("index_finalizes_during_store")


def test_index_that_finalizes_during_element_read():
    _ok("index_finalizes_during_read")


def test_bool_that_finalizes_during_fill():
    _ok("bool_finalizes_during_fill")


def test_array_interface_that_finalizes_during_deep_copy():
    _ok("array_interface_finalizes_during_deep_copy")


# ---- re-entrancy: Kokkos Tools callbacks that finalize Kokkos ------------------------------


def _tools_has(event):
    import kokkos.tools as kt

    return hasattr(kt, f"set_{event}_callback")


@pytest.mark.parametrize("event", sorted(REENTRY.CALLBACK_ACTIONS))
def test_tools_callback_that_finalizes_is_refused(event):
    if not _tools_has(event):
        pytest.skip(f"no set_{event}_callback in this Kokkos")
    _ok("callback_finalizes", event)


def test_fence_callback_that_finalizes_is_refused():
    if not _tools_has("begin_fence"):
        pytest.skip("no fence callbacks in this Kokkos")
    r = _ok("fence_callback_finalizes")
    if kokkos.kokkos_version() >= (4, 0, 0):
        assert "reported 0" not in r.stdout


def test_finalize_from_a_deallocation_during_finalize():
    """finalize -> free the live Views -> deallocate callback -> finalize
    again: the inner one is refused, the outer one completes."""
    if not _tools_has("deallocate_data"):
        pytest.skip("no deallocate callback")
    _ok("finalize_from_deallocation_during_finalize")


def test_callback_that_recurses_into_the_same_operation():
    """A deep-copy callback that deep-copies: bounded by Python's recursion
    limit (the innermost call fails and is reported, where the unraisable
    hook still has stack to run), and the outer copy is right."""
    if not _tools_has("begin_deep_copy"):
        pytest.skip("no deep copy callback")
    _ok("callback_recurses")


def test_callback_exceptions_never_reach_kokkos():
    if not _tools_has("allocate_data"):
        pytest.skip("no allocate callback")
    _ok("callback_exceptions_are_reported")


# ---- DLPack capsules reused or malformed ----------------------------------------------------


class HostileProducer:
    """Makes one versioned DLPack capsule over a NumPy array with whatever
    fields the test sets, and counts deleter calls. The capsule has no
    destructor of its own: the test checks the consumer's side."""

    def __init__(self, arr, *, major=1, ndim=None, shape=None, strides="auto", dtype=None, device=(1, 0), data="auto"):
        self.arr = arr
        self.deleted = 0
        n = arr.ndim if ndim is None else ndim
        shp = list(arr.shape) if shape is None else list(shape)
        self._shape = (ctypes.c_int64 * max(len(shp), 1))(*shp)
        if strides == "auto":
            strides = [s // arr.itemsize for s in arr.strides]
        self._strides = None if strides is None else (ctypes.c_int64 * max(len(strides), 1))(*strides)
        self._deleter = VERSIONED_DELETER(self._delete)
        m = DLManagedTensorVersioned()
        m.version = DLVersion(major, 0)
        m.deleter = self._deleter
        t = m.dl_tensor
        t.data = arr.ctypes.data if data == "auto" else data
        t.device = DLDevice(*device)
        t.ndim = n
        code = TYPE_CODES[arr.dtype.kind]
        t.dtype = DLDataType(*(dtype or (code, arr.itemsize * 8, 1)))
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = None if self._strides is None else ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = 0
        self.managed = m
        self.capsule = capsule_new(ctypes.addressof(m), NAMES[b"dltensor_versioned"], None)

    def _delete(self, ptr):
        self.deleted += 1

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_dlpack_capsule_consumed_twice():
    p = HostileProducer(np.arange(6.0))
    v = kokkos.from_dlpack(p.capsule)
    with pytest.raises(BufferError, match="consumed already"):
        kokkos.from_dlpack(p.capsule)
    with pytest.raises(BufferError, match="consumed already"):
        kokkos.from_dlpack(p)  # the producer hands out the same capsule again
    np.testing.assert_array_equal(np.asarray(v), np.arange(6.0))
    assert p.deleted == 0
    del v
    gc.collect()
    assert p.deleted == 1


def test_view_capsule_consumed_twice():
    v = kokkos.View((5,))
    cap = v.__dlpack__(max_version=(1, 0))
    w = kokkos.from_dlpack(cap)
    with pytest.raises(BufferError, match="consumed already"):
        kokkos.from_dlpack(cap)
    with pytest.raises(ValueError):  # NumPy's own words for a used capsule
        np.from_dlpack(type("P", (), {"__dlpack__": lambda s, **k: cap, "__dlpack_device__": lambda s: (1, 0)})())
    w[0] = 5.0
    assert v[0] == 5.0


@pytest.mark.parametrize("major", [0, 2, 255, 2**32 - 1])
def test_dlpack_bad_major_versions(major):
    p = HostileProducer(np.arange(4.0), major=major)
    with pytest.raises(BufferError, match="major version"):
        kokkos.from_dlpack(p)
    assert p.deleted == 1  # the consumer took it, so it released it


HOSTILE_TENSORS = [
    (dict(ndim=-1), "rank"),
    (dict(ndim=9, shape=[1] * 9, strides=[1] * 9), "rank"),
    (dict(ndim=2**31 - 1), "rank"),
    (dict(shape=[-4]), r"shape\[0\]"),
    (dict(shape=[2**63 - 1]), "would need more than"),
    (dict(shape=[2**62], strides=[1]), "would need more than"),
    (dict(ndim=3, shape=[2**31, 2**31, 2**31], strides=None), "would need more than"),  # no strides: compact
    (dict(dtype=(2, 64, 2)), "lanes"),
    (dict(dtype=(2, 7, 1)), "no Kokkos View dtype"),
    (dict(dtype=(99, 64, 1)), "no Kokkos View dtype"),
    (dict(device=(99, 0)), "device type"),
    (dict(data=None), "NULL"),
    (dict(data=3), "aligned"),
    (dict(strides=[2**62]), "would span more than"),
    (dict(strides=[-(2**63) + 1]), "would span more than"),
    (dict(ndim=2, shape=[2, 2], strides=[2**61, 2**61]), "would span more than"),
]


@pytest.mark.parametrize("fields,match", HOSTILE_TENSORS, ids=lambda x: repr(x)[:48])
def test_dlpack_hostile_tensors_are_refused(fields, match):
    p = HostileProducer(np.arange(4.0), **fields)
    with pytest.raises((BufferError, ValueError, OverflowError), match=match):
        kokkos.from_dlpack(p)
    assert p.deleted == 1


# ---- the sanitizers are watching (only under scripts/suite.py --sanitize address) ----

sanitized = pytest.mark.skipif(
    os.environ.get("KOKKOS_PYTHON_SANITIZED") != "1", reason="runs under scripts/suite.py --sanitize address only"
)


def _private_reports(tmp_path):
    """Environment sending this child's sanitizer reports to tmp_path, so the
    deliberate errors below do not fail the whole run."""
    env = {"KOKKOS_SANITIZE_CHILD_LEAKS": "1"}
    for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
        opts = [o for o in os.environ.get(var, "").split(":") if o and not o.startswith("log_path=")]
        opts.append(f"log_path={tmp_path}/{var.split('_')[0].lower()}")
        env[var] = ":".join(opts)
    return env


@sanitized
def test_sanitizer_sees_an_overrun_of_view_memory(tmp_path):
    r = run_scenario("sanitizer_self_check", "overrun_view_memory", env=_private_reports(tmp_path))
    text = "".join(p.read_text() for p in tmp_path.iterdir())
    assert r.returncode != 0 and "not caught" not in r.stdout
    assert "heap-buffer-overflow" in text, text


@sanitized
def test_sanitizer_sees_a_leak(tmp_path):
    r = run_scenario("sanitizer_self_check", "leak_a_block", env=_private_reports(tmp_path))
    text = "".join(p.read_text() for p in tmp_path.iterdir())
    assert "leaked" in r.stdout
    assert "LeakSanitizer" in text and "4321 byte" in text, text
