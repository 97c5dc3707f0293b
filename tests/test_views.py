"""Creating Views and reading their properties, for every dtype, rank,
layout, trait and available memory space."""

import sys

import numpy as np
import pytest

import kokkos
from support import DTYPES, LAYOUTS, NP_DTYPES, SPACES, TRAITS, run_python, shape_of, succeeded


@pytest.mark.parametrize("space", SPACES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("rank", range(0, 9))
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_create_every_combination(dt, rank, layout, space):
    shape = shape_of(rank)
    v = kokkos.array("v", list(shape), dtype=dt, space=space, layout=layout)
    assert isinstance(v, kokkos.View)
    assert not v.dynamic
    assert v.shape == shape and v.shape == list(shape)
    assert v.ndim == v.rank == rank
    assert v.dtype == dt
    assert v.space == space and v.memory_space == space
    assert v.label == "v"
    assert v.size == int(np.prod(shape))
    assert v.itemsize == NP_DTYPES[dt].itemsize
    assert v.nbytes == v.size * v.itemsize
    assert v.is_contiguous
    if rank > 1:
        assert v.layout == layout
    if kokkos.get_host_accessible(space):
        arr = np.asarray(v)
        assert arr.shape == shape
        assert arr.dtype == NP_DTYPES[dt]
        assert not arr.any(), "new Views are zero-filled"
        if layout == kokkos.LayoutLeft and rank > 1:
            assert arr.flags.f_contiguous
        else:
            assert arr.flags.c_contiguous


@pytest.mark.parametrize("trait", TRAITS, ids=str)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_traits(dt, trait):
    v = kokkos.array([3, 2], dtype=dt, trait=trait)
    assert v.trait == trait and v.memory_trait == trait
    v[1, 1] = 1
    assert v[1, 1] == 1


def test_combined_traits():
    v = kokkos.View((4,), trait=kokkos.RandomAccess | kokkos.Restrict)
    assert v.trait == kokkos.RandomAccess | kokkos.Restrict
    assert kokkos.RandomAccess in v.trait


@pytest.mark.parametrize("rank", range(0, 8))
def test_dyn_rank_view(rank):
    shape = shape_of(rank)
    v = kokkos.array(list(shape), dtype=kokkos.int32, dynamic=True)
    assert isinstance(v, kokkos.DynRankView) and isinstance(v, kokkos.View)
    assert v.dynamic and v.ndim == rank and v.shape == shape


def test_dyn_rank_view_max_rank():
    with pytest.raises(ValueError, match="rank 8 is larger than the maximum 7"):
        kokkos.array([1] * 8, dynamic=True)
    with pytest.raises(ValueError, match="rank 9 is larger than the maximum 8"):
        kokkos.View([1] * 9)


def test_view_constructor_forms():
    a = kokkos.View((2, 3))
    assert a.dtype == kokkos.float64 and a.label == "" and a.shape == (2, 3)
    b = kokkos.View("lbl", [4])
    assert b.label == "lbl" and b.shape == (4,)
    c = kokkos.View(5, "int16", label="c", layout="LayoutLeft")
    assert c.dtype == kokkos.int16 and c.shape == (5,)
    d = kokkos.DynRankView([2, 2], np.complex64)
    assert d.dtype == kokkos.complex64 and d.dynamic
    e = kokkos.View([3], initialize=False)
    assert e.shape == (3,)


@pytest.mark.parametrize(
    "spelling,expected",
    [
        (kokkos.double, kokkos.float64),
        (kokkos.float, kokkos.float32),
        (kokkos.int, kokkos.int32),
        (kokkos.long, kokkos.int64),
        (kokkos.unsigned, kokkos.uint32),
        ("float64", kokkos.float64),
        ("double", kokkos.float64),
        ("<f4", kokkos.float32),
        ("i8", kokkos.int64),
        (np.float32, kokkos.float32),
        (np.dtype("uint16"), kokkos.uint16),
        (np.bool_, kokkos.bool),
        (np.complex128, kokkos.complex128),
        (float, kokkos.float64),
        (int, kokkos.int64),
        (bool, kokkos.bool),
        (complex, kokkos.complex128),
    ],
)
def test_dtype_spellings(spelling, expected):
    assert kokkos.View((2,), spelling).dtype == expected


def test_enum_members_are_module_attributes():
    assert kokkos.double is kokkos.float64
    assert kokkos.HostSpace == kokkos.memory_space.HostSpace
    assert kokkos.DefaultHostMemorySpace == kokkos.HostSpace
    assert kokkos.LayoutRight == 0 and kokkos.LayoutLeft == 1
    assert str(kokkos.double) == "dtype.float64"
    assert np.dtype(kokkos.float32) == np.float32
    assert np.zeros(2, dtype=kokkos.int16).dtype == np.int16
    assert len(kokkos.all_dtypes) == 14 and kokkos.all_dtypes[-1] is kokkos.float16
    assert kokkos.dtypes == kokkos.all_dtypes[:12]  # the original's numeric dtypes: no bool, no float16
    assert kokkos.max_concrete_rank == 8


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(shape=[-1]), ValueError, r"shape\[0\] must be >= 0, got -1"),
        (dict(shape=[2, "a"]), TypeError, r"shape\[1\] must be an int"),
        (dict(shape=[2.5]), TypeError, r"shape\[0\] must be an int"),
        (dict(shape=[True]), TypeError, r"shape\[0\] must be an int"),
        (dict(shape=[1] * 9), ValueError, "maximum 8"),
        (dict(shape=[2], dtype="float128"), ValueError, "unknown dtype"),
        (dict(shape=[2], dtype=np.longdouble), TypeError, "not supported"),
        (dict(shape=[2], dtype=object()), TypeError, "cannot interpret"),
        (dict(shape=[2], dtype=99), ValueError, "not a kokkos dtype"),
        (dict(shape=[2], space="Nowhere"), ValueError, "unknown memory space"),
        (dict(shape=[2], space=3.0), TypeError, "space must be"),
        (dict(shape=[2], layout="Diagonal"), ValueError, "unknown layout"),
        (dict(shape=[2], trait="Sticky"), ValueError, "unknown memory trait"),
        (dict(shape=[2], trait=kokkos.Unmanaged), ValueError, "Unmanaged View wraps existing memory"),
        (dict(shape=[2], label=3), TypeError, "label must be a str"),
        (dict(shape=[2], label="a\0b"), ValueError, "NUL"),
        (dict(shape=[2**62, 2**62]), ValueError, "more than"),
        (dict(shape=[2**40, 2**40, 2**40]), ValueError, "more than"),
    ],
)
def test_bad_construction(kwargs, exc, match):
    shape = kwargs.pop("shape")
    with pytest.raises(exc, match=match):
        kokkos.View(shape, **kwargs)


