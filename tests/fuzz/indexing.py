"""Fuzz family index: index keys and stored values. Keys of ints (negative,
out of range, huge), slices with any start, stop and step (0 and huge
included), Ellipsis, None, tuples of these (too long too), lists, arrays,
bools, strings, and __index__ objects that are honest, lie (a new value at
every call) or raise. Values of every kind: Python and NumPy scalars in and
out of the dtype's range, NaN and infinity, complex, strings, None, lists,
arrays and Views of the target's shape or another, and the View itself.

Oracle: NumPy, indexing and assigning on a copy of the same data. Where
NumPy and kokkos differ on purpose (docs/views.md: a list of one int per
dimension is an element index; no fancy or boolean indexing; no
broadcasting in stores; range-checked integer stores; no NaN into integer
Views), the documented behaviour is checked instead."""

import random
import re

import numpy as np

import kokkos

from .common import DTYPES, EDGE_INTS, Index, Injected, attempt, compare_view, same_bytes, short, unexpected

DOCUMENTED = re.compile(
    r"fancy and boolean|shapes differ|out of range|not a finite number|cannot store a complex|"
    r"larger than the maximum|single ellipsis|too many indices|must be ints, slices|cannot store a (str|bytes)"
)


class LyingIndex:
    """A different value at every call."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        self.value = -self.value - 1
        return self.value

    def __repr__(self):
        return f"LyingIndex({self.value!r})"


class RaisingIndex:
    def __index__(self):
        raise Injected("__index__ raises")

    def __repr__(self):
        return "RaisingIndex()"


def _int(rng, n):
    r = rng.random()
    if r < 0.6:
        return rng.randint(-n, n - 1) if n else 0
    if r < 0.75:
        return rng.choice((n, -n - 1, n + 1))
    if r < 0.85:
        return rng.choice(EDGE_INTS)
    if r < 0.9:
        return np.int64(rng.randint(-n, max(n - 1, 0)))
    return Index(rng.randint(-n, max(n - 1, 0)))


def _part(rng, n):
    r = rng.random()
    if r < 0.3:
        return None
    if r < 0.8:
        return rng.randint(-n - 2, n + 2)
    if r < 0.92:
        return rng.choice(EDGE_INTS)
    return rng.choice((Index(1), LyingIndex(1), RaisingIndex(), np.int32(2), 1.0, "1"))


def _item(rng, n, state):
    r = rng.random()
    if r < 0.4:
        return _int(rng, n)
    if r < 0.75:
        step = rng.choice((None, 1, 1, 2, -1, -2, 3, 0, rng.choice(EDGE_INTS), Index(-1), LyingIndex(2)))
        return slice(_part(rng, n), _part(rng, n), step)
    if r < 0.83:
        return Ellipsis
    if r < 0.9:
        return None
    state["odd"] = True
    return rng.choice(
        (LyingIndex(0), RaisingIndex(), True, False, [0, 1], np.array([0]), "a", 1.5, np.bool_(True), (0,), b"x")
    )


def _key(rng, shape):
    r = rng.random()
    state = {"odd": False}
    if r < 0.05:
        return [rng.randint(0, max(n - 1, 0)) for n in shape], state  # documented element index
    count = max(0, len(shape) + rng.choice((-2, -1, 0, 0, 0, 1, 2)))
    items = [_item(rng, shape[i] if i < len(shape) else 1, state) for i in range(count)]
    if len(items) == 1 and rng.random() < 0.5:
        return items[0], state
    return tuple(items), state


def _value(rng, dtype, shape):
    r = rng.random()
    if r < 0.45:
        if dtype.kind == "b":
            return rng.choice((True, False, 0, 1))
        if dtype.kind == "u":
            return rng.randint(0, 200)
        if dtype.kind == "f" or dtype.kind == "c":
            return rng.choice((rng.uniform(-100, 100), float(rng.randint(-9, 9))))
        return rng.randint(-100, 100)
    if r < 0.6:
        return rng.choice(
            (
                2**7,
                2**15,
                -(2**31),
                2**63,
                -1,
                float("nan"),
                float("inf"),
                1.7,
                -0.5,
                1 + 2j,
                np.complex64(1),
                np.int64(300),
                np.uint8(200),
                np.float32(2.5),
                np.float16(1),
                True,
                "3",
                "x",
                None,
                b"1",
            )
        )
    if r < 0.85:
        target = list(shape)
        q = rng.random()
        if q < 0.15 and target:
            target[-1] += 1
        elif q < 0.25:
            target = [1] + target  # NumPy broadcasts this one
        arr = (np.arange(int(np.prod(target)) if target else 1) % 7).reshape(target)
        if rng.random() < 0.5:
            arr = arr.astype(rng.choice(DTYPES))
        if rng.random() < 0.2:
            return arr.tolist()
        if rng.random() < 0.2:
            return kokkos.array(np.ascontiguousarray(arr))
        return arr
    return "self"  # the View itself (or a subview of it) as the source


def generate(rng):
    dtype = rng.choice(DTYPES)
    rank = rng.choice((0, 1, 1, 2, 2, 3, 4))
    shape = [rng.choice((0, 1, 2, 3, 4, 5)) if rng.random() < 0.85 else rng.randint(6, 9) for _ in range(rank)]
    key, state = _key(rng, shape)
    return {
        "dtype": dtype.str,
        "shape": shape,
        "key": key,
        "odd": state["odd"],
        "op": rng.choice(("get", "get", "set")),
        "value_seed": rng.getrandbits(32),
        "wrap": rng.choice(("view", "numpy")),
    }


def _lies(key):
    items = key if isinstance(key, tuple) else (key,)
    for k in items:
        if isinstance(k, LyingIndex):
            return True
        if isinstance(k, slice) and any(isinstance(p, LyingIndex) for p in (k.start, k.stop, k.step)):
            return True
    return False


def run(case):
    rng = random.Random(case["value_seed"])
    dtype = np.dtype(case["dtype"])
    shape, key = case["shape"], case["key"]
    base = (np.arange(int(np.prod(shape)) if shape else 1) % 11).astype(dtype).reshape(shape)
    arr = base.copy()
    if case["wrap"] == "numpy":
        mine = base.copy()
        v = kokkos.asarray(mine)
    else:
        v = kokkos.array(base, copy=True)
    lies = _lies(key)
    np_key = tuple(key) if isinstance(key, list) and len(key) == len(shape) else key  # docs/views.md
    if case["op"] == "get":
        ref, rexc = attempt(lambda: arr[np_key])
        got, exc = attempt(lambda: v[key])
        return _judge_get(got, exc, ref, rexc, lies)
    value = _value(rng, dtype, shape)
    if isinstance(value, str) and value == "self":
        value = v
    ref_value = np.asarray(value) if isinstance(value, kokkos.View) else value
    if ref_value is not None and isinstance(value, kokkos.View):
        ref_value = np.array(ref_value)  # the source copied first
    _, rexc = attempt(lambda: arr.__setitem__(np_key, ref_value))
    _, exc = attempt(lambda: v.__setitem__(key, value))
    now = np.asarray(v) if case["wrap"] == "view" else mine
    if exc is not None:
        bad = unexpected(exc)
        if bad:
            return "error", bad
        if not same_bytes(now, base):
            return "wrong", f"refused ({exc}) but changed the View:\n{now!r}\nbefore\n{base!r}"
        if rexc is not None or lies:
            return "refused", type(exc).__name__
        if DOCUMENTED.search(str(exc)):
            return "refused", f"documented: {str(exc)[:100]}"
        return "divergence", f"NumPy stores it, kokkos: {type(exc).__name__}: {str(exc)[:200]}"
    if rexc is not None:
        return "laxity", f"NumPy refuses ({type(rexc).__name__}: {str(rexc)[:100]}), kokkos stores"
    if lies:
        return "ok", "stored (lying index: not compared)"
    if not same_bytes(now, arr):
        if isinstance(value, bytes):  # a buffer of uint8 to kokkos, a number's text to NumPy
            return "divergence", f"bytes {value!r} stored as its buffer: {now!r}, NumPy {arr!r}"
        return "wrong", f"after v[{key!r}] = {short(value)}:\n{now!r}\nNumPy:\n{arr!r}"
    return "ok", "stored"


def _judge_get(got, exc, ref, rexc, lies):
    if exc is not None:
        bad = unexpected(exc)
        if bad:
            return "error", bad
        if rexc is not None or lies:
            return "refused", type(exc).__name__
        if DOCUMENTED.search(str(exc)):
            return "refused", f"documented: {str(exc)[:100]}"
        return "divergence", f"NumPy indexes it, kokkos: {type(exc).__name__}: {str(exc)[:200]}"
    if rexc is not None:
        return "laxity", f"NumPy refuses ({type(rexc).__name__}: {str(rexc)[:100]}), kokkos indexes"
    if lies:
        return "ok", "indexed (lying index: not compared)"
    if not isinstance(got, kokkos.View):
        if np.ndim(ref) != 0 or not (got == ref or (got != got and ref != ref)):
            return "wrong", f"element {got!r}, NumPy {ref!r}"
        return "ok", "element"
    if np.ndim(ref) == 0 and not isinstance(ref, np.ndarray):
        return "wrong", f"a View of shape {tuple(got.shape)} where NumPy gives the element {ref!r}"
    bad = compare_view(got, np.asarray(ref), "subview")
    return ("wrong", bad) if bad else ("ok", "subview")


def describe(case):
    return short(case, 500)


NAME = "index"
