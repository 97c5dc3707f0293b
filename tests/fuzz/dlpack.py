"""Fuzz families dlpack and exchange_api: DLPack tensors built with ctypes from
the specification's struct layout with every field free (data pointer,
device, ndim, dtype code/bits/lanes, shape and strides pointers (NULL too),
byte_offset, flags, version, manager_ctx, deleter), handed over as legacy
("dltensor") and versioned ("dltensor_versioned") capsules, and through the
DLPack C exchange table (__dlpack_c_exchange_api__: versions, prev_api chains
with cycles, NULL functions, functions that fail).

Oracle: the specification's rules (`must_refuse` below): a tensor they allow
must become a View that describes it exactly (shape, byte strides, dtype,
read-only flag, the elements NumPy reads from the same memory); one they
forbid must be refused; the deleter runs exactly once once the consumer took
the tensor (never when the capsule was not one). numpy.from_dlpack of an
identical capsule is asked too where the tensor is well formed."""

import ctypes
import gc
import random

import numpy as np

import dlpack_abi
import kokkos
from dlpack_abi import READ_ONLY, TYPE_CODES, DLDataType, DLDevice, capsule_new

from .common import (
    DTYPES,
    MAX_BACKED,
    Backing,
    attempt,
    compare_view,
    edge_int,
    numpy_over,
    short,
    span,
    unexpected,
)

INT64_MAX = 2**63 - 1
HAS_CUDA = "CudaSpace" in kokkos.enabled_memory_spaces()
SUPPORTED = {(TYPE_CODES[d.kind], d.itemsize * 8): d for d in DTYPES}


# the structs with raw addresses: any shape, strides or deleter, NULL or odd
DLManagedTensor = dlpack_abi.raw(dlpack_abi.DLManagedTensor)
DLManagedTensorVersioned = dlpack_abi.raw(dlpack_abi.DLManagedTensorVersioned)


class ExchangeAPI(ctypes.Structure):
    pass


ExchangeAPI._fields_ = [
    ("major", ctypes.c_uint32),
    ("minor", ctypes.c_uint32),
    ("prev_api", ctypes.POINTER(ExchangeAPI)),
    ("managed_tensor_allocator", ctypes.c_void_p),
    ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
    ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
    ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
    ("current_work_stream", ctypes.c_void_p),
]

DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


_capsule_name_of = ctypes.pythonapi.PyCapsule_GetName
_capsule_name_of.restype = ctypes.c_char_p
_capsule_name_of.argtypes = [ctypes.py_object]


def _capsule_name(cap):
    return _capsule_name_of(cap) or b""


def family(name):
    return CAPSULES if name == "dlpack" else EXCHANGE


def _i64(x):
    return ((x + 2**63) % 2**64) - 2**63


# ---- generating one tensor's fields ------------------------------------------------------


def gen_tensor(rng, versioned=None):
    dt = rng.choice(DTYPES)
    f = {"versioned": rng.random() < 0.6 if versioned is None else versioned}
    f["major"] = 1 if rng.random() < 0.9 else rng.choice((0, 2, 255, 2**32 - 1))
    f["minor"] = rng.choice((0, 1, 2, 3, 4, 2**32 - 1))
    f["flags"] = rng.choice((0, 0, 0, READ_ONLY, 2, 3, 4, rng.getrandbits(64)))
    f["deleter"] = rng.random() < 0.9
    f["manager_ctx"] = rng.choice((0, 1, rng.getrandbits(64)))
    if rng.random() < 0.88:
        f["device"] = (1, 0 if rng.random() < 0.9 else rng.choice((1, -1, 2**31 - 1, -(2**31))))
    else:
        f["device"] = (rng.choice((0, 2, 3, 4, 10, 11, 13, 14, -1, 99, 2**31 - 1, -(2**31))), rng.choice((0, 1, -1)))
    r = rng.random()
    f["ndim"] = rng.choice((0, 1, 1, 2, 2, 3, 4)) if r < 0.9 else rng.choice((8, 9, -1, 2**31 - 1, -(2**31), 64))
    if rng.random() < 0.88:
        f["dtype"] = (TYPE_CODES[dt.kind], dt.itemsize * 8, 1)
    else:
        f["dtype"] = (
            rng.choice((0, 1, 2, 3, 4, 5, 6, 7, 17, 18, 255)),
            rng.choice((0, 1, 7, 8, 16, 32, 64, 128, 255)),
            rng.choice((1, 1, 0, 2, 4, 65535)),
        )
    n = max(0, min(f["ndim"], 16))
    f["shape"] = None if (n and rng.random() < 0.06) else [_extent(rng) for _ in range(n)]
    f["strides"] = None if rng.random() < 0.25 else [_stride(rng) for _ in range(n)]
    f["data_kind"] = rng.choices(("backed", "null", "edge", "misaligned"), (86, 5, 5, 4))[0]
    f["data_edge"] = edge_int(rng) % 2**64
    f["offset_kind"] = rng.choices(("zero", "items", "edge", "wrap_zero", "wrap"), (70, 12, 6, 6, 6))[0]
    f["offset_items"] = rng.randint(1, 4)
    f["offset_edge"] = edge_int(rng) % 2**64
    f["name"] = rng.choices(("right", "used", "other", "swapped"), (96, 2, 1, 1))[0]
    f["seed"] = rng.getrandbits(32)
    return f