def test_unavailable_space():
    missing = [s for s in kokkos.memory_spaces if not kokkos.get_memory_space_available(s)]
    if not missing:
        pytest.skip("every memory space is available")
    with pytest.raises(RuntimeError, match="not enabled in the installed Kokkos"):
        kokkos.array([2], space=missing[0])


def test_huge_allocation_is_memory_error():
    with pytest.raises(MemoryError):
        kokkos.View([2**61 // 8], kokkos.uint8)


def test_repr_and_misc_properties():
    v = kokkos.array("field", [2, 3], dtype=kokkos.float32, layout=kokkos.LayoutLeft)
    r = repr(v)
    assert "label='field'" in r and "shape=(2, 3)" in r and "float32" in r and "LayoutLeft" in r
    assert v.strides == (4, 8)
    assert v.stride(0) == 1 and v.stride(1) == 2
    assert v.extent(1) == 3 and v.extent(5) == 1
    assert v.span() == 6 and v.span_is_contiguous()
    assert v.data == np.asarray(v).__array_interface__["data"][0]
    assert v.use_count() >= 1
    assert v.host_accessible
    with pytest.raises(IndexError, match="out of range"):
        v.extent(-1)


def test_default_label_names_the_type():
    v = kokkos.array([2, 2], dtype=kokkos.int32)
    assert v.label == "KokkosView<int32**, LayoutRight, HostSpace>"


def test_shape_compares_with_lists_and_tuples():
    v = kokkos.View((2, 3))
    assert v.shape == (2, 3) and v.shape == [2, 3] and v.shape != [3, 2]
    assert repr(v.shape) == "[2, 3]"
    assert hash(v.shape) == hash((2, 3))
    assert np.zeros(v.shape).shape == (2, 3)


def test_import_does_not_import_numpy():
    r = succeeded(run_python("import sys, kokkos; print('numpy' in sys.modules)"))
    assert r.stdout.strip() == "False"


def test_refcounts_flat_on_creation():
    import gc

    for _ in range(10):
        kokkos.View((3,))
    gc.collect()
    before = sys.getrefcount(kokkos.View)
    for _ in range(1000):
        v = kokkos.View((3,))
        del v
    gc.collect()
    after = sys.getrefcount(kokkos.View)
    assert after == before


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: kokkos.get_dtype("float128"), ValueError, "unknown dtype"),
        (lambda: kokkos.get_dtype(99), ValueError, "not a valid dtype"),
        (lambda: kokkos.get_dtype(1.5), TypeError, "must be a name"),
        (lambda: kokkos.get_memory_space("Mars"), ValueError, "unknown memory space"),
        (lambda: kokkos.get_layout(7), ValueError, "not a valid layout"),
        (lambda: kokkos.get_memory_trait("Sticky"), ValueError, "unknown memory trait"),
        (lambda: kokkos.get_memory_trait(64), ValueError, "not a valid memory trait"),
        (lambda: kokkos.get_execution_space("Quantum"), ValueError, "unknown execution space"),
        (lambda: kokkos.array([2], order="X"), ValueError, "order must be 'C' or 'F'"),
        (lambda: kokkos.array("label_only"), TypeError, "give a shape"),
        (lambda: kokkos.array([2], trait=kokkos.Unmanaged), ValueError, "wraps existing memory"),
    ],
)
def test_helper_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_helper_conversions():
    assert kokkos.get_dtype("double") == kokkos.float64 and kokkos.get_dtype(kokkos.double) == "float64"
    assert kokkos.get_layout("LayoutLeft") == kokkos.LayoutLeft and kokkos.get_layout(1) == "LayoutLeft"
    assert kokkos.get_memory_trait(kokkos.RandomAccess) == "RandomAccess"
    assert kokkos.convert_dtype(kokkos.int16) is np.int16
    assert kokkos.read_dtype(np.float32) == kokkos.float32
    assert kokkos.read_dtype("not a dtype") == "not a dtype"
    assert kokkos.get_host_accessible(kokkos.HostSpace) and kokkos.get_layout_available(kokkos.LayoutStride)
    f = kokkos.array([2, 3], order="F")
    assert f.layout == kokkos.LayoutLeft


