"""What the fuzz families share: edge numbers, backing memory for described
arrays, running a call and classifying its exception, comparing a View with a
NumPy array."""

import ctypes

import numpy as np

import kokkos

# Exceptions a refusal may raise (docs/hardening.md: bad input gets a clear
# Python exception naming the function and the value).
REFUSALS = (TypeError, ValueError, BufferError, OverflowError, IndexError, KeyError, MemoryError)

# Numbers at the edges of the C types the core reads them into.
EDGE_INTS = (
    0,
    1,
    2,
    3,
    -1,
    -2,
    2**31 - 1,
    2**31,
    -(2**31),
    2**32,
    2**32 + 1,
    2**62,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) + 1,
    2**64 - 1,
    2**64,
    -(2**63) - 1,
    10**30,
)

# Every dtype a View has, as NumPy dtypes.
DTYPES = tuple(np.dtype(kokkos.convert_dtype(d)) for d in kokkos.dtype if kokkos.convert_dtype(d) is not None)
MAX_BACKED = 1 << 16  # bytes of memory a generated array may need to be backed
MAX_COMPARED = 1 << 16  # elements compared (zero strides make huge arrays of few bytes)


class Injected(Exception):
    """Raised on purpose by a hostile object (an __index__, a property):
    kokkos must let it through."""


class Index:
    """An honest __index__ object (as NumPy integers are)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value

    def __repr__(self):
        return f"Index({self.value!r})"


def edge_int(rng):
    return rng.choice(EDGE_INTS)


def small_or_edge(rng, lo=0, hi=6, p_edge=0.1):
    return edge_int(rng) if rng.random() < p_edge else rng.randint(lo, hi)


def attempt(fn, *args):
    """(fn(*args), None) or (None, the exception it raised)."""
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - every exception is classified by the caller
        return None, e


def unexpected(exc, also=()):
    """None when exc is an acceptable refusal, else a text naming it."""
    if isinstance(exc, (Injected,) + tuple(also)):
        return None
    if type(exc) is RuntimeError and "is not enabled in the installed Kokkos" in str(exc):
        return None  # a memory space this build lacks (docs/exchange.md)
    if isinstance(exc, SystemError) or not isinstance(exc, REFUSALS):
        return f"{type(exc).__name__}: {str(exc)[:300]}"
    if not str(exc):
        return f"{type(exc).__name__} without a message"
    return None


def refused(exc, detail=""):
    """The kind of a kokkos refusal where a refusal is right."""
    bad = unexpected(exc)
    return ("error", bad) if bad else ("refused", detail or type(exc).__name__)


def span(shape, strides):
    """(lo, hi): the byte offsets of the first and last element a strided
    array touches, relative to its first element; None when it is empty."""
    if any(n == 0 for n in shape):
        return None
    lo = hi = 0
    for n, s in zip(shape, strides, strict=True):
        off = (n - 1) * s
        lo += min(0, off)
        hi += max(0, off)
    return lo, hi


class Backing:
    """Host memory for a described array: random bytes, aligned to 16 bytes
    plus `misalign`, big enough for [lo, hi + itemsize)."""

    def __init__(self, rng, lo, hi, itemsize, misalign=0):
        size = hi - lo + itemsize + 32
        self.buf = np.frombuffer(rng.randbytes(size), np.uint8).copy()
        base = self.buf.ctypes.data
        start = (base + 15) // 16 * 16 + misalign
        self.first = start - lo  # address of element 0
        self.lo, self.hi = start, start + (hi - lo) + itemsize


def c_contiguous_strides(shape, itemsize):
    strides, acc = [], itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return list(reversed(strides))


def numpy_over(address, shape, strides, dtype, readonly=False):
    """A NumPy array over raw memory (the oracle's view of a description)."""
    lohi = span(shape, strides)
    if lohi is None:
        return np.ndarray(shape, dtype, buffer=np.empty(0, np.uint8), strides=[0] * len(shape))
    lo, hi = lohi
    n = hi - lo + dtype.itemsize
    raw = (ctypes.c_char * n).from_address(address + lo)
    base = np.frombuffer(raw, np.uint8)
    a = np.ndarray(shape, dtype, buffer=base, offset=-lo, strides=strides)
    if readonly:
        a.flags.writeable = False
    return a


def view_dtype(v):
    return np.dtype(kokkos.convert_dtype(v.dtype))


def same_bytes(a, b):
    """Equal element bytes (NaNs and bool bit patterns compare as stored)."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def compare_view(v, ref, what, values=True, strict=False):
    """None when View v describes what NumPy array ref does (shape, dtype,
    byte strides of the extents above 1, or all of them when strict; the
    elements when values); else the difference."""
    shape = tuple(v.shape)
    if shape != ref.shape:
        return f"{what}: shape {shape}, NumPy {ref.shape}"
    if view_dtype(v) != ref.dtype:
        return f"{what}: dtype {view_dtype(v)}, NumPy {ref.dtype}"
    if strict or ref.size > 1:
        for d, (n, a, b) in enumerate(zip(shape, v.strides, ref.strides, strict=True)):
            if (strict or n > 1) and a != b:
                return f"{what}: strides {tuple(v.strides)}, NumPy {ref.strides} (dimension {d})"
    if values and 0 < ref.size <= MAX_COMPARED:
        try:
            host = np.asarray(v)
        except kokkos.HostAccessError:  # device memory (a GPU machine): NumPy cannot read it
            return None
        if not same_bytes(host, ref):
            return f"{what}: values differ from NumPy's:\n{host!r}\nNumPy:\n{ref!r}"
    return None


def short(x, n=200):
    r = repr(x)
    return r if len(r) <= n else r[: n - 3] + "..."
