"""Property-based tests: NumPy is the oracle.

Hypothesis generates shapes of rank 0..8 (zero extents included), every
dtype, LayoutRight / LayoutLeft / LayoutStride, strided and negatively
strided NumPy arrays, basic index tuples (ints, slices with any step,
Ellipsis, None) and copies between layouts, subviews and NumPy arrays. Each
result must equal NumPy's; each invalid input must raise the exception class
NumPy raises, or the documented one where Kokkos differs on purpose:

- deep_copy needs equal extents (Kokkos' rule; NumPy would broadcast):
  ValueError naming both shapes;
- a View has at most 8 dimensions (Kokkos' maximum; NumPy allows 64):
  IndexError / ValueError naming the limit;
- fancy and boolean indexing are not View operations: IndexError saying
  to use numpy.asarray(view)[...].

Example counts: HYPOTHESIS_PROFILE=kokkos-ci (the default, a few seconds),
kokkos-dev (more), kokkos-long (thousands per test: minutes).
"""

import operator
import os
import warnings
from functools import reduce

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import kokkos

_common = dict(
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile("kokkos-ci", max_examples=150, **_common)
settings.register_profile("kokkos-dev", max_examples=400, **_common)
settings.register_profile("kokkos-long", max_examples=3000, **_common)
PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "kokkos-ci"))

NP_DTYPES = [np.dtype(kokkos.get_dtype(d)) for d in kokkos.all_dtypes]
LAYOUTS = [kokkos.LayoutRight, kokkos.LayoutLeft, kokkos.LayoutStride]
MAX_RANK = 8
MAX_SIZE = 512


def _size(shape):
    return reduce(operator.mul, shape, 1)


def _max_side(rank):
    return {0: 0, 1: 9, 2: 7, 3: 5, 4: 4, 5: 3, 6: 3, 7: 2, 8: 2}[rank]


@st.composite
def shapes(draw, min_rank=0, max_rank=MAX_RANK):
    rank = draw(st.integers(min_rank, max_rank))
    shape = tuple(draw(st.integers(0, _max_side(rank))) for _ in range(rank))
    assume(_size(shape) <= MAX_SIZE)
    return shape


dtypes = st.sampled_from(NP_DTYPES)
layouts = st.sampled_from(LAYOUTS)


def _elements(dt, small=False):
    """Element strategy for dtype dt; small=True keeps values exactly
    representable in every dtype (for cross-dtype casts)."""
    if dt.kind == "b":
        return st.booleans()
    if small:
        return st.integers(0 if dt.kind == "u" else -100, 100)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return st.integers(int(info.min), int(info.max))
    return hnp.from_dtype(dt)


def _order(layout):
    return "F" if int(layout) == int(kokkos.LayoutLeft) else "C"


@st.composite
def arrays(draw, shape=None, dtype=None, small=False):
    """A NumPy array with arbitrary strides: a C or F array, transposed or
    sliced with any step (negative included) out of a bigger one."""
    dt = draw(dtypes) if dtype is None else dtype
    shape = draw(shapes()) if shape is None else shape
    # A base big enough to cut `shape` out of with steps.
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2])) for _ in shape]
    offsets = [draw(st.integers(0, 1)) for _ in shape]
    base_shape = tuple(max(0, n * abs(s) + o) for n, s, o in zip(shape, steps, offsets, strict=True))
    assume(_size(base_shape) <= 8 * MAX_SIZE)
    base = draw(hnp.arrays(dt, base_shape, elements=_elements(dt, small)))
    if draw(st.booleans()):
        base = np.array(base, order="F")  # (asfortranarray would make 0-d arrays 1-d)
    index = tuple(_cut(n, s, o, b) for n, s, o, b in zip(shape, steps, offsets, base_shape, strict=True))
    arr = base[index] if index else base
    assert arr.shape == shape, (arr.shape, shape)
    return arr


def _cut(n, step, off, base):
    """A slice of n elements out of base ones, starting off from the front
    (step > 0) or from the back (step < 0)."""
    if n == 0:
        return slice(off, off, step)
    if step > 0:
        return slice(off, off + n * step, step)
    start = base - 1 - off
    stop = start + n * step
    return slice(start, stop if stop >= 0 else None, step)


