"""Fuzz family pickle: a random View's reduce tuple (View.__reduce_ex__,
src/kokkos/pickling.py), mutated and called as unpickling would: the
metadata tuple's form, dtype, shape, layout, label, memory space, dynamic
flag and traits replaced by other values of every type, the data replaced by
shorter, longer, misaligned, read-only, non-contiguous or non-buffer objects.
Unmutated, it goes through pickle.dumps / loads with every protocol and with
out-of-band buffers.

Oracle: the rebuilt View holds the bytes it was given, in its layout's
order, with the shape, dtype, layout and label of the metadata; metadata
whose element count disagrees with the bytes given is refused (a View over
too few bytes would read past them)."""

import pickle
import random

import numpy as np

import kokkos

from .common import DTYPES, EDGE_INTS, attempt, refused, same_bytes, short, unexpected

FIELDS = ("form", "dtype", "shape", "layout", "label", "space", "dynamic", "traits")
ODD = {
    "form": (0, 2, None, "1", 1.0, -1),
    "dtype": ("float64", "int8", "bogus", 99, None, -1, "complex128", "bool"),
    "shape": ((), (0,), (1,), (2, 2), (10**6,), (-1,), (2**62, 2**62), [2, 2], (2.0,), None, (1,) * 9, (True,)),
    "layout": ("LayoutLeft", "LayoutRight", "LayoutStride", "bogus", 5, None),
    "label": ("x", "", "a\x00b", None, 5, b"x"),
    "space": ("HostSpace", "CudaSpace", "bogus", 0, None),
    "dynamic": (True, False, None, "x", 2),
    "traits": (0, 1, 2, 4, 8, 2**40, -1, None, "Atomic"),
}


def generate(rng):
    dt = rng.choice(DTYPES)
    rank = rng.choice((0, 1, 1, 2, 2, 3))
    case = {
        "dtype": dt.str,
        "shape": [rng.randint(0, 4) for _ in range(rank)],
        "layout": rng.choice(("right", "left")),
        "dynamic": rng.random() < 0.2,
        "sliced": rng.random() < 0.2,
        "protocol": rng.randint(0, 5),
        "label": rng.choice(("", "pickled", "\u00e9")),
        "mutations": [],
        "data": None,
        "seed": rng.getrandbits(32),
    }
    if rng.random() < 0.75:
        for _ in range(rng.choice((1, 1, 2))):
            f = rng.choice(FIELDS)
            case["mutations"].append((f, rng.choice(ODD[f] + (rng.choice(EDGE_INTS),))))
    if rng.random() < 0.3:
        case["data"] = rng.choice(
            ("shorter", "longer", "empty", "misaligned", "readonly", "strided", "str", "none", "int", "view", "list")
        )
    return case


def _kdtype(dt):
    for d in kokkos.dtype:
        if kokkos.convert_dtype(d) is not None and np.dtype(kokkos.convert_dtype(d)) == dt:
            return d
    raise ValueError(dt)


def _source(case):
    dt = np.dtype(case["dtype"])
    shape = case["shape"]
    layout = kokkos.LayoutLeft if case["layout"] == "left" else kokkos.LayoutRight
    cls = kokkos.DynRankView if case["dynamic"] else kokkos.View
    v = cls(shape, _kdtype(dt), layout=layout, label=case["label"])
    a = (np.arange(int(np.prod(shape)) if shape else 1) % 13).astype(dt).reshape(shape)
    v[...] = a
    if case["sliced"] and shape and shape[0] > 1:
        v, a = v[::2], a[::2]
    return v, a