def test_python_subclasses_are_instantiated_and_freed():
    import gc
    import weakref

    class MyView(kokkos.View):
        def total(self):
            return float(np.asarray(self).sum())

    class MyDyn(kokkos.DynRankView):
        pass

    v = MyView((3, 4), kokkos.float32, label="mine")
    assert type(v) is MyView and isinstance(v, kokkos.View)
    v.note = "attributes live in the subclass's __dict__"
    np.asarray(v)[:] = 1.0
    assert v.total() == 12.0 and v.label == "mine" and v.shape == [3, 4]
    sub = v[1:, ::2]
    assert type(sub) is MyView and sub.total() == 4.0  # subviews keep the type, as ndarray subclasses do
    mirror = v.create_mirror()  # a mirror is a new View, of its combination's class
    assert (
        type(mirror).__name__ == "KokkosView_float32_HostSpace_LayoutRight_2" and type(mirror).__base__ is kokkos.View
    )
    d = MyDyn((2, 2))
    assert type(d) is MyDyn and isinstance(d, kokkos.DynRankView) and type(d[0]) is MyDyn
    refs = [weakref.ref(x) for x in (v, sub, d)]
    before = sys.getrefcount(MyView)
    del v, sub, d
    gc.collect()
    assert all(r() is None for r in refs)
    assert sys.getrefcount(MyView) < before  # the instances' references to their type went


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_dtype_compares_with_every_numpy_spelling(dt):
    v = kokkos.array([2], dtype=dt)
    npdt = NP_DTYPES[dt]
    for spelling in (npdt, npdt.type, npdt.name, npdt.str, dt):
        assert v.dtype == spelling and spelling == v.dtype and not (v.dtype != spelling)
    other = np.dtype(np.int8) if npdt != np.int8 else np.dtype(np.uint8)
    assert v.dtype != other and v.dtype != other.name
    assert v.dtype != "not a dtype" and v.dtype != None  # noqa: E711
    # still the integer enum of the original package: ints, hashing, identity
    assert v.dtype == int(dt) and hash(v.dtype) == hash(int(dt)) and v.dtype is dt
    assert {dt: "found"}[v.dtype] == "found"