def _view_like(arr, layout):
    """A Kokkos-allocated View holding a copy of arr."""
    v = kokkos.View(arr.shape, arr.dtype, layout=layout)
    kokkos.deep_copy(v, arr)
    return v


def _same_exception(f_numpy, f_kokkos, documented=()):
    """Runs both; if NumPy raises, Kokkos must raise the same class (or one of
    documented); if NumPy succeeds, returns both results."""
    try:
        ref = f_numpy()
    except Exception as e:  # noqa: BLE001 - the oracle's class is what we compare
        with pytest.raises(Exception) as info:
            f_kokkos()
        assert isinstance(info.value, type(e)) or isinstance(info.value, documented), (
            f"NumPy raised {type(e).__name__}: {e}; kokkos raised {type(info.value).__name__}: {info.value}"
        )
        return None, None, info.value
    return ref, f_kokkos(), None


def _check_scalar(res, ref):
    """res: what a View element read returned; ref: NumPy's scalar."""
    kind = ref.dtype.kind
    expected_type = {"b": bool, "i": int, "u": int, "f": float, "c": complex}[kind]
    assert type(res) is expected_type, (type(res), ref.dtype)
    np.testing.assert_array_equal(np.asarray(res, dtype=ref.dtype), ref)


# ---- creation -------------------------------------------------------------------------------


@PROFILE
@given(shape=shapes(), dt=dtypes, layout=layouts)
def test_new_view_matches_numpy_zeros(shape, dt, layout):
    v = kokkos.View(shape, dt, layout=layout)
    ref = np.zeros(shape, dt, order=_order(layout))
    a = np.asarray(v)
    assert a.dtype == ref.dtype and a.shape == ref.shape
    np.testing.assert_array_equal(a, ref)
    assert tuple(v.shape) == ref.shape
    assert v.ndim == v.rank == ref.ndim
    assert v.size == ref.size and v.nbytes == ref.nbytes and v.itemsize == ref.itemsize
    if ref.size:  # NumPy 2 reports 0 strides for empty arrays; any strides describe them
        assert tuple(v.strides) == ref.strides
    assert v.is_contiguous
    if ref.ndim == 0:
        with pytest.raises(TypeError, match="rank-0"):
            len(v)
    else:
        assert len(v) == len(ref)
    for r in range(ref.ndim):
        assert v.extent(r) == ref.shape[r]
        assert v.stride(r) * ref.itemsize == v.strides[r]
    if ref.size:
        assert a.ctypes.data == v.data


@PROFILE
@given(shape=shapes(max_rank=MAX_RANK - 1), dt=dtypes)
def test_dyn_rank_view_matches_numpy(shape, dt):
    v = kokkos.DynRankView(shape, dt)
    assert v.dynamic and isinstance(v, kokkos.View)
    np.testing.assert_array_equal(np.asarray(v), np.zeros(shape, dt))


def test_dyn_rank_view_rank_8_is_refused():
    with pytest.raises(ValueError, match="maximum 7"):
        kokkos.DynRankView((1,) * 8)
    with pytest.raises(ValueError, match="maximum 8"):
        kokkos.View((1,) * 9)


# ---- NumPy in, NumPy out --------------------------------------------------------------------


@PROFILE
@given(arr=arrays())
def test_wrapped_numpy_array_is_the_same_memory(arr):
    note(f"shape={arr.shape} strides={arr.strides} dtype={arr.dtype}")
    v = kokkos.array(arr)
    assert tuple(v.shape) == arr.shape and v.itemsize == arr.itemsize
    for r, n in enumerate(arr.shape):  # strides of unit extents are arbitrary
        if arr.size and n > 1:
            assert v.strides[r] == arr.strides[r]
    back = np.asarray(v)
    assert back.dtype == arr.dtype
    np.testing.assert_array_equal(back, arr)
    if arr.size:
        assert np.shares_memory(back, arr)
        # writes through the View land in the array
        first = (0,) * arr.ndim
        new = np.zeros((), arr.dtype) if arr[first] else np.ones((), arr.dtype)
        v[first] = new.item()
        np.testing.assert_array_equal(arr[first], new)