def _data(kind, data):
    raw = memoryview(data).tobytes()
    if kind == "shorter":
        return raw[: max(0, len(raw) - 1 - len(raw) // 3)]
    if kind == "longer":
        return raw + b"\x01" * 9
    if kind == "empty":
        return b""
    if kind == "misaligned":
        return memoryview(bytearray(b"\x00" + raw))[1:]
    if kind == "readonly":
        return memoryview(raw)
    if kind == "strided":
        return memoryview(bytearray(raw * 2))[::2]
    if kind == "view":
        return kokkos.array(np.frombuffer(raw, np.uint8).copy()) if raw else kokkos.View((0,), kokkos.uint8)
    return {"str": "abc", "none": None, "int": 5, "list": [1, 2]}[kind]


def run(case):
    rng = random.Random(case["seed"])
    v, a = _source(case)
    if not case["mutations"] and case["data"] is None:
        return _round_trip(case, v, a, rng)
    fn, args = v.__reduce_ex__(case["protocol"])
    data, meta = args
    meta = list(meta)
    for f, value in case["mutations"]:
        meta[FIELDS.index(f)] = value
    if case["data"] is not None:
        data = _data(case["data"], data)
    got, exc = attempt(lambda: fn(data, tuple(meta)))
    if exc is not None:
        bad = unexpected(exc, also=(RuntimeError,) if _space_mutated(case) else ())
        return ("error", bad) if bad else ("refused", f"{type(exc).__name__}: {str(exc)[:80]}")
    return _judge(case, got, data, meta)


def _space_mutated(case):
    return any(f == "space" for f, _ in case["mutations"])


def _nbytes(data):
    try:
        m = memoryview(data)
    except TypeError:
        return None
    return m.nbytes


def _judge(case, got, data, meta):
    _, dtname, shape, layout, label, _, _, _ = meta
    dt = view_np_dtype(got)
    want_shape = tuple(shape) if isinstance(shape, (tuple, list)) else None
    if tuple(got.shape) != want_shape:
        return "wrong", f"rebuilt shape {tuple(got.shape)}, metadata {shape!r}"
    if any(isinstance(n, bool) for n in want_shape):
        return "laxity", f"a bool extent in the metadata's shape {shape!r} taken as an int"
    n = _nbytes(data)
    need = int(np.prod(want_shape)) * dt.itemsize if want_shape else dt.itemsize
    if n is not None and n != need:
        return "wrong", f"accepted {n} bytes for metadata needing {need} ({dt}, shape {want_shape})"
    if layout in ("LayoutLeft", 1) and got.layout != kokkos.LayoutLeft:
        return "wrong", f"layout {got.layout}, metadata {layout!r}"
    if isinstance(label, str) and got.label != label:
        return "wrong", f"label {got.label!r}, metadata {label!r}"
    if n is None or not got.host_accessible:
        return "ok", "rebuilt"
    raw = memoryview(data).tobytes("A") if not isinstance(data, kokkos.View) else np.asarray(data).tobytes("A")
    order = "F" if got.layout == kokkos.LayoutLeft else "C"  # the metadata's layout, by any of its names
    ref = np.frombuffer(raw, dt).reshape(want_shape, order=order) if need else np.zeros(want_shape, dt)
    if not same_bytes(np.asarray(got), ref):
        return "wrong", f"rebuilt values\n{np.asarray(got)!r}\nfrom the bytes\n{ref!r}"
    return "ok", "rebuilt"


def view_np_dtype(v):
    return np.dtype(kokkos.convert_dtype(v.dtype))


def _round_trip(case, v, a, rng):
    proto = case["protocol"]
    if proto >= 5 and rng.random() < 0.5:
        bufs = []
        blob = pickle.dumps(v, protocol=5, buffer_callback=bufs.append)
        w, exc = attempt(lambda: pickle.loads(blob, buffers=bufs))
    else:
        w, exc = attempt(lambda: pickle.loads(pickle.dumps(v, protocol=proto)))
    if exc is not None:
        return refused(exc) if unexpected(exc) else ("wrong", f"a View's round trip failed: {exc!r}")
    if type(w) is not type(v) or tuple(w.shape) != tuple(v.shape) or w.label != v.label or w.layout != v.layout:
        return "wrong", f"round trip gave {w!r} for {v!r}"
    if not same_bytes(np.asarray(w), a):
        return "wrong", f"round trip values\n{np.asarray(w)!r}\nwant\n{a!r}"
    return "ok", "round trip"


def describe(case):
    return short(case, 500)


NAME = "pickle"
