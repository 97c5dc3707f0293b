"""C++ Views to Python and back: pybind11 and nanobind modules built at test
time against the installed headers (tests/cxx/, see cxx_build.py).

Covers: C++ -> Python -> NumPy without copies; Python -> C++ writes seen in
Python; round trips for every dtype, ranks 1..8 and LayoutRight / Left /
Stride (the full product with pybind11, a cross-section with nanobind);
DynRankView; the casters' behaviour on None, wrong types and NumPy input;
explicit from_python errors naming what did not fit; ownership in every
order and no leaks over many round trips. Finalize and runtime-mismatch
cases run in subprocesses (test_cxx_runtime.py); the C API alone in
test_cxx_capi.py.
"""

from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest

import cxx_build
import kokkos

# float16 is C++'s _Float16 (tests/cxx/views.hpp), where the compiler has it
DTYPES = [kokkos.get_dtype(d) for d in kokkos.all_dtypes]  # every dtype, bool and float16 included
LAYOUTS = {"right": kokkos.LayoutRight, "left": kokkos.LayoutLeft, "stride": kokkos.LayoutStride}
RANKS = range(1, 9)


def shape_for(rank):
    """Small extents, not all equal, one of them 1, product <= 144."""
    return tuple([2, 3, 2, 1, 3, 2, 1, 2][:rank])


def expected(dtype, shape):
    """What tests/cxx/views.hpp's fill() writes, in C order of the indices."""
    k = np.arange(int(np.prod(shape)) if shape else 1)
    if dtype == "bool":
        vals = k % 2 == 1
    elif dtype.startswith("complex"):
        vals = (k + 1) - 1j * (k % 7)
    elif dtype.startswith("float"):
        vals = k + 0.5
    else:
        vals = k % 100 + 1
    return np.asarray(vals).astype(np.dtype(dtype)).reshape(shape)


@pytest.fixture(scope="module")
def modules():
    return {"pybind11": cxx_build.test_module("kp_test_pyb"), "nanobind": cxx_build.test_module("kp_test_nb")}


@pytest.fixture
def pyb(modules):
    return modules["pybind11"]


@pytest.fixture(params=["pybind11", "nanobind"])
def mod(request, modules):
    m = modules[request.param]
    m.release_held()
    yield m
    m.release_held()


def strided_numpy(dtype, shape):
    """A NumPy array of this shape whose last axis is not contiguous."""
    base = np.zeros(shape[:-1] + (2 * shape[-1],), dtype=dtype)
    return base[..., ::2]


def skip_without(m, name):
    if not hasattr(m, "make_" + name):
        pytest.skip(f"the C++ compiler has no _Float16 ({name} not built)")