@PROFILE
@given(arr=arrays(), layout=layouts)
def test_array_interface_and_buffer_match_numpy(arr, layout):
    v = _view_like(arr, layout)
    ref = np.asarray(v)
    ai = v.__array_interface__
    assert ai["version"] == 3
    assert ai["shape"] == ref.shape
    assert np.dtype(ai["typestr"]) == arr.dtype
    assert ai["data"] == (v.data, False)
    if ai["strides"] is None:
        assert ref.flags.c_contiguous
    else:
        assert ai["strides"] == ref.strides
    m = memoryview(v)
    assert m.shape == ref.shape and m.strides == ref.strides
    assert m.itemsize == arr.itemsize and m.nbytes == ref.nbytes and not m.readonly
    assert np.asarray(m).dtype == arr.dtype  # NumPy reads the PEP 3118 format
    m.release()


@PROFILE
@given(arr=arrays())
def test_read_only_arrays_give_read_only_views(arr):
    arr.flags.writeable = False
    v = kokkos.array(arr)
    assert v.readonly
    np.testing.assert_array_equal(np.asarray(v), arr)
    if arr.size:
        index = (0,) * arr.ndim
        with pytest.raises(ValueError, match="read-only"):
            arr[index] = arr[index]
        with pytest.raises(ValueError, match="read-only"):
            v[index] = arr[index].item()
    with pytest.raises(ValueError, match="read-only"):
        kokkos.deep_copy(v, 0)
    with pytest.raises(BufferError, match="read-only"):
        kokkos._core._wrap(arr, True)  # a writable View of it


# ---- indexing -------------------------------------------------------------------------------


@st.composite
def array_and_index(draw, allow_newaxis=True):
    arr = draw(arrays())
    max_dims = MAX_RANK if allow_newaxis else arr.ndim
    index = draw(hnp.basic_indices(arr.shape, allow_newaxis=allow_newaxis, max_dims=max_dims))
    return arr, index


@PROFILE
@given(case=array_and_index(), layout=layouts)
def test_basic_indexing_matches_numpy(case, layout):
    arr, index = case
    note(f"shape={arr.shape} index={index!r}")
    v = _view_like(arr, layout)
    ref = arr[index]
    res = v[index]
    if isinstance(ref, np.ndarray):
        assert isinstance(res, kokkos.View), type(res)
        got = np.asarray(res)
        assert got.shape == ref.shape and got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)
        assert res.label == v.label
        if ref.size:
            assert np.shares_memory(got, np.asarray(v)), "a subview must share the View's memory"
    else:
        _check_scalar(res, ref)


@PROFILE
@given(arr=arrays(), data=st.data())
def test_invalid_indices_raise_what_numpy_raises(arr, data):
    v = kokkos.array(arr)
    rank = arr.ndim
    bad = data.draw(
        st.one_of(
            # an int beyond an extent (either sign)
            st.tuples(st.integers(0, max(rank - 1, 0)), st.integers(0, 3), st.booleans()).map(
                lambda t: _out_of_range(arr.shape, *t)
            ),
            # more indices than dimensions
            st.just((0,) * (rank + 1)),
            # two Ellipses
            st.just((Ellipsis, Ellipsis)),
            # a float, a str, a bytes index
            st.sampled_from([1.5, "x", b"x", (0.0,), (slice(None), "a")]),
            # a slice with step 0
            st.just(slice(None, None, 0)),
        ),
        label="bad index",
    )
    note(f"shape={arr.shape} index={bad!r}")
    _, _, err = _same_exception(lambda: arr[bad], lambda: v[bad])
    if err is None:  # NumPy took it: so must the View, with the same result
        ref = arr[bad]
        res = v[bad]
        if isinstance(ref, np.ndarray):
            np.testing.assert_array_equal(np.asarray(res), ref)
        else:
            _check_scalar(res, ref)


