"""Indexing Views: elements, subviews by slicing (NumPy as the oracle),
assignment with conversion checks, len and iteration."""

import itertools

import numpy as np
import pytest

import kokkos
from support import DTYPES, LAYOUTS, NP_DTYPES, sample, shape_of


def filled(dt, shape, layout=kokkos.LayoutRight):
    v = kokkos.array(list(shape), dtype=dt, layout=layout)
    ref = sample(NP_DTYPES[dt], shape)
    kokkos.deep_copy(v, ref)
    return v, ref


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("rank", range(0, 9))
def test_element_get_set(dt, rank):
    shape = shape_of(rank)
    v, ref = filled(dt, shape)
    for idx in itertools.islice(np.ndindex(*shape), 0, None, 5):
        got = v[idx] if rank else v[()]
        assert got == ref[idx]
        assert type(got) in (int, float, complex, bool)
    last = tuple(-1 for _ in shape)
    one = NP_DTYPES[dt].type(1).item()
    v[last] = one
    assert v[last] == one
    assert np.asarray(v)[last] == one


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_index_list_is_element_index(layout):
    v = kokkos.array([2, 2], layout=layout)
    v[[1, 0]] = 3
    assert v[1, 0] == 3 and v[[1, 0]] == 3
    v[[1, 0]] += 2
    assert v[1, 0] == 5


def test_inplace_operators():
    v = kokkos.array([2, 2], dtype=kokkos.int32)
    v[1, 1] = 10
    v[1, 1] -= 3
    v[1, 1] *= 2
    assert v[1, 1] == 14


SLICES = [
    (slice(None),),
    (1,),
    (-1,),
    (slice(1, 3),),
    (slice(None, None, 2),),
    (slice(None, None, -1),),
    (slice(3, 0, -2),),
    (Ellipsis, 1),
    (1, Ellipsis),
    (None, slice(1, None)),
    (slice(0, 0),),
    (slice(None), None, 2),
    (2, slice(None, None, -1), 0),
    (Ellipsis,),
]


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("key", SLICES, ids=repr)
def test_slicing_matches_numpy(layout, key):
    v, ref = filled(kokkos.float64, (4, 3, 5), layout)
    sub = v[key]
    expected = np.asarray(v)[key]
    if np.ndim(expected) == 0:
        assert sub == expected
        return
    assert isinstance(sub, kokkos.View)
    assert sub.shape == expected.shape
    got = np.asarray(sub)
    np.testing.assert_array_equal(got, expected)
    if sub.size:
        assert np.shares_memory(got, np.asarray(v)), "a subview shares the View's memory"
    assert sub.label == v.label


def test_subview_layout_and_writes():
    v = kokkos.array([4, 6], dtype=kokkos.int64)
    row = v[2]
    assert row.shape == (6,) and row.layout == kokkos.LayoutRight
    col = v[:, 1]
    assert col.layout == kokkos.LayoutStride and col.stride(0) == 6
    col[3] = 9
    assert v[3, 1] == 9
    v[1:3, 2:4] = 7
    assert np.asarray(v)[1:3, 2:4].tolist() == [[7, 7], [7, 7]]
    v[0] = np.arange(6)
    assert np.asarray(v)[0].tolist() == list(range(6))


def test_dyn_rank_subview_stays_dynamic():
    v = kokkos.array([3, 3], dynamic=True)
    assert isinstance(v[1], kokkos.DynRankView)
    assert isinstance(v[1:], kokkos.DynRankView)


def test_len_and_iteration():
    v, ref = filled(kokkos.int32, (3, 2))
    assert len(v) == 3
    rows = list(v)
    assert len(rows) == 3 and all(isinstance(r, kokkos.View) for r in rows)
    assert [list(r) for r in rows] == ref.tolist()
    w, wref = filled(kokkos.float32, (5,))
    assert list(w) == wref.tolist()
    s = kokkos.View(())
    with pytest.raises(TypeError, match="rank-0"):
        len(s)
    with pytest.raises(TypeError, match="rank-0"):
        iter(s).__next__()


