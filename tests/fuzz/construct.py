"""Fuzz family construct: the constructors' arguments. kokkos.View(shape,
dtype, label=, space=, layout=, trait=, initialize=), kokkos.array (a label,
a shape or data first; shape= and dtype= beside data), kokkos.asarray(obj,
dtype=, space=, layout=, copy=, label=) and kokkos.from_dlpack(x, device=,
copy=, label=), with odd shapes (negative, huge, overflowing, bool, float,
__index__ objects, rank 9), dtypes, layouts, spaces, traits and labels (NUL,
a megabyte, not a str), and data of every dtype, order and stride.

Oracle: NumPy (numpy.zeros for a shape, numpy.asarray / from_dlpack for
data); a new View is zero-filled unless initialize is false, has the shape,
dtype, layout and label asked for; data given with a shape that disagrees
with it is refused (issue 50)."""

import random
import re

import numpy as np

import kokkos

from .common import DTYPES, EDGE_INTS, Index, attempt, same_bytes, short, unexpected, view_dtype

KDTYPES = [d for d in kokkos.dtype if kokkos.convert_dtype(d) is not None]
SPACES = [kokkos.HostSpace, "HostSpace", None] + [s for s in kokkos.memory_space if s is not kokkos.HostSpace][:3]
LAYOUTS = (kokkos.LayoutRight, kokkos.LayoutLeft, kokkos.LayoutStride, "LayoutLeft", None, 0, 1, 7, "bogus", 1.5)
TRAITS = (None, kokkos.Managed, kokkos.Unmanaged, kokkos.RandomAccess, kokkos.Atomic, 0, 3, 2**40, -1, "Atomic", "x")
LABELS = ("", "a", "lbl\x00x", "x" * (1 << 16), None, 7, b"b", "\u00e9\U0001f600")
DOCUMENTED = re.compile(
    r"this Kokkos has no|not available|is not enabled|Unmanaged|would need more than|needs a copy|"
    r"cannot be Views|not supported|larger than the maximum"
)


def _extent(rng):
    r = rng.random()
    if r < 0.75:
        return rng.randint(0, 5)
    if r < 0.88:
        return rng.choice(EDGE_INTS)
    return rng.choice((True, 2.0, "3", None, np.int64(3), np.uint8(2), Index(2), Index(-1), Index(2**70)))


def _shape(rng):
    rank = rng.choice((0, 1, 1, 2, 2, 3, 4, 8, 9))
    shape = [_extent(rng) if rank < 8 or rng.random() < 0.2 else rng.randint(0, 3) for _ in range(rank)]
    r = rng.random()
    if r < 0.1:
        return shape  # a list
    if r < 0.14 and rank == 1:
        return shape[0]  # an int
    if r < 0.16:
        return np.array([x if isinstance(x, int) and 0 <= x < 2**62 else 1 for x in shape], dtype=np.int64)
    return tuple(shape)


def _data(rng):
    dt = rng.choice(DTYPES)
    rank = rng.choice((0, 1, 2, 3))
    shape = [rng.randint(0, 4) for _ in range(rank)]
    a = (np.arange(int(np.prod(shape)) if shape else 1) % 9).astype(dt).reshape(shape)
    r = rng.random()
    if r < 0.15 and rank:
        a = a[(slice(None, None, -1),) * rank]
    elif r < 0.25 and rank >= 2:
        a = a.T
    elif r < 0.3:
        a = np.asfortranarray(a)
    elif r < 0.35:
        a = a.astype(a.dtype.newbyteorder())
    elif r < 0.4:
        a.flags.writeable = False
    q = rng.random()
    if q < 0.1:
        return a.tolist()
    if q < 0.15:
        return a.tobytes()
    return a


def generate(rng):
    kind = rng.choice(("View", "View", "array_shape", "array_data", "asarray", "from_dlpack"))
    case = {"kind": kind, "seed": rng.getrandbits(32)}
    case["dtype"] = rng.choice(KDTYPES) if rng.random() < 0.8 else rng.choice(("float64", "f4", "bogus", 99, None))
    case["layout"] = rng.choice(LAYOUTS) if rng.random() < 0.4 else None
    case["space"] = rng.choice(SPACES) if rng.random() < 0.3 else None
    case["trait"] = rng.choice(TRAITS) if rng.random() < 0.3 else None
    case["label"] = rng.choice(LABELS) if rng.random() < 0.4 else None
    case["initialize"] = rng.choice((True, False, None, 0, "x")) if rng.random() < 0.3 else True
    case["shape"] = _shape(rng)
    case["copy"] = rng.choice((None, True, False))
    case["positional"] = rng.random() < 0.5
    return case


