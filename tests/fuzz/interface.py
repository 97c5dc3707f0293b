"""Fuzz families array_interface and cuda_array_interface: interface dicts
with every entry free (typestr, shape, strides, data, version, descr, mask,
stream), valid and invalid, over backed host memory where the description is
small enough, else over a few bytes that must never be read.

Oracle for __array_interface__: numpy.asarray of the same object; kokkos
must accept what NumPy accepts (or refuse for a documented reason), describe
the same array, read the same elements, write where NumPy's array sees it,
and index like NumPy (the index probe multiplies the largest index by its
stride, also on empty arrays). An accepted typestr that NumPy refuses or
whose size has a leading zero is wrong (the interface's grammar).

__cuda_array_interface__ on a machine without CUDA: every input must be a
clean refusal; with CUDA, an accepted one must describe what it was given."""

import re

import numpy as np

import kokkos

from .common import (
    DTYPES,
    MAX_BACKED,
    Backing,
    Injected,
    attempt,
    compare_view,
    edge_int,
    refused,
    short,
    span,
    unexpected,
)

HAS_CUDA = "CudaSpace" in kokkos.enabled_memory_spaces() if hasattr(kokkos, "enabled_memory_spaces") else False
OTHER_TYPESTRS = ("<f2", ">f8", ">i4", "|S4", "|O", "|V8", "<M8[s]", "<U2", "<d", "f8", "|f8", "=i4", "<b1", "<?")
BROKEN_TYPESTRS = (
    "<f8\x00junk",
    "<f08",
    "<f008",
    "<i04",
    "<f8 ",
    " <f8",
    "<f+8",
    "<f-8",
    "<f8\n",
    "<<f8",
    "<f\u0668",
    "<f",
    "<",
    "",
    "<f80000000000000000000008",
    "<f9223372036854775808",
    "<c016",
    "|b01",
    "<i4\x00",
)
# Refusals of what NumPy accepts that docs/exchange.md explains.
DOCUMENTED = re.compile(
    r"not supported by Kokkos Views|not a multiple of|larger than the maximum|masked|"
    r"native byte order|cannot be Views|\['version'\] must be an int|is not an address|would span more than"
)


def family(name):
    return AI if name == "array_interface" else CAI


def _extent(rng):
    r = rng.random()
    if r < 0.08:
        return edge_int(rng)
    if r < 0.12:
        return rng.choice((True, False, 2.0, "3", None, np.int64(2), np.uint8(3)))
    if r < 0.25:
        return 0
    return rng.randint(1, 5)


def _strides(rng, shape, itemsize):
    r = rng.random()
    if r < 0.3:
        return None
    out = []
    for _ in shape:
        q = rng.random()
        if q < 0.1:
            out.append(edge_int(rng))
        elif q < 0.15:
            out.append(rng.choice((itemsize + 1, 1, 8.0, None, -itemsize * 2**60)))
        else:
            out.append(itemsize * rng.randint(-6, 6))
    if rng.random() < 0.05:
        out.append(itemsize)  # one stride too many
    return tuple(out)


def generate(rng, cuda=False):
    dt = rng.choice(DTYPES)
    typestr = dt.str
    r = rng.random()
    if r < 0.12:
        typestr = rng.choice(BROKEN_TYPESTRS)
    elif r < 0.2:
        typestr = rng.choice(OTHER_TYPESTRS)
    rank = rng.choice((0, 1, 1, 2, 2, 2, 3, 4, 8, 9))
    shape = [_extent(rng) for _ in range(rank)]
    strides = _strides(rng, shape, dt.itemsize)
    case = {"typestr": typestr, "itemsize": dt.itemsize, "shape": shape, "strides": strides}
    case["version"] = 3 if rng.random() < 0.85 else rng.choice((None, 0, 1, 2, 4, "3", 3.0, -1, 2**70))
    case["readonly"] = rng.choice((False, True, False, 0, 1)) if rng.random() < 0.95 else rng.choice((None, "x"))
    case["data_kind"] = rng.choices(("backed", "null", "edge", "misaligned", "bad"), (80, 6, 5, 5, 4))[0]
    case["data_edge"] = edge_int(rng)
    case["misalign"] = rng.randint(1, 7)
    case["extra"] = rng.choice((None,) * 12 + ("descr", "descr_bad", "mask", "mask_none", "list_shape", "not_dict"))
    case["raises"] = rng.random() < 0.02
    case["stream"] = rng.choice((None, 1, 2, 0, -1, True, 2**64, "s")) if cuda else None
    case["op_seed"] = rng.getrandbits(32)
    return case