def _out_of_range(shape, dim, extra, negative):
    if not shape:
        return (0,)  # any int index into a rank-0 array is "too many indices"
    n = shape[dim]
    i = -(n + 1 + extra) if negative else n + extra
    index = [0] * len(shape)
    for d, e in enumerate(shape):
        if e == 0 and d != dim:
            index[d] = slice(None)
    index[dim] = i
    return tuple(index)


@PROFILE
@given(arr=arrays(), extra=st.integers(1, 4))
def test_results_beyond_rank_8_are_refused(arr, extra):
    """NumPy allows 64 dimensions, a View 8: adding unit dimensions past 8 is
    refused with an IndexError naming the limit."""
    v = kokkos.array(arr)
    index = (None,) * (MAX_RANK - arr.ndim + extra) + (Ellipsis,)
    assert arr[index].ndim > MAX_RANK
    with pytest.raises(IndexError, match="more than 8 dimensions"):
        v[index]


@PROFILE
@given(arr=arrays(), data=st.data())
def test_fancy_and_boolean_indexing_are_documented_errors(arr, data):
    assume(arr.ndim >= 1 and arr.shape[0] >= 1)
    v = kokkos.array(arr)
    bad = data.draw(
        st.sampled_from(
            [
                np.array([0]),
                np.zeros(arr.shape[0], dtype=bool),
                [0] * (arr.ndim + 1),
                [True] * arr.shape[0],
                np.True_,
                ([0], Ellipsis),
            ]
        )
    )
    arr[bad]  # NumPy takes all of these
    with pytest.raises(IndexError, match="numpy.asarray"):
        v[bad]


@PROFILE
@given(case=array_and_index(), data=st.data(), layout=layouts)
def test_setitem_matches_numpy(case, data, layout):
    arr, index = case
    dt = arr.dtype
    v = _view_like(arr, layout)
    ref = arr.copy()
    target_shape = np.shape(ref[index])
    if data.draw(st.booleans(), label="array value"):
        value = data.draw(hnp.arrays(dt, target_shape, elements=_elements(dt)), label="value")
    else:
        value = np.asarray(data.draw(_elements(dt), label="value"), dtype=dt).item()
    note(f"shape={arr.shape} index={index!r} value={value!r}")
    ref[index] = value
    v[index] = value
    np.testing.assert_array_equal(np.asarray(v), ref)


@PROFILE
@given(arr=arrays(), layout=layouts)
def test_iteration_and_len_match_numpy(arr, layout):
    assume(arr.ndim >= 1)
    v = _view_like(arr, layout)
    assert len(v) == len(arr)
    items = list(v)
    assert len(items) == len(arr)
    for got, ref in zip(items, arr, strict=True):
        if isinstance(ref, np.ndarray):
            np.testing.assert_array_equal(np.asarray(got), ref)
        else:
            _check_scalar(got, ref)


# ---- copies ---------------------------------------------------------------------------------


@st.composite
def strided_region(draw, shape):
    """(base_shape, index) such that base[index].shape == shape: a region
    cut out of a bigger View with steps (negative included)."""
    base_shape, index = [], []
    for n in shape:
        step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
        off = draw(st.integers(0, 2))
        b = n * abs(step) + off
        base_shape.append(b)
        index.append(_cut(n, step, off, b))
    return tuple(base_shape), tuple(index)


@PROFILE
@given(shape=shapes(), dt=dtypes, data=st.data())
def test_deep_copy_between_layouts_and_subviews(shape, dt, data):
    src_base_shape, src_index = data.draw(strided_region(shape), label="source region")
    dst_base_shape, dst_index = data.draw(strided_region(shape), label="destination region")
    assume(_size(src_base_shape) <= 16 * MAX_SIZE and _size(dst_base_shape) <= 16 * MAX_SIZE)
    src_layout, dst_layout = data.draw(layouts, label="src layout"), data.draw(layouts, label="dst layout")
    src_np = data.draw(hnp.arrays(dt, src_base_shape, elements=_elements(dt)), label="source values")
    dst_np = data.draw(hnp.arrays(dt, dst_base_shape, elements=_elements(dt)), label="destination values")
    src_base = _view_like(src_np, src_layout)
    dst_base = _view_like(dst_np, dst_layout)
    # (indexing a rank-0 View with () reads its element: use the View itself)
    src = src_base[src_index] if shape else src_base
    dst = dst_base[dst_index] if shape else dst_base
    assert tuple(src.shape) == tuple(dst.shape) == shape
    kokkos.deep_copy(dst, src)
    expect = dst_np.copy()
    expect[dst_index] = src_np[src_index]
    # the region got the source, nothing outside it changed, the source is intact
    np.testing.assert_array_equal(np.asarray(dst_base), expect)
    np.testing.assert_array_equal(np.asarray(src_base), src_np)