def _kwargs(case, names):
    return {n: case[n] for n in names if case[n] is not None}


def _shape_tuple(shape):
    """The extents a shape argument means by NumPy's reading, or None."""
    if hasattr(shape, "__index__") and not isinstance(shape, (bool, np.bool_, np.ndarray)):
        shape = (shape,)
    try:
        items = list(shape)
    except TypeError:
        return None
    out = []
    for x in items:
        if isinstance(x, (bool, np.bool_)) or not hasattr(x, "__index__"):
            return None
        try:
            out.append(x.__index__())
        except Exception:  # noqa: BLE001
            return None
    return tuple(out)


def _must_refuse_shape(shape, itemsize):
    if shape is None:
        return "not a shape of ints"
    if len(shape) > 8:
        return "rank"
    if any(n < 0 for n in shape):
        return "negative"
    prod = 1
    for n in shape:
        prod *= max(n, 1)
    if prod * itemsize > 2**63 - 1:
        return "overflow"
    return None


def run(case):
    rng = random.Random(case["seed"])
    return {
        "View": run_view,
        "array_shape": run_view,
        "array_data": run_array_data,
        "asarray": run_asarray,
        "from_dlpack": run_from_dlpack,
    }[case["kind"]](case, rng)


MAX_ALLOCATION = 1 << 26  # bytes: a valid View bigger than this is not made (a shared machine)


def run_view(case, rng):
    if isinstance(case["shape"], str):
        return "ok", "not compared: a str first is the label (the original's View(label, shape))"
    if case["kind"] == "array_shape" and isinstance(case["shape"], np.ndarray):
        case["shape"] = case["shape"].tolist()  # an array first is data to kokkos.array, not a shape
    if case["kind"] == "array_shape" and isinstance(case["shape"], np.generic):
        # so is a NumPy scalar (a rank-0 array): its value goes in a list, as a shape
        x = case["shape"]
        case["shape"] = [int(x) if isinstance(x, np.integer) else x]
    shape = _shape_tuple(case["shape"])
    if shape is not None and all(n >= 0 for n in shape) and len(shape) <= 8:
        size = int(np.prod([max(n, 1) for n in shape], dtype=object)) * 16
        if MAX_ALLOCATION < size <= 2**62:
            return "ok", f"not run: a valid allocation of up to {size} bytes"
    kw = _kwargs(case, ("label", "space", "layout", "trait"))
    if case["kind"] == "View":
        args = (case["shape"],) + ((case["dtype"],) if case["dtype"] is not None else ())
        kw["initialize"] = case["initialize"]
        got, exc = attempt(lambda: kokkos.View(*args, **kw))
    else:
        if case["dtype"] is not None:
            kw["dtype"] = case["dtype"]
        got, exc = attempt(lambda: kokkos.array(case["shape"], **kw))
    try:
        itemsize = np.dtype(
            kokkos.convert_dtype(case["dtype"] if case["dtype"] is not None else kokkos.float64)
        ).itemsize
    except Exception:  # noqa: BLE001
        itemsize = 1
    why = _must_refuse_shape(shape, itemsize)
    if exc is not None:
        bad = unexpected(exc)
        if bad:
            return "error", bad
        if why or isinstance(exc, MemoryError) or DOCUMENTED.search(str(exc)):
            return "refused", why or type(exc).__name__
        return "refused", f"{type(exc).__name__}: {str(exc)[:100]}"  # another argument was bad
    if why:
        return "wrong", f"accepted shape {case['shape']!r} ({why}): {tuple(got.shape)}"
    if tuple(got.shape) != shape:
        return "wrong", f"shape {tuple(got.shape)}, asked {shape}"
    if isinstance(case["label"], str) and got.label != case["label"]:
        return "wrong", f"label {got.label!r}, asked {case['label']!r}"
    if case["layout"] in (kokkos.LayoutLeft, "LayoutLeft", 1) and got.layout != kokkos.LayoutLeft:
        return "wrong", f"layout {got.layout}, asked {case['layout']!r}"
    if got.host_accessible and (case["initialize"] or case["kind"] != "View") and got.size:
        if np.count_nonzero(np.asarray(got)):
            return "wrong", "a new View is not zero-filled"
    return "ok", "made"


