"""Fuzz family overlap: assignment between Views that share memory. Two
random subviews of one base View (slices of any start and step, reversed,
integer indices), of the same shape, copied one into the other by
`v[a] = v[b]`, `v[a][...] = v[b]`, `kokkos.deep_copy`, `View.deep_copy`, from
a NumPy array over the same memory, between two Views that wrap one NumPy
array, and into a mirror view (which shares a host View's memory).

Oracle: NumPy on a copy, with the source copied first (NumPy's semantics
for overlapping assignment)."""

import random

import numpy as np

import kokkos

from .common import DTYPES, attempt, refused, short

OPS = ("setitem", "ellipsis", "deep_copy", "method", "numpy_src", "deep_copy_numpy", "wrapped_twice", "mirror")


def _axis(rng, n, length):
    """A slice of an extent n picking `length` elements, with a random step."""
    if length == 0:
        k = rng.randint(0, n)
        return slice(k, k)
    step = rng.choice((1, 1, 1, 2, -1, -1, -2, 3))
    if (length - 1) * abs(step) >= n:
        step = 1 if step > 0 else -1
    reach = (length - 1) * abs(step)
    if step > 0:
        start = rng.randint(0, n - 1 - reach)
        stop = start + reach + 1
    else:
        start = rng.randint(reach, n - 1)
        stop = start - reach - 1
        stop = None if stop < 0 else stop
    if rng.random() < 0.2:
        start -= n  # the same place, counted from the end
    if stop is not None and 0 < stop < n and rng.random() < 0.2:
        stop -= n
    if step == 1 and rng.random() < 0.3:
        step = None
    return slice(start, stop, step)


def generate(rng):
    rank = rng.choice((1, 1, 2, 2, 2, 3))
    shape = [rng.randint(1, 6) for _ in range(rank)]
    dst, src = [], []
    for n in shape:
        if rng.random() < 0.12:  # an integer index in both (drops the dimension)
            dst.append(rng.randrange(n))
            src.append(rng.randrange(n))
            continue
        length = rng.randint(0, n) if rng.random() < 0.05 else rng.randint(1, n)
        dst.append(_axis(rng, n, length))
        src.append(_axis(rng, n, length))
    if all(isinstance(k, int) for k in dst):
        dst[-1], src[-1] = slice(dst[-1], dst[-1] + 1), slice(src[-1], src[-1] + 1)
    return {
        "dtype": rng.choice(DTYPES).str,
        "shape": shape,
        "layout": rng.choice(("right", "left")),
        "dst": tuple(dst),
        "src": tuple(src),
        "op": rng.choice(OPS),
        "seed": rng.getrandbits(32),
    }


def _values(rng, shape, dtype):
    n = int(np.prod(shape))
    if dtype.kind == "b":
        raw = [rng.random() < 0.5 for _ in range(n)]
    elif dtype.kind == "u":
        raw = [rng.randint(0, 100) for _ in range(n)]
    else:
        raw = [rng.randint(-50, 50) for _ in range(n)]
    return np.array(raw, dtype=dtype).reshape(shape)


def run(case):
    rng = random.Random(case["seed"])
    dtype = np.dtype(case["dtype"])
    shape, dst, src, op = case["shape"], case["dst"], case["src"], case["op"]
    a = _values(rng, shape, dtype)
    want = a.copy()
    want[dst] = want[src].copy()
    layout = kokkos.LayoutLeft if case["layout"] == "left" else kokkos.LayoutRight
    if op == "wrapped_twice":
        arr = np.asfortranarray(a) if case["layout"] == "left" else a.copy()
        v, w = kokkos.asarray(arr), kokkos.asarray(arr[...])
        out = arr
    else:
        v = kokkos.View(shape, _kdtype(dtype), layout=layout)
        v[...] = a
        w = v
        out = None

    def go():
        if op in ("setitem", "wrapped_twice"):
            v[dst] = w[src]
        elif op == "ellipsis":
            v[dst][...] = w[src]
        elif op == "deep_copy":
            kokkos.deep_copy(v[dst], w[src])
        elif op == "method":
            v[dst].deep_copy(w[src])
        elif op == "numpy_src":
            v[dst] = np.asarray(v)[src]
        elif op == "deep_copy_numpy":
            kokkos.deep_copy(v[dst], np.asarray(v)[src])
        elif op == "mirror":
            m = kokkos.create_mirror_view(v)
            kokkos.deep_copy(m[dst], v[src])

    _, exc = attempt(go)
    if exc is not None:
        return refused(exc, f"refused: {str(exc)[:120]}")
    got = out if out is not None else np.asarray(v)
    if not np.array_equal(got, want):
        return "wrong", f"{op}: base after the copy\n{got!r}\nNumPy (source copied first)\n{want!r}\nbefore\n{a!r}"
    return "ok", op


def _kdtype(dtype):
    for d in kokkos.dtype:
        if kokkos.convert_dtype(d) is not None and np.dtype(kokkos.convert_dtype(d)) == dtype:
            return d
    raise ValueError(dtype)


def describe(case):
    return short(case, 500)


NAME = "overlap"
