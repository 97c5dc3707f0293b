"""A View of one element as a Python number: float(), int(), complex(),
operator.index() and bool(), by NumPy's rules."""

import math
import operator

import numpy as np
import pytest

import kokkos
from support import DTYPES, NP_DTYPES, run_scenario, succeeded


def one(dt, value, shape=()):
    v = kokkos.array(list(shape), dtype=dt)
    np.asarray(v)[...] = value
    return v


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1, 1)])
def test_conversions_match_numpy(dt, shape):
    ref = np.ones(shape, dtype=NP_DTYPES[dt]) * (1 if NP_DTYPES[dt] == np.bool_ else 3)
    v = one(dt, ref, shape)
    item = ref.reshape(()).item()
    if np.dtype(NP_DTYPES[dt]).kind == "c":
        with pytest.raises(TypeError):
            float(v)
        assert complex(v) == complex(item)
    else:
        assert float(v) == float(item) and isinstance(float(v), float)
        assert int(v) == int(item) and type(int(v)) is int
        assert complex(v) == complex(item)


def test_int_truncates_toward_zero_like_numpy():
    assert int(one(kokkos.float64, -2.75)) == int(np.float64(-2.75)) == -2
    assert math.isnan(float(one(kokkos.float32, np.nan)))
    with pytest.raises(ValueError):
        int(one(kokkos.float64, np.nan))
    with pytest.raises(OverflowError):
        int(one(kokkos.float64, np.inf))


@pytest.mark.parametrize("dt", [kokkos.int8, kokkos.int32, kokkos.uint16, kokkos.int64, kokkos.uint64])
def test_rank0_integer_view_is_an_index(dt):
    v = one(dt, 3)
    assert operator.index(v) == 3
    assert [10, 20, 30, 40][v] == 40
    assert list(range(v)) == [0, 1, 2]
    big = one(kokkos.uint64, np.iinfo(np.uint64).max)
    assert operator.index(big) == 2**64 - 1


@pytest.mark.parametrize(
    "make",
    [
        lambda: one(kokkos.float64, 1.0),  # not an integer dtype
        lambda: one(kokkos.bool, True),  # bool is not an index, as in NumPy
        lambda: one(kokkos.int32, 1, (1,)),  # not rank 0
    ],
)
def test_what_is_not_an_index(make):
    with pytest.raises(TypeError, match="cannot be used as an index: only a rank-0 View of an integer dtype"):
        operator.index(make())


@pytest.mark.parametrize("conv", [float, int, complex])
@pytest.mark.parametrize("shape", [(2,), (0,), (3, 4)])
def test_more_than_one_element_refuses(conv, shape):
    v = kokkos.array(list(shape), dtype=kokkos.float64)
    with pytest.raises(TypeError, match=r"only a View of one element converts to a Python scalar; .* has \d+ elements"):
        conv(v)


def test_truth():
    assert bool(one(kokkos.float64, 2.0)) is True
    assert bool(one(kokkos.float64, 0.0)) is False
    assert bool(one(kokkos.bool, False)) is False
    # rank >= 1: non-empty along the first dimension, as len() says
    assert bool(kokkos.array([3], dtype=kokkos.int32)) is True
    assert bool(kokkos.array([0, 4], dtype=kokkos.int32)) is False


def test_element_assignment_takes_one_element_views():
    dst = kokkos.array([3], dtype=kokkos.float64)
    dst[0] = one(kokkos.float32, 1.5)
    dst[1] = one(kokkos.int64, 7)
    with pytest.raises(TypeError, match="View element assignment: only a View of one element"):
        dst[2] = kokkos.array([2], dtype=kokkos.float64)
    assert list(dst) == [1.5, 7.0, 0.0]
    # the element converts as a scalar of its dtype would (NumPy truncates into integers)
    ints = kokkos.array([2, 2], dtype=kokkos.int32)
    ints[0, 0] = one(kokkos.float64, 2.75, (1, 1))
    ints[0, 1] = one(kokkos.uint8, 200)
    with pytest.raises(OverflowError):
        ints[1, 0] = one(kokkos.float64, 1e12)
    with pytest.raises(TypeError):
        ints[1, 1] = one(kokkos.complex64, 1 + 1j)
    assert np.asarray(ints).tolist() == [[2, 200], [0, 0]]


def test_released_view_raises():
    r = succeeded(run_scenario("released_views", "scalar_conversions"))
    assert r.stdout.strip() == "ok", r.stdout


def test_refcounts_flat():
    import sys

    v = one(kokkos.float64, 4.0)
    before = sys.getrefcount(v)
    for _ in range(1000):
        float(v), int(v), complex(v), bool(v)
    assert sys.getrefcount(v) == before
