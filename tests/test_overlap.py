"""Copies between Views that share memory: NumPy is the oracle.

Every spelling of a copy (slice assignment, ``v[...] = w``, kokkos.deep_copy,
View.deep_copy, a NumPy array of the same memory as the source, a mirror
view) between two Views over one buffer, on every layout and stride
pattern, must leave what NumPy's assignment leaves: the result is as if the
source were copied first. The oracle copies the source first: NumPy's own
assignment departs from that in one corner, a 1-D destination and a source
of another stride in the same direction that starts below it
(``a[1:4] = a[0:9:3]`` writes a[3] before reading it for a[2]), where its
inner loop just runs backwards. A View copied onto itself changes nothing and
never reaches Kokkos (Kokkos 5.2 forbids that deep_copy); Kokkos leaves
overlapping copies undefined, so the core stages them. The CUDA tests are
marked ``cuda`` and run where the installed Kokkos has a CUDA memory space.
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import kokkos
from kokkos import tools as kt
from support import HAS_CUDA, NP_DTYPES, sample

# one dtype per itemsize (1, 2, 4, 8, 16), bool and complex128 among them
OVERLAP_DTYPES = [kokkos.bool, kokkos.int16, kokkos.float32, kokkos.int64, kokkos.complex128]
SHAPES = {1: (9,), 2: (6, 5), 3: (6, 5, 4), 8: (4, 2, 3, 2, 2, 1, 2, 3)}


def base_view(dt, shape, layout, space="HostSpace"):
    """A View of shape over fresh memory: LayoutRight, LayoutLeft, or
    'stride' (every other element of a larger View, reversed along the last
    axis: negative strides included)."""
    if layout == "stride":
        big = kokkos.array([2 * s for s in shape], dtype=dt, space=space)
        return big[tuple(slice(None, None, 2) for _ in shape[:-1]) + (slice(None, None, -2),)]
    lay = kokkos.LayoutRight if layout == "right" else kokkos.LayoutLeft
    return kokkos.array(list(shape), dtype=dt, layout=lay, space=space)


def axis_key(rank, axis, s):
    return tuple(s if r == axis else slice(None) for r in range(rank))


def patterns(rank):
    """(name, destination index, source index) of equal shapes over one View
    of SHAPES[rank]."""
    last = rank - 1
    every = tuple(slice(None) for _ in range(rank))
    return {
        "shift_fwd_1": (axis_key(rank, 0, slice(1, None)), axis_key(rank, 0, slice(None, -1))),
        "shift_back_2": (axis_key(rank, 0, slice(None, -2)), axis_key(rank, 0, slice(2, None))),
        "shift_last_fwd_1": (axis_key(rank, last, slice(1, None)), axis_key(rank, last, slice(None, -1))),
        "shift_last_back_1": (axis_key(rank, last, slice(None, -1)), axis_key(rank, last, slice(1, None))),
        "reversed": (every, tuple(slice(None, None, -1) for _ in range(rank))),
        "shift_reversed": (
            (slice(1, None),) + tuple(slice(None, None, -1) for _ in range(rank - 1)),
            (slice(None, -1),) + every[1:],
        ),
        "diagonal": (tuple(slice(1, None) for _ in range(rank)), tuple(slice(None, -1) for _ in range(rank))),
        "interleaved": (axis_key(rank, 0, slice(0, 4, 2)), axis_key(rank, 0, slice(1, 5, 2))),
        "identical": (every, every),
        "disjoint": (axis_key(rank, 0, slice(0, 2)), axis_key(rank, 0, slice(3, 5))),
    }


def assign(spelling, base, dkey, skey):
    """base[dkey] = base[skey], spelled one of the ways a user spells it."""
    src = base[skey]
    if spelling == "setitem":
        base[dkey] = src
    elif spelling == "ellipsis":
        base[dkey][...] = src
    elif spelling == "deep_copy":
        kokkos.deep_copy(base[dkey], src)
    elif spelling == "method":
        base[dkey].deep_copy(src)
    elif spelling == "numpy_source":
        base[dkey] = np.asarray(src)
    elif spelling == "mirror":
        # a host View's mirror view is the View itself: the copy is between
        # two names of one memory
        mirror = kokkos.create_mirror_view(base[dkey])
        kokkos.deep_copy(mirror, src)
    else:
        raise AssertionError(spelling)


SPELLINGS = ["setitem", "ellipsis", "deep_copy", "method", "numpy_source", "mirror"]
LAYOUT_KINDS = ["right", "left", "stride"]


def check(dt, shape, layout, dkey, skey, spellings=SPELLINGS):
    nd = NP_DTYPES[dt]
    data = sample(nd, shape, seed=len(shape))
    expected = data.copy()
    expected[dkey] = expected[skey].copy()
    for spelling in spellings:
        base = base_view(dt, shape, layout)
        np.asarray(base)[...] = data
        assign(spelling, base, dkey, skey)
        np.testing.assert_array_equal(np.asarray(base), expected, err_msg=f"{spelling}: base[{dkey}] = base[{skey}]")


@pytest.mark.parametrize("pattern", list(patterns(1)))
@pytest.mark.parametrize("layout", LAYOUT_KINDS)
@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("dt", OVERLAP_DTYPES, ids=str)
def test_every_spelling_gives_numpys_values(dt, rank, layout, pattern):
    dkey, skey = patterns(rank)[pattern]
    check(dt, SHAPES[rank], layout, dkey, skey)


@pytest.mark.parametrize("pattern", ["shift_fwd_1", "shift_last_back_1", "reversed", "shift_reversed", "identical"])
@pytest.mark.parametrize("layout", LAYOUT_KINDS)
def test_rank_8(layout, pattern):
    dkey, skey = patterns(8)[pattern]
    check(kokkos.float64, SHAPES[8], layout, dkey, skey, spellings=["setitem", "deep_copy", "numpy_source"])


def test_the_reported_case():
    w = kokkos.View((4, 3))
    np.asarray(w)[...] = np.arange(12.0).reshape(4, 3)
    w[1:, ::-1] = w[:-1, :]
    expected = np.arange(12.0).reshape(4, 3)
    expected[1:, ::-1] = expected[:-1, :].copy()
    np.testing.assert_array_equal(np.asarray(w), expected)


@pytest.mark.parametrize("dt", OVERLAP_DTYPES, ids=str)
def test_contiguous_shift_both_ways(dt):
    """One contiguous buffer shifted by k both ways (a memmove)."""
    n = 50_000  # above the size at which host copies release the GIL
    data = sample(NP_DTYPES[dt], (n,))
    for k in (1, 7, n // 2):
        v = kokkos.array([n], dtype=dt)
        np.asarray(v)[...] = data
        kokkos.deep_copy(v[k:], v[:-k])
        np.testing.assert_array_equal(np.asarray(v)[k:], data[:-k])
        np.testing.assert_array_equal(np.asarray(v)[:k], data[:k])
        np.asarray(v)[...] = data
        kokkos.deep_copy(v[:-k], v[k:])
        np.testing.assert_array_equal(np.asarray(v)[:-k], data[k:])
        np.testing.assert_array_equal(np.asarray(v)[-k:], data[-k:])


@pytest.mark.parametrize("layout", LAYOUT_KINDS)
@pytest.mark.parametrize("dt", OVERLAP_DTYPES, ids=str)
def test_large_strided_overlap(dt, layout):
    """Large enough to run on several host threads when Kokkos has them."""
    shape = (300, 130)
    data = sample(NP_DTYPES[dt], shape, seed=3)
    expected = data.copy()
    expected[1:, ::-1] = expected[:-1, :].copy()
    base = base_view(dt, shape, layout)
    np.asarray(base)[...] = data
    base[1:, ::-1] = base[:-1, :]
    np.testing.assert_array_equal(np.asarray(base), expected)


@pytest.mark.parametrize("perm", [(1, 0), (1, 0, 2), (2, 1, 0), (1, 2, 0)])
@pytest.mark.parametrize("dt", OVERLAP_DTYPES, ids=str)
def test_transposed_square(dt, perm):
    """A View and its transpose (a NumPy transpose wrapped again) over one memory."""
    shape = (4,) * len(perm)
    data = sample(NP_DTYPES[dt], shape, seed=5)
    for spelling in ("deep_copy", "method", "setitem"):
        v = kokkos.array(list(shape), dtype=dt)
        np.asarray(v)[...] = data
        t = kokkos.asarray(np.asarray(v).transpose(perm))
        if spelling == "deep_copy":
            kokkos.deep_copy(v, t)
        elif spelling == "method":
            v.deep_copy(t)
        else:
            v[...] = t
        np.testing.assert_array_equal(np.asarray(v), data.transpose(perm), err_msg=spelling)


@pytest.mark.parametrize("dt", OVERLAP_DTYPES, ids=str)
def test_numpy_subviews_wrapped_twice(dt):
    """Two Views made by kokkos.asarray over overlapping parts of one NumPy array."""
    data = sample(NP_DTYPES[dt], (8, 6), seed=9)
    cases = [
        ((slice(1, None), slice(None)), (slice(None, -1), slice(None))),
        ((slice(None, -2), slice(None, None, -1)), (slice(2, None), slice(None))),
        ((slice(None), slice(1, 4)), (slice(None), slice(0, 3))),
        ((slice(None, None, 2), slice(None)), (slice(1, None, 2), slice(None))),
    ]
    for dkey, skey in cases:
        arr = data.copy()
        dst, src = kokkos.asarray(arr[dkey]), kokkos.asarray(arr[skey])
        expected = data.copy()
        expected[dkey] = expected[skey].copy()
        kokkos.deep_copy(dst, src)
        np.testing.assert_array_equal(arr, expected, err_msg=f"{dkey} <- {skey}")
        arr[...] = data
        dst.deep_copy(src)
        np.testing.assert_array_equal(arr, expected, err_msg=f"method {dkey} <- {skey}")


def test_a_view_onto_itself_changes_nothing():
    for shape in [(), (5,), (3, 4), SHAPES[8]]:
        data = sample(np.dtype(np.float64), shape, seed=1)
        v = kokkos.array(list(shape))
        np.asarray(v)[...] = data
        kokkos.deep_copy(v, v)
        v.deep_copy(v)
        v[...] = v
        kokkos.deep_copy(v, kokkos.asarray(np.asarray(v)))
        kokkos.deep_copy(kokkos.create_mirror_view(v), v)
        kokkos.deep_copy(v, kokkos.create_mirror_view(v))
        v.create_mirror_view().deep_copy(v)
        assert kokkos.create_mirror_view_and_copy(kokkos.HostSpace, v) is v
        np.testing.assert_array_equal(np.asarray(v), data)


def test_mirror_views_share_memory_and_copy_like_numpy():
    data = sample(np.dtype(np.float64), (6, 5), seed=2)
    v = kokkos.array([6, 5])
    np.asarray(v)[...] = data
    m = kokkos.create_mirror_view(v)
    assert m is v
    kokkos.deep_copy(m[1:], v[:-1])
    expected = data.copy()
    expected[1:] = expected[:-1].copy()
    np.testing.assert_array_equal(np.asarray(v), expected)
    sub = v[:, ::-1]
    kokkos.deep_copy(kokkos.create_mirror_view(sub), v)
    np.testing.assert_array_equal(np.asarray(v), expected[:, ::-1])


def test_tools_see_no_copy_of_a_view_onto_itself_and_both_halves_of_a_staged_one():
    v = kokkos.array("self", [6, 5])
    begins = []
    kt.set_callback("begin_deep_copy", lambda *a: begins.append(a))
    try:
        kokkos.deep_copy(v, v)
        v[...] = v
        kokkos.deep_copy(v, kokkos.asarray(np.asarray(v)))
        assert begins == []
        v[1:, ::-1] = v[:-1, :]  # staged: into a temporary, then out of it
        labels = [(b[1], b[4]) for b in begins]
        assert labels == [("kokkos.deep_copy staging", "self"), ("self", "kokkos.deep_copy staging")]
        begins.clear()
        v[1:] = v[:-1]  # one memmove, reported once
        assert [(b[1], b[4]) for b in begins] == [("self", "self")]
    finally:
        kt.clear_callbacks()


# ---- random overlapping operands over one buffer ---------------------------------------


@st.composite
def overlapping_operands(draw):
    """A base shape and two index tuples (slices with steps, negative ones
    included) whose results have equal shapes."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 7)) for _ in range(rank))
    dkey, skey = [], []
    for extent in shape:
        length = draw(st.integers(1, extent))
        for key in (dkey, skey):
            step = draw(st.sampled_from([s for s in (-3, -2, -1, 1, 2, 3) if abs(s) * (length - 1) < extent]))
            room = extent - abs(step) * (length - 1)
            start = draw(st.integers(0, room - 1))
            if step < 0:
                start += abs(step) * (length - 1)
            stop = start + step * length
            key.append(slice(start, stop if stop >= 0 else None, step))
    return shape, tuple(dkey), tuple(skey)