def _ints(xs):
    return all(type(x) is int for x in xs)


def build(case, rng_for_data):
    """(producer dict, Backing or None): the dict the producer will hand out."""
    shape, strides, itemsize = case["shape"], case["strides"], case["itemsize"]
    try:  # the size the typestr says, which a reader will use
        itemsize = max(itemsize, np.dtype(case["typestr"]).itemsize)
    except Exception:  # noqa: BLE001
        itemsize = max(itemsize, 16)
    backing = None
    addr = 0
    if _ints(shape) and (strides is None or (_ints(strides) and len(strides) == len(shape))):
        ok_shape = all(n >= 0 for n in shape)
        st = strides if strides is not None else None
        if ok_shape and st is None:
            from .common import c_contiguous_strides

            st = c_contiguous_strides(shape, itemsize)
        lohi = span(shape, st) if ok_shape else None
        if lohi is not None and lohi[1] - lohi[0] + itemsize <= MAX_BACKED:
            backing = Backing(rng_for_data, lohi[0], lohi[1], itemsize)
            addr = backing.first
    kind = case["data_kind"]
    if backing is None and kind == "backed":
        # a description too big (or malformed) to back: an address that
        # must never be read (a few real bytes, so a wrong read is seen)
        backing = Backing(rng_for_data, 0, 0, 16)
        addr = backing.first
        backing.unbacked = True
    if kind == "null":
        addr = 0
    elif kind == "edge":
        addr = case["data_edge"]
    if kind in ("null", "edge") and backing is not None:
        backing.unbacked = True
    elif kind == "misaligned" and backing is not None:
        addr += case["misalign"]
        backing.misaligned = True
    data = (addr, case["readonly"])
    if kind == "bad":
        data = rng_for_data.choice(([addr, False], (addr,), (addr, False, 1), None, addr, (float(addr), False)))
    d = {"shape": tuple(shape), "typestr": case["typestr"], "data": data}
    if case["version"] is not None:
        d["version"] = case["version"]
    if strides is not None:
        d["strides"] = strides
    extra = case["extra"]
    if extra == "descr":
        d["descr"] = [("", case["typestr"])]
    elif extra == "descr_bad":
        d["descr"] = [("x", "<i4"), ("y", 7)]
    elif extra == "mask":
        d["mask"] = object()
    elif extra == "mask_none":
        d["mask"] = None
    elif extra == "list_shape":
        d["shape"] = list(shape)
    if case["stream"] is not None:
        d["stream"] = case["stream"]
    return d, backing


class Producer:
    def __init__(self, d, backing, attr, raises):
        self._d, self._backing, self._raises = d, backing, raises
        self._attr = attr

    def __getattr__(self, name):
        if name == self._attr:
            if self._raises:
                raise Injected("the producer's interface property raises")
            return self._d
        raise AttributeError(name)


def _numpy_ref(obj):
    ref, exc = attempt(lambda: np.asarray(obj))
    if ref is not None and ref.dtype == object and ref.shape == ():
        return None, TypeError("NumPy ignored the interface")  # NumPy took obj as a scalar
    return ref, exc


def _typestr_invalid(ts):
    """Why kokkos must refuse this typestr (None when it need not)."""
    if not isinstance(ts, str):
        return None
    try:
        np.dtype(ts)
    except Exception:  # noqa: BLE001
        return "NumPy refuses this typestr"
    if re.search(r"[A-Za-z?]0", ts):
        return "its size has a leading zero"
    return None