def check_round_trip(m, dtype, rank, layout):
    name = f"{dtype}_{rank}_{layout}"
    skip_without(m, name)
    shape = shape_for(rank)
    want = expected(dtype, shape)

    # C++ -> Python -> NumPy, no copies
    v = getattr(m, "make_" + name)(list(shape))
    assert type(v).__base__ is kokkos.View
    assert v.shape == shape and v.dtype == kokkos.dtype[dtype]
    assert v.space == kokkos.HostSpace
    assert v.label == "made_" + name
    if rank > 1:
        assert v.layout == LAYOUTS[layout]
    a = np.asarray(v)
    assert a.__array_interface__["data"][0] == v.data
    np.testing.assert_array_equal(a, want)

    # ... and back into C++ as the same memory
    e = getattr(m, "echo_" + name)(v)
    assert e.data == v.data and e.shape == v.shape and e.strides == v.strides
    np.testing.assert_array_equal(np.asarray(e), want)

    # Python memory written by C++
    if layout == "stride":
        src = strided_numpy(dtype, shape)
        getattr(m, "fill_" + name)(src)
        np.testing.assert_array_equal(src, want)
        w = kokkos.array(strided_numpy(dtype, shape))
    else:
        w = kokkos.array("w_" + name, list(shape), dtype=kokkos.dtype[dtype], layout=LAYOUTS[layout])
    getattr(m, "fill_" + name)(w)
    np.testing.assert_array_equal(np.asarray(w), want)
    # unchanged on the way through C++: the very same Python object back
    assert getattr(m, "echo_" + name)(w) is w


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("rank", RANKS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_pybind11(pyb, dtype, rank, layout):
    check_round_trip(pyb, dtype, rank, layout)


NANOBIND_CASES = (
    [(d, 2, "right") for d in DTYPES]
    + [("float64", r, lay) for r in RANKS for lay in ("left", "stride")]
    + [("float64", r, "right") for r in (1, 3, 8)]
)


@pytest.mark.parametrize("dtype,rank,layout", NANOBIND_CASES)
def test_round_trip_nanobind(modules, dtype, rank, layout):
    check_round_trip(modules["nanobind"], dtype, rank, layout)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_dyn_rank_view_every_dtype(pyb, dtype, layout):
    name = f"drv_{dtype}_{layout}"
    skip_without(pyb, name)
    shape = (2, 3, 2)
    v = getattr(pyb, "make_" + name)(list(shape))
    assert type(v).__base__ is kokkos.DynRankView and v.dynamic
    assert v.rank == 3 and tuple(v.shape)[:3] == shape
    np.testing.assert_array_equal(np.asarray(v), expected(dtype, shape))
    e = getattr(pyb, "echo_" + name)(v)
    assert type(e).__base__ is kokkos.DynRankView and e.data == v.data
    # A Python View of any rank <= 7 is a DynRankView to C++.
    w = kokkos.array("w", [3, 2], dtype=kokkos.dtype[dtype], layout=LAYOUTS[layout])
    getattr(pyb, "fill_" + name)(w)
    np.testing.assert_array_equal(np.asarray(w), expected(dtype, (3, 2)))


@pytest.mark.parametrize("rank", range(8))
def test_dyn_rank_view_ranks(mod, rank):
    shape = shape_for(rank)
    v = mod.make_drv(list(shape))
    assert type(v).__base__ is kokkos.DynRankView and v.rank == rank
    np.testing.assert_array_equal(np.asarray(v), expected("float64", shape))
    (data, _, label), drv_rank = mod.probe_drv(v)
    assert data == v.data and label == "drv" and drv_rank == rank


def test_dyn_rank_view_rejects_rank_8(mod):
    v = kokkos.array("r8", list(shape_for(8)), dtype=kokkos.double)
    with pytest.raises(TypeError, match=r"View 'r8' has rank 8, but a Kokkos::DynRankView holds rank 0\.\.7"):
        mod.as_drv(v)
    assert mod.as_drv(kokkos.array("r7", list(shape_for(7)), dtype=kokkos.double)) == 7


# ---- traits, layouts, const, fixed extents, rank 0, empty ----------------------------


def test_layout_of_rank1_left_is_kept(mod):
    v = mod.make_left_1d(4)
    assert v.layout == kokkos.LayoutLeft


def test_memory_traits_reach_python(mod):
    assert mod.make_random_access(3).trait == kokkos.RandomAccess
    assert mod.make_atomic(3).trait == kokkos.Atomic
    u = mod.make_unmanaged()
    assert u.trait & kokkos.Unmanaged
    np.testing.assert_array_equal(np.asarray(u), np.arange(1.0, 9.0))


def test_const_view_is_read_only_in_python(mod):
    v = mod.make_const(4)
    assert v.readonly
    a = np.asarray(v)
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1.0
    assert mod.sum_const(v) == pytest.approx(float(np.sum(expected("float64", (4,)))))
    with pytest.raises(
        TypeError,
        match=r"View 'const_view' is read-only, but Kokkos::View<float64\*, LayoutRight, "
        r"HostSpace> would write to it; take a View of const float64",
    ):
        mod.as_f64_1d(v)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        mod.scale(v, 2.0)


def test_rank0(mod):
    v = mod.make_rank0(3.5)
    assert v.rank == 0 and v.shape == ()
    assert mod.get_rank0(v) == 3.5
    e = mod.echo_rank0(v)
    assert e.data == v.data and mod.get_rank0(e) == 3.5


def test_fixed_extents(mod):
    v = mod.make_fixed(4)
    assert v.shape == (4, 3)
    np.testing.assert_array_equal(np.asarray(v), expected("float64", (4, 3)))
    assert mod.echo_fixed(v).data == v.data
    assert mod.as_fixed3(kokkos.array("ok", [5, 3], dtype=kokkos.double)) == 5
    with pytest.raises(
        ValueError,
        match=r"View 'bad' has extent 2 in dimension 1, but "
        r"Kokkos::View<float64\*\[3\], LayoutRight, HostSpace> fixes it to 3",
    ):
        mod.as_fixed3(kokkos.array("bad", [5, 2], dtype=kokkos.double))


def test_empty_and_default_views(mod):
    e = mod.make_empty()
    assert e.shape == (0,) and e.label == "empty"
    assert mod.echo_float64_1_right(e).shape == (0,)
    d = mod.make_default()
    assert d.shape == (0,) and d.trait & kokkos.Unmanaged
    assert mod.echo_float64_1_right(kokkos.array("z", [0], dtype=kokkos.double)).shape == (0,)


def test_type_name(mod):
    assert mod.type_name_2d() == "Kokkos::View<const float64**, LayoutLeft, HostSpace, RandomAccess>"


# ---- casters: the usual binding errors, NumPy input ----------------------------------------


def test_caster_rejects_none_and_wrong_types(mod):
    for bad in (None, 3.0, "text", [1.0, 2.0]):
        with pytest.raises(TypeError, match="incompatible function arguments"):
            mod.scale(bad, 2.0)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        mod.scale(kokkos.array("i", [3], dtype=kokkos.int32), 2.0)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        mod.scale(kokkos.array("two_d", [3, 2], dtype=kokkos.double), 2.0)


def test_caster_signature_names_the_view_type(mod):
    doc = mod.scale.__doc__
    assert "kokkos.View[float64, 1, LayoutRight, HostSpace]" in doc
    assert "kokkos.DynRankView[float64, LayoutRight, HostSpace]" in mod.probe_drv.__doc__
    assert "kokkos.View[const float64, 1, LayoutRight, HostSpace]" in mod.sum_const.__doc__


def test_caster_wraps_numpy_without_copy(mod):
    a = np.arange(5.0)
    mod.scale(a, 2.0)
    np.testing.assert_array_equal(a, 2 * np.arange(5.0))
    # strided NumPy input cannot be LayoutRight: rejected, not copied
    with pytest.raises(TypeError, match="incompatible function arguments"):
        mod.scale(np.arange(10.0)[::2], 2.0)
    # read-only NumPy arrays only go to const Views
    ro = np.arange(4.0)
    ro.flags.writeable = False
    with pytest.raises(TypeError, match="incompatible function arguments"):
        mod.scale(ro, 2.0)
    assert mod.sum_const(ro) == 6.0
    # wrong dtype is not converted either
    with pytest.raises(TypeError, match="incompatible function arguments"):
        mod.scale(np.arange(4, dtype=np.int64), 2.0)


def test_caster_noconvert_takes_views_only(mod):
    a = np.arange(3.0)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        mod.scale_noconvert(a, 2.0)
    v = kokkos.array(a)
    mod.scale_noconvert(v, 3.0)
    np.testing.assert_array_equal(a, 3 * np.arange(3.0))


# ---- explicit from_python: every mismatch says what did not fit ------------------------------


def test_from_python_dtype_mismatch(mod):
    v = kokkos.array("dbl", [3], dtype=kokkos.double)
    with pytest.raises(
        TypeError,
        match=r"View 'dbl' holds float64, but Kokkos::View<int32\*, LayoutRight, "
        r"HostSpace> needs int32",
    ):
        mod.as_i32_1d(v)


def test_from_python_rank_mismatch(mod):
    v = kokkos.array("two", [3, 2], dtype=kokkos.double)
    with pytest.raises(
        TypeError,
        match=r"View 'two' has rank 2, but Kokkos::View<float64\*, LayoutRight, "
        r"HostSpace> has rank 1",
    ):
        mod.as_f64_1d(v)


def test_from_python_layout_mismatch(mod):
    right = kokkos.array("r", [2, 3], dtype=kokkos.double)
    left = kokkos.array("l", [2, 3], dtype=kokkos.double, layout=kokkos.LayoutLeft)
    assert mod.as_f64_2d(right) == 2 and mod.as_f64_2d_left(left) == 2
    with pytest.raises(
        TypeError,
        match=r"View 'r' has strides \(3, 1\) \(in elements\), which are not contiguous "
        r"LayoutLeft; Kokkos::View<float64\*\*, LayoutLeft, HostSpace> needs them",
    ):
        mod.as_f64_2d_left(right)
    with pytest.raises(TypeError, match=r"View 'l' has strides \(1, 2\) .* not contiguous LayoutRight"):
        mod.as_f64_2d(left)
    # LayoutStride takes any non-negative strides
    assert mod.as_f64_2d_stride(left) == (1, 2)
    assert mod.as_f64_2d_stride(right[:, ::2]) == (3, 2)
    with pytest.raises(TypeError, match=r"has a negative stride \(-3, 1\); Kokkos::LayoutStride needs strides >= 0"):
        mod.as_f64_2d_stride(right[::-1])


def test_from_python_alignment(mod):
    raw = bytearray(8 * 40)
    base = np.frombuffer(raw, dtype=np.uint8)
    addr = base.__array_interface__["data"][0]
    # a few bytes off: not aligned for double at all (NumPy allows such views)
    o1 = next(o for o in range(1, 8) if (addr + o) % 8)
    odd = kokkos.array(base[o1 : o1 + 8 * 4].view(np.float64))
    assert odd.data % 8 != 0
    with pytest.raises(ValueError, match=r"data at 0x[0-9a-f]+ is not aligned for float64 \(8 bytes\)"):
        mod.as_f64_1d(odd)
    # 8-byte aligned but not to the 64 bytes the Aligned trait asks for
    off = next(o for o in range(0, 128, 8) if (addr + o) % 64 == 8)
    eight = kokkos.array(base[off : off + 8 * 4].view(np.float64))
    assert mod.as_f64_1d(eight) == 4
    with pytest.raises(ValueError, match=r"is not aligned to 64 bytes, which the Aligned memory trait"):
        mod.as_aligned(eight)
    off64 = next(o for o in range(0, 128, 8) if (addr + o) % 64 == 0)
    assert mod.as_aligned(kokkos.array(base[off64 : off64 + 8 * 4].view(np.float64))) == 4


def test_from_python_not_a_view(mod):
    with pytest.raises(
        TypeError,
        match=r"expected a kokkos.View for Kokkos::View<float64\*, LayoutRight, "
        r"HostSpace>, got int",
    ):
        mod.as_f64_1d(42)


def test_from_python_unmanaged_target_does_not_own(mod):
    v = kokkos.array("u", [4], dtype=kokkos.double)
    assert mod.as_unmanaged(v) == 0


@pytest.mark.skipif(len(kokkos.enabled_memory_spaces()) < 2, reason="one memory space: no space to mismatch")
def test_from_python_space_mismatch(mod):
    other = next(s for s in kokkos.enabled_memory_spaces() if s != "HostSpace")
    v = kokkos.array("dev", [3], dtype=kokkos.double, space=other)
    with pytest.raises(
        TypeError,
        match=rf"View 'dev' lives in {other}, but Kokkos::View<float64\*, LayoutRight, "
        r"HostSpace> needs HostSpace",
    ):
        mod.as_f64_1d(v)


# ---- ownership in every order ----------------------------------------------------------------


def test_cpp_view_shared_both_ways(mod):
    v = mod.make_kept(3)  # C++ keeps a copy too
    assert mod.held_use_counts() == [2]  # C++'s copy + the one Python's View owns
    mod.set_held(42.0)
    assert np.asarray(v)[0, 0] == 42.0  # one memory
    np.asarray(v)[1, 1] = -7.0
    assert mod.held_sum() == pytest.approx(float(np.asarray(v).sum()))
    # Python drops first: C++ still has the allocation
    del v
    gc.collect()
    assert mod.held_use_counts() == [1]
    mod.set_held(1.0)
    assert mod.held_sum() > 0


def test_cpp_drops_first(mod):
    v = mod.make_kept(3)
    mod.release_held()
    gc.collect()
    assert mod.held_count() == 0
    np.testing.assert_array_equal(np.asarray(v), expected("float64", (3, 2)))
    (data, count, label) = mod.probe(v)
    assert data == v.data and label == "kept" and count >= 2


def test_cpp_view_comes_back_as_the_same_kokkos_view(mod):
    v = mod.make_kept(2)
    mod.hold(v)  # exact type: a copy of the original Kokkos::View, not a new record
    assert mod.held_use_counts() == [3, 3]
    mod.release_held()
    assert mod.use_count_2d(v) >= 2


def test_cpp_view_handed_over_without_a_heap_copy(mod):
    v = mod.make_kept(2)
    # the Python View shares the C++ reference count from inside its owner:
    # nothing the cycle collector could follow, so neither is tracked
    assert not gc.is_tracked(v) and not gc.is_tracked(v.allocation)
    assert type(v).__name__ == "KokkosView_float64_HostSpace_LayoutRight_2"
    assert mod.held_use_counts() == [2]
    w = mod.get_held(0)  # handed over again: a second owner, a second share
    assert w is not v and w.data == v.data and mod.held_use_counts() == [3]
    del v, w
    gc.collect()
    assert mod.held_use_counts() == [1]


def test_python_subview_of_cpp_view_is_tracked_by_its_allocation(mod):
    v = mod.make_kept(4)
    sub = v[1:3, :]
    del v
    gc.collect()
    # C++ sees the subview as memory of the original Kokkos allocation:
    # C++'s copy + the Python owner's share + the subview C++ now holds
    mod.hold(sub)
    assert mod.held_use_counts() == [3, 3]
    data, count, label = mod.probe(sub)
    assert data == sub.data and label == "kept"
    np.asarray(sub)[...] = 4.0
    whole = expected("float64", (4, 2))
    whole[1:3] = 4.0
    assert mod.held_sum() == pytest.approx(whole.sum() + 4 * 4.0)  # one memory
    mod.release_held()
    assert mod.echo_2d(sub).data == sub.data


def test_view_of_version_1_module_comes_back_as_the_same_kokkos_view(pyb):
    pyb.release_held()
    v = pyb.make_kept_v1(2)  # a heap copy, as modules on the first C API version made
    assert v.label == "kept_v1" and pyb.held_use_counts() == [2]
    pyb.hold(v)  # recognized: a copy of the original Kokkos::View, not a new record
    assert pyb.held_use_counts() == [3, 3]
    assert pyb.probe(v)[0] == v.data and pyb.probe(v)[2] == "kept_v1"
    pyb.release_held()
    del v
    gc.collect()


def test_python_memory_kept_alive_by_cpp(mod):
    a = np.arange(8.0).reshape(4, 2)
    ref = weakref.ref(a)
    mod.hold(a)  # wrapped without a copy; C++ holds the array through the View
    del a
    gc.collect()
    assert ref() is not None
    assert mod.held_sum() == pytest.approx(28.0)
    mod.release_held()
    gc.collect()
    assert ref() is None


def test_python_view_kept_by_cpp_comes_back_as_itself(mod):
    w = kokkos.array("py_owned", [3, 2], dtype=kokkos.double)
    before = sys.getrefcount(w)
    mod.hold(w)
    mod.hold(w)
    assert sys.getrefcount(w) == before + 2  # each C++ View's record holds the Python View
    assert mod.held_use_counts() == [1, 1]
    wid = id(w)
    del w
    gc.collect()
    mod.set_held(5.0)
    back = mod.get_held(0)
    assert id(back) == wid and back.label == "py_owned" and np.asarray(back)[0, 0] == 5.0
    assert mod.echo_2d(back) is back
    ref = weakref.ref(back)
    del back
    mod.release_held()
    gc.collect()
    assert ref() is None


def test_changed_on_the_way_back_is_a_new_view_of_the_same_memory(mod):
    left = kokkos.array("l", [3, 2], dtype=kokkos.double, layout=kokkos.LayoutLeft)
    as_stride = mod.echo_float64_2_stride(left)  # C++ sees it as LayoutStride
    assert as_stride is not left and as_stride.layout == kokkos.LayoutStride
    assert as_stride.allocation is left.allocation and as_stride.data == left.data
    assert as_stride.strides == left.strides and as_stride.label == "l"
    const = mod.sum_const  # a const View of writable memory: still the same object is not promised
    assert const(kokkos.array("c", [2], dtype=kokkos.double)) == 0.0


def test_cpp_view_of_python_memory_dies_on_another_thread(mod):
    a = np.arange(6.0).reshape(3, 2)
    ref = weakref.ref(a)
    mod.hold(a)
    del a
    gc.collect()
    assert ref() is not None and mod.held_use_counts() == [1]  # C++ holds the only copy
    mod.release_held_on_thread()  # destroyed on a thread, while this one released the GIL
    gc.collect()
    assert ref() is None


def test_python_subview_to_cpp(mod):
    w = kokkos.array("parent", [4, 4], dtype=kokkos.double)
    sub = w[1:3, :]
    mod.hold(sub)
    del w, sub
    gc.collect()
    mod.set_held(9.0)
    assert mod.get_held(0).data != 0 and np.asarray(mod.get_held(0))[0, 0] == 9.0


def test_no_leaks_over_many_round_trips(mod):
    w = kokkos.array("loop", [16, 2], dtype=kokkos.double)
    alloc = w.allocation
    before = sys.getrefcount(alloc)
    kept = mod.make_kept(4)
    for _ in range(20000):
        mod.echo_2d(w)
        mod.echo_2d(kept)
        mod.probe(w)
    gc.collect()
    assert sys.getrefcount(alloc) == before
    assert mod.held_use_counts() == [2]  # every heap copy made on the way was dropped


def test_memory_flat_over_many_cpp_views(mod):
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096

    for _ in range(2000):
        mod.make_float64_2_right([8, 8])
    gc.collect()
    start = rss()
    for _ in range(100000):
        v = mod.make_float64_2_right([8, 8])
        mod.echo_float64_2_right(v)
    del v
    gc.collect()
    assert rss() - start < 16 * 2**20