# as test_properties.py's profiles, with fewer examples: each one makes Views
EXAMPLES = {"kokkos-ci": 80, "kokkos-dev": 400, "kokkos-long": 3000}.get(os.environ.get("HYPOTHESIS_PROFILE"), 80)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    operands=overlapping_operands(),
    dt=st.sampled_from(OVERLAP_DTYPES),
    layout=st.sampled_from(LAYOUT_KINDS),
    spelling=st.sampled_from(SPELLINGS),
)
def test_random_overlapping_operands(operands, dt, layout, spelling):
    shape, dkey, skey = operands
    note(f"base[{dkey}] = base[{skey}] over {shape}")
    data = sample(NP_DTYPES[dt], shape, seed=4)
    assert data[dkey].shape == data[skey].shape
    expected = data.copy()
    expected[dkey] = expected[skey].copy()
    base = base_view(dt, shape, layout)
    np.asarray(base)[...] = data
    assign(spelling, base, dkey, skey)
    np.testing.assert_array_equal(np.asarray(base), expected)


# ---- device spaces (CUDA) ---------------------------------------------------------------

CUDA_SPACES = ["CudaSpace", "CudaUVMSpace"]


def to_host(v):
    return np.asarray(v.create_mirror_view(copy=True))


@pytest.mark.parametrize("pattern", list(patterns(1)))
@pytest.mark.parametrize("layout", LAYOUT_KINDS)
@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("space", CUDA_SPACES)
@pytest.mark.parametrize("dt", [kokkos.bool, kokkos.float64, kokkos.complex128], ids=str)
@pytest.mark.cuda
@pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space")
def test_device_overlap(dt, space, rank, layout, pattern):
    shape = SHAPES[rank]
    dkey, skey = patterns(rank)[pattern]
    data = sample(NP_DTYPES[dt], shape, seed=rank)
    expected = data.copy()
    expected[dkey] = expected[skey].copy()
    for spelling in ("setitem", "deep_copy", "method"):
        base = base_view(dt, shape, layout, space=space)
        kokkos.deep_copy(base, data)
        assign(spelling, base, dkey, skey)
        np.testing.assert_array_equal(to_host(base), expected, err_msg=f"{spelling} in {space}")