def _index_probe(v, ref, rng):
    """Indexes at the largest and smallest index of each non-empty extent,
    and a random slice; the subviews must match NumPy's."""
    for d, n in enumerate(ref.shape):
        if n == 0:
            continue
        for i in (n - 1, -n, rng.randrange(n)):
            key = (slice(None),) * d + (i,)
            r = ref[key]
            got = v[key]
            if np.ndim(r) == 0:
                if got != r and not (r != r):  # NaN aside
                    return f"v[{key}] = {got!r}, NumPy {r!r}"
                continue
            bad = compare_view(got, r, f"v[{key}]", values=r.size > 0 and ref.size > 0)
            if bad:
                return bad
        step = rng.choice((1, 2, -1, -3, n + 1))
        key = (slice(None),) * d + (slice(rng.randint(-n, n), None, step),)
        bad = compare_view(v[key], ref[key], f"v[{key}]", values=ref.size > 0)
        if bad:
            return bad
    return None


def run_interface(case, cuda):
    import random

    rng = random.Random(case["op_seed"])
    attr = "__cuda_array_interface__" if cuda else "__array_interface__"
    d, backing = build(case, rng)
    obj = Producer(d, backing, attr, case["raises"])
    got, exc = attempt(lambda: kokkos.asarray(obj))
    if cuda:
        return _check_cai(case, d, got, exc, backing)
    ref, ref_exc = _numpy_ref(obj)
    if exc is not None:
        bad = unexpected(exc)
        if bad:
            return "error", bad
        if ref is None:
            return "refused", type(exc).__name__
        if DOCUMENTED.search(str(exc)) or case["typestr"] in OTHER_TYPESTRS:
            return "refused", f"documented: {str(exc)[:120]}"
        return "divergence", f"NumPy accepts, kokkos: {type(exc).__name__}: {str(exc)[:200]}"
    why = _typestr_invalid(d["typestr"])
    if why:
        return "wrong", f"accepted typestr {d['typestr']!r} ({why}) as {got.dtype}"
    if ref is None:
        return "laxity", f"NumPy refuses ({type(ref_exc).__name__}: {str(ref_exc)[:120]}), kokkos accepts"
    unbacked = backing is None or getattr(backing, "unbacked", False)
    readable = ref.size > 0 and not unbacked
    bad = compare_view(got, ref, "asarray", values=readable, strict=ref.size > 0)
    if bad:
        return "wrong", bad
    if ref.size and bool(got.readonly) != (not ref.flags.writeable):
        return "wrong", f"read-only {got.readonly}, NumPy writeable {ref.flags.writeable}"
    if ref.size and unbacked:
        return "ok", "accepted (unbacked: not read)"
    bad = _index_probe(got, ref, rng)
    if bad:
        return "wrong", bad
    if readable and not got.readonly and ref.ndim:
        idx = tuple(rng.randrange(n) for n in ref.shape)
        value = ref.dtype.type(rng.randint(0, 100))
        got[idx] = value
        if ref[idx] != value:
            return "wrong", f"v[{idx}] = {value!r} left NumPy's element at {ref[idx]!r}"
    return "ok", "accepted"


def _check_cai(case, d, got, exc, backing):
    if exc is not None:
        return refused(exc)
    if not HAS_CUDA:
        return "wrong", f"accepted a __cuda_array_interface__ without CUDA: {got!r}"
    return "ok", "accepted"


def describe(case):
    return short({k: v for k, v in case.items() if k != "op_seed"}, 600) + f" op_seed={case['op_seed']}"


class _Family:
    def __init__(self, name, cuda):
        self.NAME, self.cuda = name, cuda

    def generate(self, rng):
        return generate(rng, self.cuda)

    def run(self, case):
        return run_interface(case, self.cuda)

    describe = staticmethod(describe)


AI = _Family("array_interface", False)
CAI = _Family("cuda_array_interface", True)