def run_array_data(case, rng):
    data = _data(rng)
    ref = np.asarray(data) if not isinstance(data, bytes) else np.frombuffer(data, np.uint8)
    r = rng.random()
    shape = ref.shape if r < 0.4 else _shape(rng)
    kw = {} if case["dtype"] is None or rng.random() < 0.5 else {"dtype": case["dtype"]}
    if case["positional"]:
        got, exc = attempt(lambda: kokkos.array(data, shape, **kw))
    else:
        got, exc = attempt(lambda: kokkos.array(data, shape=shape, **kw))
    want = ref.shape if shape is None else _shape_tuple(shape)  # shape=None: not given (the default)
    if exc is not None:
        bad = unexpected(exc)
        if bad:
            return "error", bad
        if want == ref.shape and not kw and not DOCUMENTED.search(str(exc)):
            return "divergence", f"data of shape {ref.shape} with that shape: {type(exc).__name__}: {str(exc)[:160]}"
        return "refused", type(exc).__name__
    if tuple(got.shape) != want or want != ref.shape:
        return "wrong", (
            f"kokkos.array(data of shape {ref.shape}, shape={shape!r}) accepted, View shape {tuple(got.shape)}"
        )
    if not kw:
        bad = _same_values(got, ref)
        if bad and isinstance(data, list):  # a list first is a shape in the original's API
            return "divergence", f"kokkos.array(a list of data, shape=...) ignored the data: {bad[:200]}"
        if bad:
            return "wrong", bad
    return "ok", "made"


def _same_values(got, ref):
    if not got.host_accessible:
        return None
    mine = np.asarray(got)
    if mine.shape != ref.shape:
        return f"shape {mine.shape}, NumPy {ref.shape}"
    if not same_bytes(mine, ref.astype(mine.dtype)):
        return f"values differ:\n{mine!r}\nNumPy:\n{ref!r}"
    return None


def run_asarray(case, rng):
    data = _data(rng)
    kw = _kwargs(case, ("space", "layout", "label", "copy"))
    if case["dtype"] is not None and rng.random() < 0.5:
        kw["dtype"] = case["dtype"]
    got, exc = attempt(lambda: kokkos.asarray(data, **kw))
    npdt = None
    if "dtype" in kw:
        npdt, _ = attempt(lambda: np.dtype(kokkos.convert_dtype(kw["dtype"])))
    ref, rexc = attempt(lambda: np.asarray(data if not isinstance(data, bytes) else np.frombuffer(data, np.uint8)))
    if exc is not None:
        bad = unexpected(exc)
        return ("error", bad) if bad else ("refused", type(exc).__name__)
    if ref is None:
        return "laxity", f"NumPy refuses ({rexc}), kokkos accepts"
    if npdt is not None:
        if view_dtype(got) != npdt:
            return "wrong", f"dtype {view_dtype(got)}, asked {npdt}"
        ref = ref.astype(npdt)
    bad = _same_values(got, ref)
    return ("wrong", bad) if bad else ("ok", "made")


def run_from_dlpack(case, rng):
    data = _data(rng)
    if not isinstance(data, np.ndarray):
        data = np.asarray(data if not isinstance(data, bytes) else np.frombuffer(data, np.uint8))
    kw = _kwargs(case, ("label", "copy"))
    if case["space"] is not None and rng.random() < 0.5:
        kw["device"] = case["space"] if rng.random() < 0.7 else rng.choice(((1, 0), (2, 0), (99, 0), (1,), "x"))
    got, exc = attempt(lambda: kokkos.from_dlpack(data, **kw))
    ref, rexc = attempt(lambda: np.from_dlpack(data))
    if exc is not None:
        bad = unexpected(exc)
        if bad:
            return "error", bad
        if ref is not None and not kw and not DOCUMENTED.search(str(exc)):
            return "divergence", f"NumPy takes it, kokkos: {type(exc).__name__}: {str(exc)[:160]}"
        return "refused", type(exc).__name__
    if ref is None:
        return "laxity", f"NumPy refuses ({type(rexc).__name__}: {str(rexc)[:100]}), kokkos takes it"
    bad = _same_values(got, ref)
    return ("wrong", bad) if bad else ("ok", "made")


def describe(case):
    c = dict(case)
    if isinstance(c.get("label"), str) and len(c["label"]) > 40:
        c["label"] = f"<str of {len(c['label'])} chars>"
    return short(c, 500)


NAME = "construct"