@PROFILE
@given(arr=arrays(), dst_dt=dtypes, layout=layouts, data=st.data())
def test_deep_copy_from_numpy_matches_astype(arr, dst_dt, layout, data):
    if arr.dtype != dst_dt:
        # cross-dtype copies cast through NumPy: use values every dtype holds
        arr = data.draw(arrays(shape=arr.shape, dtype=arr.dtype, small=True), label="small values")
    v = kokkos.View(arr.shape, dst_dt, layout=layout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        expect = arr.astype(dst_dt)
        kokkos.deep_copy(v, arr)
    np.testing.assert_array_equal(np.asarray(v), expect)


@PROFILE
@given(shape=shapes(), dt=dtypes, layout=layouts, data=st.data())
def test_fill_with_scalar_matches_numpy(shape, dt, layout, data):
    value = np.asarray(data.draw(_elements(dt)), dtype=dt).item()
    v = kokkos.View(shape, dt, layout=layout)
    kokkos.deep_copy(v, value)
    np.testing.assert_array_equal(np.asarray(v), np.full(shape, value, dtype=dt))
    # a rank-0 NumPy array fills the same way
    zero_d = np.asarray(value, dtype=dt)
    w = kokkos.View(shape, dt, layout=layout)
    kokkos.deep_copy(w, zero_d)
    np.testing.assert_array_equal(np.asarray(w), np.full(shape, value, dtype=dt))


@PROFILE
@given(a=shapes(min_rank=1), b=shapes(min_rank=1), dt=dtypes)
def test_deep_copy_shape_mismatch_is_a_value_error(a, b, dt):
    assume(a != b)
    dst = kokkos.View(a, dt)
    src = np.zeros(b, dt)
    try:
        np.copyto(np.zeros(a, dt), src)
        broadcastable = True
    except ValueError:
        broadcastable = False
    note(f"NumPy broadcasts: {broadcastable}")
    # NumPy raises ValueError when it cannot broadcast; Kokkos needs equal
    # extents, so it raises the same class for every difference.
    with pytest.raises(ValueError, match="shapes differ"):
        kokkos.deep_copy(dst, src)
    with pytest.raises(ValueError, match="shapes differ"):
        kokkos.deep_copy(dst, kokkos.View(b, dt))


@PROFILE
@given(arr=arrays(), layout=layouts)
def test_mirrors_match_numpy_copies(arr, layout):
    v = _view_like(arr, layout)
    m = v.create_mirror()  # the member form copies by default
    assert tuple(m.shape) == arr.shape and m.dtype == v.dtype
    np.testing.assert_array_equal(np.asarray(m), arr)
    if arr.size:
        assert not np.shares_memory(np.asarray(m), np.asarray(v))
    empty = kokkos.create_mirror(v)  # the free function does not
    np.testing.assert_array_equal(np.asarray(empty), np.zeros(arr.shape, arr.dtype))
    assert kokkos.create_mirror_view(v) is v  # host memory: the View itself


@PROFILE
@given(case=array_and_index(allow_newaxis=False), dt=dtypes, data=st.data())
def test_copy_into_subview_from_numpy_with_other_dtype(case, dt, data):
    arr, index = case
    v = kokkos.View(arr.shape, dt)
    target = v[index]
    assume(isinstance(target, kokkos.View))
    src = data.draw(arrays(shape=tuple(target.shape), dtype=np.dtype(np.int64), small=True), label="source")
    kokkos.deep_copy(target, src)
    expect = np.zeros(arr.shape, dt)
    expect[index] = src.astype(dt)
    np.testing.assert_array_equal(np.asarray(v), expect)