@pytest.mark.parametrize("cls", [kokkos.View, kokkos.DynRankView])
def test_view_types_are_immutable(cls):
    with pytest.raises(TypeError, match="immutable type"):
        cls.shape = 5
    with pytest.raises(TypeError, match="immutable type"):
        cls.extra = 1
    assert isinstance(kokkos.View((2,)).shape, tuple)


def test_view_type_declares_every_protocol_itself():
    # The whole interface is in the type's own dict, from its C tables.
    own = kokkos.View.__dict__
    for name in (
        "__dlpack__",
        "__dlpack_device__",
        "__dlpack_c_exchange_api__",
        "__cuda_array_interface__",
        "__array_interface__",
        "__reduce_ex__",
    ):
        assert name in own, name
    assert type(own["__reduce_ex__"]).__name__ == "method_descriptor"


def test_first_view_costs_little_memory():
    # The per-combination classes and default labels are sparse tables
    # (base/slots.c): the first View allocates a class and a block of each,
    # not the 120,960-slot class table (about 1 MB before).
    proc = run_python(
        """
        import tracemalloc
        import kokkos
        kokkos.initialize()
        tracemalloc.start()
        v = kokkos.array([3])
        first = tracemalloc.get_traced_memory()[0]
        w = kokkos.array([2, 2], dtype=kokkos.int32, layout=kokkos.LayoutLeft, dynamic=True)
        second = tracemalloc.get_traced_memory()[0] - first
        # every combination still gets its own class, found again on reuse
        assert type(kokkos.array([4])) is type(v), type(v)
        assert type(w).__name__ == "KokkosDynRankView_int32_HostSpace_LayoutLeft"
        print("first", first, "second", second)
        assert first <= 64 * 1024, first
        assert second <= 64 * 1024, second
        kokkos.finalize()
        """
    )
    succeeded(proc, "first ")


def test_many_combinations_all_distinct_and_cached():
    seen = {}
    for dt in DTYPES:
        for layout in (kokkos.LayoutRight, kokkos.LayoutLeft):
            for rank in range(kokkos._core.max_rank + 1):
                cls = kokkos._core._view_class(False, dt, kokkos.HostSpace, layout, kokkos.RandomAccess, rank)
                assert cls is kokkos._core._view_class(False, dt, kokkos.HostSpace, layout, kokkos.RandomAccess, rank)
                seen[cls] = (dt, layout, rank)
    assert len(seen) == len(DTYPES) * 2 * (kokkos._core.max_rank + 1)