def _extent(rng):
    r = rng.random()
    if r < 0.06:
        return _i64(edge_int(rng))
    if r < 0.2:
        return 0
    return rng.randint(1, 5)


def _stride(rng):
    r = rng.random()
    if r < 0.1:
        return _i64(edge_int(rng))
    return rng.randint(-5, 5)


def _itemsize(f):
    code, bits, lanes = f["dtype"]
    d = SUPPORTED.get((code, bits)) if lanes == 1 else None
    return d.itemsize if d is not None else max(1, bits // 8)


# ---- the specification's rules -------------------------------------------------------------


def elem_strides(f):
    """The strides in elements the tensor means (given, or compact row-major)."""
    shape = f["shape"]
    if f["strides"] is not None:
        return list(f["strides"])
    if shape is None:
        return None
    cs, acc = [], 1
    for n in reversed(shape):
        cs.append(acc)
        acc *= max(n, 1)
    return list(reversed(cs))


def must_refuse(f, address):
    """Why the specification (and issue 50's rules) forbid this tensor, or None.
    address = data + byte_offset as the consumer would compute it (exactly)."""
    code, bits, lanes = f["dtype"]
    if f["versioned"] and f["major"] != 1:
        return "major version"
    if lanes != 1 or (code, bits) not in SUPPORTED:
        return "dtype"
    if not 0 <= f["ndim"] <= 8:
        return "ndim"
    if f["device"][0] != 1 and not HAS_CUDA:
        return "device"
    if f["ndim"] and f["shape"] is None:
        return "shape NULL"
    shape = f["shape"][: f["ndim"]]
    if any(n < 0 for n in shape):
        return "negative extent"
    itemsize = SUPPORTED[(code, bits)].itemsize
    nonzero = 1
    for n in shape:
        nonzero *= max(n, 1)
    if nonzero * itemsize > INT64_MAX:
        return "size overflows"
    strides = elem_strides(f)[: f["ndim"]]
    if any(abs(s * itemsize) > INT64_MAX for s in strides):
        return "stride overflows"
    empty = any(n == 0 for n in shape)
    if not empty and sum((n - 1) * abs(s) for n, s in zip(shape, strides, strict=True)) * itemsize > INT64_MAX:
        return "span overflows"
    if address >= 2**64:
        return "data + byte_offset overflows"
    if not empty and address == 0:
        return "NULL data"
    if not empty and address % min(itemsize, 8):
        return "misaligned"
    return None


# ---- building the structs ------------------------------------------------------------------


class Tensor:
    """The ctypes structs of one tensor, kept alive with the memory they
    describe; counts deleter calls."""

    def __init__(self, f, rng):
        self.f, self.deleted, self.backing, self.unbacked = f, 0, None, True
        itemsize = _itemsize(f)
        nd = max(0, min(f["ndim"], 16))
        shape = (f["shape"] or [])[:nd]
        strides = elem_strides(f)
        first = 0
        if (
            f["shape"] is not None
            and 0 <= f["ndim"] <= 8
            and all(0 <= n <= 2**20 for n in shape)
            and all(abs(s) < 2**20 for s in strides[:nd])
        ):
            bstr = [s * itemsize for s in strides[:nd]]
            lohi = span(shape, bstr)
            if lohi is None:
                self.unbacked = False  # empty: nothing to read
            elif lohi[1] - lohi[0] + itemsize <= MAX_BACKED:
                self.backing = Backing(rng, lohi[0], lohi[1], itemsize)
                first = self.backing.first
                self.unbacked = False
        if self.backing is None:
            self.dummy = Backing(rng, 0, 0, 16)
            first = self.dummy.first
        kind = f["data_kind"]
        if kind == "null":
            first, self.unbacked = 0, True
        elif kind == "edge":
            first, self.unbacked = f["data_edge"], True
        elif kind == "misaligned":
            first += 1 + f["seed"] % 7
        ok = f["offset_kind"]
        if ok == "zero" or first == 0:
            data, offset = first, 0
        elif ok == "items":
            offset = f["offset_items"] * itemsize
            data = first - offset
        elif ok == "edge":
            data, offset, self.unbacked = first, f["offset_edge"], True
        elif ok == "wrap_zero":  # data + byte_offset is 2**64: the address 0 after wrapping
            data, offset, self.unbacked = first, (2**64 - first) % 2**64, True
        else:  # wraps around to a real address
            data, offset, self.unbacked = (first + 2**63) % 2**64, 2**63, True
        self.address = data + offset  # exact, not wrapped
        self.first = first
        self._shape = (ctypes.c_int64 * 16)(*([_i64(x) for x in shape] + [1] * (16 - len(shape))))
        st = f["strides"]
        self._strides = None if st is None else (ctypes.c_int64 * 16)(*([_i64(x) for x in st] + [1] * (16 - len(st))))
        self._deleter = DELETER(self._delete)
        if f["versioned"]:
            m = DLManagedTensorVersioned()
            m.version.major, m.version.minor, m.flags = f["major"], f["minor"], f["flags"]
        else:
            m = DLManagedTensor()
        m.manager_ctx = f["manager_ctx"]
        m.deleter = ctypes.cast(self._deleter, ctypes.c_void_p).value if f["deleter"] else None
        t = m.dl_tensor
        t.data = data or None
        t.device = DLDevice(*f["device"])
        t.ndim = f["ndim"]
        t.dtype = DLDataType(*f["dtype"])
        t.shape = None if f["shape"] is None else ctypes.addressof(self._shape)
        t.strides = None if self._strides is None else ctypes.addressof(self._strides)
        t.byte_offset = offset
        self.managed = m

    def _delete(self, ptr):
        self.deleted += 1

    def capsule(self):
        f = self.f
        right = b"dltensor_versioned" if f["versioned"] else b"dltensor"
        name = {
            "right": right,
            "used": b"used_" + right,
            "other": b"dltensor_other",
            "swapped": b"dltensor" if f["versioned"] else b"dltensor_versioned",
        }[f["name"]]
        if f["name"] == "swapped":
            name = b"used_" + name  # a struct under the other name is a lie no consumer can see
        self._name = ctypes.create_string_buffer(name)
        return capsule_new(ctypes.addressof(self.managed), self._name, None)

    def expected(self):
        """(refusal reason or None, itemsize, shape, byte strides, dtype, read-only)."""
        f = self.f
        why = must_refuse(f, self.address)
        if why:
            return why, None
        code, bits, _ = f["dtype"]
        dt = SUPPORTED[(code, bits)]
        shape = tuple(f["shape"][: f["ndim"]]) if f["ndim"] else ()
        strides = tuple(s * dt.itemsize for s in elem_strides(f)[: f["ndim"]]) if f["ndim"] else ()
        readonly = bool(f["versioned"] and f["flags"] & READ_ONLY)
        return None, (dt, shape, strides, readonly)


class CapsuleProducer:
    def __init__(self, tensor):
        self.tensor, self.calls, self.last = tensor, 0, None

    def __dlpack__(self, **kwargs):
        self.calls += 1
        self.last = self.tensor.capsule()
        return self.last

    def __dlpack_device__(self):
        return tuple(self.tensor.f["device"])


def check_view(got, tensor, rng):
    """None, or what is wrong with the View made of a tensor the rules allow."""
    _, (dt, shape, strides, readonly) = tensor.expected()
    if tuple(got.shape) != shape:
        return f"shape {tuple(got.shape)}, the tensor's {shape}"
    if np.dtype(kokkos.convert_dtype(got.dtype)) != dt:
        return f"dtype {got.dtype}, the tensor's {dt}"
    if tuple(got.strides) != strides:
        return f"byte strides {tuple(got.strides)}, the tensor's {strides}"
    if bool(got.readonly) != readonly:
        return f"read-only {got.readonly}, the tensor's flags say {readonly}"
    if tensor.unbacked or not all(shape):
        return None
    ref = numpy_over(tensor.first, list(shape), list(strides), dt)
    bad = compare_view(got, ref, "from_dlpack")
    if bad:
        return bad
    if not readonly and shape:
        idx = tuple(rng.randrange(n) for n in shape)
        try:
            got[idx] = dt.type(7)
        except kokkos.HostAccessError:  # device memory (a GPU machine): the host cannot write it
            return None
        if ref[idx] != dt.type(7):
            return f"v[{idx}] = 7 left the tensor's element at {ref[idx]!r}"
    return None


def _numpy_oracle(f, rng):
    """numpy.from_dlpack of an identical, well-formed tensor: (array, exc)."""
    t = Tensor(f, random.Random(f["seed"]))
    ref, exc = attempt(lambda: np.from_dlpack(CapsuleProducer(t)))
    return t, ref, exc


def run_capsule(case):
    f = case
    rng = random.Random(f["seed"])
    tensor = Tensor(f, rng)
    why, _ = tensor.expected()
    consumed = f["name"] == "right"
    cap = tensor.capsule()
    how = f["seed"] % 3
    producer = CapsuleProducer(tensor)  # its __dlpack__ hands the capsule over
    entry = (kokkos.from_dlpack, kokkos.asarray, kokkos.from_dlpack)[how]
    got, exc = attempt(entry, producer if how == 2 else cap)
    if how == 2:
        consumed = consumed and producer.calls == 1
        cap = producer.last
    # A consumer owns the tensor once it renamed the capsule "used_...": then it
    # must call the deleter exactly once, whether it refuses the tensor or not.
    taken = cap is not None and _capsule_name(cap).startswith(b"used_") and f["name"] == "right"
    del producer, cap
    if exc is not None:
        bad = unexpected(exc)
        if bad:
            return "error", bad
        gc.collect()
        if f["deleter"] and tensor.deleted != (1 if taken else 0):
            return "wrong", f"refused ({exc}); the deleter ran {tensor.deleted} times (capsule taken: {taken})"
        if why or not consumed:
            return "refused", why or "not a capsule"
        return "divergence", f"the rules allow it, kokkos: {type(exc).__name__}: {str(exc)[:200]}"
    if not consumed:
        return "wrong", f"accepted a capsule named {f['name']}"
    if why:
        return "wrong", f"accepted a tensor the rules refuse ({why}): shape {tuple(got.shape)} strides {got.strides}"
    bad = check_view(got, tensor, rng)
    if bad:
        return "wrong", bad
    if f["deleter"] and tensor.deleted:
        return "wrong", f"the deleter ran {tensor.deleted} times while the View lives"
    del got
    gc.collect()
    if f["deleter"] and tensor.deleted != 1:
        return "wrong", f"the deleter ran {tensor.deleted} times after the View was dropped"
    # NumPy's reading of a well-formed CPU tensor (NumPy trusts what it is given)
    if f["device"][0] == 1 and how == 0:
        t2, ref, rexc = _numpy_oracle(f, rng)
        if ref is None:
            return "laxity", f"NumPy refuses ({type(rexc).__name__}: {str(rexc)[:120]}), kokkos accepts"
    return "ok", "accepted"


def describe_capsule(case):
    return short(case, 700)


class _Capsules:
    NAME = "dlpack"
    generate = staticmethod(gen_tensor)
    run = staticmethod(run_capsule)
    describe = staticmethod(describe_capsule)


CAPSULES = _Capsules()


# ---- the C exchange table ------------------------------------------------------------------


def gen_exchange(rng):
    n = rng.choice((1, 1, 1, 2, 3, 5, 9))
    tables = []
    for _ in range(n):
        major = 1 if rng.random() < 0.45 else rng.choice((0, 2, 3, 2**32 - 1))
        tables.append(
            {
                "major": major,
                "minor": rng.choice((0, 3, 9)),
                "from_py": rng.choices(("tensor", "fail", "null_out", "NULL"), (80, 7, 7, 6))[0],
                "stream": rng.random() < 0.7,
            }
        )
    # prev_api: the next table, NULL at the end; sometimes a cycle
    last = rng.choices(("NULL", "self", "first", "middle"), (60, 15, 15, 10))[0]
    return {
        "tables": tables,
        "last": last,
        "tensor": gen_tensor(rng, versioned=True),
        "entry": rng.choice(("from_dlpack", "asarray", "array")),
        "seed": rng.getrandbits(32),
    }


def walk(case):
    """The index of the table a consumer of major version 1 takes, and
    whether the chain has a cycle before (or without) one."""
    tables, n = case["tables"], len(case["tables"])
    seen, i = set(), 0
    while i is not None and i not in seen:
        seen.add(i)
        if tables[i]["major"] == 1:
            return i, False
        i = i + 1 if i + 1 < n else {"NULL": None, "self": n - 1, "first": 0, "middle": n // 2}[case["last"]]
    return None, i is not None


class ExchangeProducer:
    """A type whose class attribute __dlpack_c_exchange_api__ is the chain."""

    fallback = None

    def __dlpack__(self, **kwargs):
        return np.asarray(type(self).fallback).__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)


def run_exchange(case):
    rng = random.Random(case["seed"])
    tensors, keep = [], []

    def from_py(obj, out):
        t = Tensor(case["tensor"], random.Random(case["tensor"]["seed"]))
        tensors.append(t)
        out[0] = ctypes.addressof(t.managed)
        return 0

    def from_py_fail(obj, out):
        tensors.append(None)
        return -1

    def from_py_null(obj, out):
        tensors.append(None)
        out[0] = None
        return 0

    def stream(dev_type, dev_id, out):
        out[0] = None
        return 0

    fns = {"tensor": FROM_PY(from_py), "fail": FROM_PY(from_py_fail), "null_out": FROM_PY(from_py_null)}
    sfn = STREAM(stream)
    keep += [fns, sfn]
    apis = [ExchangeAPI() for _ in case["tables"]]
    n = len(apis)
    for i, (api, t) in enumerate(zip(apis, case["tables"], strict=True)):
        api.major, api.minor = t["major"], t["minor"]
        if t["from_py"] != "NULL":
            api.managed_tensor_from_py_object_no_sync = ctypes.cast(fns[t["from_py"]], ctypes.c_void_p).value
        if t["stream"]:
            api.current_work_stream = ctypes.cast(sfn, ctypes.c_void_p).value
        nxt = i + 1 if i + 1 < n else {"NULL": None, "self": n - 1, "first": 0, "middle": n // 2}[case["last"]]
        if nxt is not None:
            api.prev_api = ctypes.pointer(apis[nxt])
    name = ctypes.create_string_buffer(b"dlpack_exchange_api")
    keep += [apis, name]
    cap = capsule_new(ctypes.addressof(apis[0]), name, None)
    fallback = np.arange(5.0) + 0.5
    cls = type("Producer", (ExchangeProducer,), {"__dlpack_c_exchange_api__": cap, "fallback": fallback})
    obj = cls()
    call = {"from_dlpack": kokkos.from_dlpack, "asarray": kokkos.asarray, "array": kokkos.array}[case["entry"]]
    got, exc = attempt(lambda: call(obj))
    taken, cycle = walk(case)
    tensor = tensors[0] if tensors else None
    if exc is not None:
        bad = unexpected(exc)
        if bad:
            return "error", bad
        result = ("refused", f"{type(exc).__name__}")
        if tensor is not None:
            why, _ = tensor.expected()
            gc.collect()
            if tensor.f["deleter"] and tensor.deleted != 1:
                return "wrong", f"refused; the deleter ran {tensor.deleted} times"
            if not why:
                result = ("divergence", f"the rules allow the tensor, kokkos: {str(exc)[:200]}")
        return result
    addr = np.asarray(got).__array_interface__["data"][0] if got.size else None
    if addr is not None and addr == fallback.ctypes.data:
        if taken is not None and case["tables"][taken]["from_py"] == "tensor" and taken <= 3 and not cycle:
            return "divergence", f"table {taken} (major 1) was passed over for __dlpack__"
        return "ok", "fell back to __dlpack__"
    if tensor is None:
        return "wrong", f"accepted without a tensor from the table (shape {tuple(got.shape)})"
    why, _ = tensor.expected()
    if why:
        return "wrong", f"accepted a tensor the rules refuse ({why})"
    bad = check_view(got, tensor, rng)
    if bad:
        return "wrong", bad
    del got
    gc.collect()
    if tensor.f["deleter"] and tensor.deleted != 1:
        return "wrong", f"the deleter ran {tensor.deleted} times after the View was dropped"
    return "ok", "accepted"


class _Exchange:
    NAME = "exchange_api"
    generate = staticmethod(gen_exchange)
    run = staticmethod(run_exchange)
    describe = staticmethod(lambda case: short(case, 900))


EXCHANGE = _Exchange()