@pytest.mark.parametrize("space", CUDA_SPACES)
@pytest.mark.cuda
@pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space")
def test_device_contiguous_shift_and_self_copy(space):
    n = 1 << 20
    data = np.arange(n, dtype=np.float64)
    v = kokkos.array([n], space=space)
    kokkos.deep_copy(v, data)
    kokkos.deep_copy(v, v)
    v[...] = v
    np.testing.assert_array_equal(to_host(v), data)
    kokkos.deep_copy(v[3:], v[:-3])
    expected = data.copy()
    expected[3:] = data[:-3]
    np.testing.assert_array_equal(to_host(v), expected)
    v.deep_copy(data)
    v[:-5].deep_copy(v[5:])
    expected = data.copy()
    expected[:-5] = data[5:]
    np.testing.assert_array_equal(to_host(v), expected)


@pytest.mark.cuda
@pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space")
def test_device_view_over_host_memory_overlapping_a_host_view():
    """An Unmanaged CudaSpace View over a NumPy array and a host View of the
    same array: different spaces, one memory."""
    data = np.arange(40.0).reshape(8, 5)
    arr = data.copy()
    host = kokkos.asarray(arr)
    dev = kokkos.array(arr, space=kokkos.CudaSpace, trait=kokkos.Unmanaged)
    kokkos.deep_copy(host[1:], dev[:-1])
    expected = data.copy()
    expected[1:] = data[:-1]
    np.testing.assert_array_equal(arr, expected)
    arr[...] = data
    kokkos.deep_copy(dev[:, ::-1], host)
    np.testing.assert_array_equal(arr, data[:, ::-1])