@pytest.mark.parametrize(
    "key,exc,match",
    [
        ((3, 0), IndexError, "index 3 is out of bounds for axis 0 with size 3"),
        ((0, -5), IndexError, "index -5 is out of bounds for axis 1 with size 4"),
        ((0, 0, 0), IndexError, "too many indices for View: View is 2-dimensional, but 3 were indexed"),
        ((Ellipsis, Ellipsis), IndexError, "single ellipsis"),
        (([0, 1],), IndexError, "fancy and boolean indexing are not supported"),
        ([0, 1, 2], IndexError, "a list is taken as one int per dimension"),
        ("a", IndexError, "View indices must be"),
        (1.5, IndexError, "View indices must be"),
        (True, IndexError, "View indices must be"),
        (np.True_, IndexError, "fancy and boolean indexing are not supported"),  # has __index__ before NumPy 2.3
        ((np.False_, 0), IndexError, "fancy and boolean indexing are not supported"),
        ((2**70, 0), IndexError, "cannot fit"),
    ],
)
def test_bad_indices(key, exc, match):
    v = kokkos.View((3, 4))
    with pytest.raises(exc, match=match):
        v[key]
    with pytest.raises(exc, match=match):
        v[key] = 1


def test_fancy_index_array_is_rejected():
    v = kokkos.View((3,))
    with pytest.raises((IndexError, TypeError)):
        v[np.array([0, 1])]


@pytest.mark.parametrize(
    "dt,value,exc,match",
    [
        (kokkos.int8, 128, OverflowError, "out of range for a View of int8"),
        (kokkos.int8, -129, OverflowError, "out of range"),
        (kokkos.uint8, -1, OverflowError, "out of range for a View of uint8"),
        (kokkos.uint64, 2**64, OverflowError, "out of range"),
        (kokkos.int64, 2**63, OverflowError, "out of range"),
        (kokkos.int32, "3", TypeError, "cannot store a str"),
        (kokkos.float64, "3", TypeError, "cannot store a str"),
        (kokkos.float64, 1j, TypeError, "cannot store a complex"),
        (kokkos.int32, float("nan"), ValueError, "not a finite number"),
        (kokkos.int32, float("inf"), ValueError, "not a finite number"),
        (kokkos.bool, "yes", TypeError, "cannot store a str"),
        (kokkos.complex64, None, TypeError, "cannot store a NoneType"),
        (kokkos.float32, [1.0], TypeError, "cannot store a list"),
    ],
)
def test_bad_values(dt, value, exc, match):
    v = kokkos.View((2,), dt)
    with pytest.raises(exc, match=match):
        v[0] = value
    assert v[0] == 0


@pytest.mark.parametrize(
    "dt,value,expected",
    [
        (kokkos.int8, 127, 127),
        (kokkos.uint64, 2**64 - 1, 2**64 - 1),
        (kokkos.int64, -(2**63), -(2**63)),
        (kokkos.int32, 2.9, 2),
        (kokkos.int32, -2.9, -2),
        (kokkos.int16, np.int64(7), 7),
        (kokkos.float32, np.float64(0.5), 0.5),
        (kokkos.float64, 3, 3.0),
        (kokkos.complex128, 2, 2 + 0j),
        (kokkos.complex64, np.complex64(1 + 2j), 1 + 2j),
        (kokkos.bool, 2, True),
        (kokkos.bool, 0.0, False),
        (kokkos.int32, True, 1),
        (kokkos.uint8, np.uint8(255), 255),
    ],
)
def test_value_conversions(dt, value, expected):
    v = kokkos.View((1,), dt)
    v[0] = value
    assert v[0] == expected


def test_delete_is_rejected():
    v = kokkos.View((2,))
    with pytest.raises(TypeError, match="cannot be deleted"):
        del v[0]


def test_readonly_view_rejects_writes():
    a = np.arange(4.0)
    a.flags.writeable = False
    v = kokkos.array(a)
    assert v.readonly
    assert v[1] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        v[1] = 5
    with pytest.raises(ValueError, match="read-only"):
        kokkos.deep_copy(v, 0.0)
