"""deep_copy between Views of every layout pair, from NumPy arrays, buffers,
sequences and scalars; mirrors."""

import re
import threading

import numpy as np
import pytest

import kokkos
from support import DTYPES, NP_DTYPES, SPACES, sample, shape_of


def make(kind, dt, shape):
    """A View of the given layout kind; 'stride' is a strided subview."""
    if kind == "stride":
        big = kokkos.array([s * 2 for s in shape] or [], dtype=dt)
        return big[tuple(slice(None, None, 2) for _ in shape)] if shape else big
    return kokkos.array(list(shape), dtype=dt, layout=kokkos.LayoutRight if kind == "right" else kokkos.LayoutLeft)


KINDS = ["right", "left", "stride"]


@pytest.mark.parametrize("src_kind", KINDS)
@pytest.mark.parametrize("dst_kind", KINDS)
@pytest.mark.parametrize("rank", [0, 1, 2, 3, 5, 8])
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_view_to_view(dt, rank, dst_kind, src_kind):
    shape = shape_of(rank)
    src = make(src_kind, dt, shape)
    dst = make(dst_kind, dt, shape)
    ref = sample(NP_DTYPES[dt], shape, seed=rank)
    np.asarray(src)[...] = ref
    kokkos.deep_copy(dst, src)
    np.testing.assert_array_equal(np.asarray(dst), ref)


@pytest.mark.parametrize("layout", [kokkos.LayoutRight, kokkos.LayoutLeft])
def test_transpose_copy_large(layout):
    src = kokkos.array([300, 257], dtype=kokkos.float64)
    ref = np.arange(300 * 257, dtype=np.float64).reshape(300, 257)
    kokkos.deep_copy(src, ref)
    dst = kokkos.array([300, 257], dtype=kokkos.float64, layout=kokkos.LayoutLeft)
    kokkos.deep_copy(dst, src)
    np.testing.assert_array_equal(np.asarray(dst), ref)
    back = kokkos.array([300, 257], layout=layout)
    back.deep_copy(dst)
    np.testing.assert_array_equal(np.asarray(back), ref)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_scalar_fill(dt):
    v = kokkos.array([3, 4], dtype=dt)
    one = NP_DTYPES[dt].type(1).item()
    kokkos.deep_copy(v, one)
    assert np.asarray(v).tolist() == np.full((3, 4), one, NP_DTYPES[dt]).tolist()
    sub = v[:, 1]
    kokkos.deep_copy(sub, 0)
    assert np.asarray(v)[:, 1].tolist() == [0, 0, 0]
    kokkos.deep_copy(v, NP_DTYPES[dt].type(0))
    assert not np.asarray(v).any()


def test_rank0_fill_and_copy():
    v = kokkos.View(())
    kokkos.deep_copy(v, 2.5)
    assert v[()] == 2.5
    w = kokkos.View((3,))
    kokkos.deep_copy(w, v)
    assert list(w) == [2.5, 2.5, 2.5]


def test_from_numpy_and_buffers():
    v = kokkos.array([2, 3], dtype=kokkos.int32)
    kokkos.deep_copy(v, np.arange(6, dtype=np.int32).reshape(2, 3))
    assert np.asarray(v).tolist() == [[0, 1, 2], [3, 4, 5]]
    kokkos.deep_copy(v, np.arange(6, dtype=np.int64).reshape(2, 3) * 2)
    assert v[1, 2] == 10
    kokkos.deep_copy(v, [[1, 1, 1], [2, 2, 2]])
    assert v[1, 0] == 2
    kokkos.deep_copy(v, np.arange(6, dtype=np.int32).reshape(3, 2).T)
    assert np.asarray(v).tolist() == [[0, 2, 4], [1, 3, 5]]
    f = kokkos.array([4], dtype=kokkos.float64)
    f.deep_copy(np.arange(4, dtype=np.float32))
    assert list(f) == [0.0, 1.0, 2.0, 3.0]


def test_view_to_view_other_dtype():
    a = kokkos.array([3], dtype=kokkos.int32)
    kokkos.deep_copy(a, [1, 2, 3])
    b = kokkos.array([3], dtype=kokkos.float64)
    kokkos.deep_copy(b, a)
    assert list(b) == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    "dst_shape,src,exc,match",
    [
        ((2, 3), np.zeros((3, 2)), ValueError, r"shapes differ: destination \(2, 3\), source \(3, 2\)"),
        ((2,), np.zeros(3), ValueError, "shapes differ"),
        ((2,), "abc", ValueError, "could not convert string"),
        ((2,), object(), TypeError, "must be a string or a real number"),
        ((2,), 1j, TypeError, "cannot store a complex"),
    ],
)
def test_bad_copies(dst_shape, src, exc, match):
    v = kokkos.array(list(dst_shape))
    with pytest.raises(exc, match=match):
        kokkos.deep_copy(v, src)


def test_deep_copy_argument_errors():
    with pytest.raises(TypeError, match="dst must be a kokkos View"):
        kokkos.deep_copy(np.zeros(2), kokkos.View((2,)))
    with pytest.raises(TypeError, match=r"kokkos.deep_copy\(\): missing required argument 'src'"):
        kokkos.deep_copy(kokkos.View((2,)))
    with pytest.raises(TypeError, match=r"kokkos.deep_copy\(\): takes 2 positional arguments but 3 were given"):
        kokkos.deep_copy(kokkos.View((2,)), 1, 2)
    with pytest.raises(TypeError, match="unexpected keyword"):
        kokkos.deep_copy(kokkos.View((2,)), 1, bogus=2)
    with pytest.raises(TypeError, match=r"View.deep_copy\(\): missing required argument 'src'"):
        kokkos.View((2,)).deep_copy()
    kokkos.deep_copy(dst=kokkos.View((2,)), src=1.0)


def test_overlapping_self_copy_is_noop():
    v = kokkos.array([4])
    kokkos.deep_copy(v, [1, 2, 3, 4])
    kokkos.deep_copy(v, v)
    assert list(v) == [1, 2, 3, 4]


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("layout", [kokkos.LayoutRight, kokkos.LayoutLeft])
def test_mirrors(layout, dynamic):
    a = kokkos.array("a", [3, 2], dtype=kokkos.float32, layout=layout, dynamic=dynamic)
    kokkos.deep_copy(a, np.arange(6, dtype=np.float32).reshape(3, 2))
    m = a.create_mirror()
    assert m.label == "a_mirror" and m.layout == layout and m.dynamic == dynamic
    assert m.space == kokkos.HostSpace and m.shape == a.shape
    np.testing.assert_array_equal(np.asarray(m), np.asarray(a))
    assert not np.shares_memory(np.asarray(m), np.asarray(a))
    empty = kokkos.create_mirror(a)
    assert not np.asarray(empty).any(), "free create_mirror defaults to copy=False"
    kokkos.deep_copy(empty, a)
    np.testing.assert_array_equal(np.asarray(empty), np.asarray(a))
    mv = a.create_mirror_view()
    assert mv is a, "a host View is its own mirror view"
    assert kokkos.create_mirror_view(a) is a
    assert a.create_mirror(copy=False, space=kokkos.HostSpace).shape == a.shape


def test_mirror_of_strided_view():
    a = kokkos.array([4, 4])
    kokkos.deep_copy(a, np.arange(16.0).reshape(4, 4))
    sub = a[::2, 1]
    m = sub.create_mirror()
    assert m.is_contiguous and list(m) == [1.0, 9.0]


def test_mirror_argument_errors():
    a = kokkos.View((2,))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        a.create_mirror(bogus=1)
    with pytest.raises(ValueError, match="unknown memory space"):
        a.create_mirror(space="Mars")


def test_copies_release_the_gil():
    big = kokkos.array([4_000_000])
    other = kokkos.array([4_000_000])
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        for _ in range(20):
            kokkos.deep_copy(big, other)
            kokkos.deep_copy(big, 1.0)
    finally:
        stop.set()
        t.join()
    assert ticks, "another thread ran while copies were in flight"
    assert big[3_999_999] == 1.0


def test_threads_create_copy_destroy():
    errors = []

    def work(seed):
        try:
            for i in range(200):
                v = kokkos.array([64], dtype=kokkos.int64)
                kokkos.deep_copy(v, np.full(64, seed + i))
                m = v.create_mirror()
                assert m[63] == seed + i
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k * 1000,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize("space", SPACES, ids=str)
def test_copy_between_available_spaces(space):
    a = kokkos.array([5], space=space)
    host = kokkos.array([5])
    kokkos.deep_copy(host, np.arange(5.0))
    kokkos.deep_copy(a, host)
    back = a.create_mirror_view(copy=True)
    assert list(np.asarray(back)) == [0.0, 1.0, 2.0, 3.0, 4.0]


@pytest.fixture
def deep_copy_events():
    """begin/end_deep_copy events as (dst space, dst label, dst address, src
    space, src label, bytes) tuples and "end" markers."""
    import kokkos.tools as kt

    events = []
    kt.set_begin_deep_copy_callback(lambda ds, dl, dp, ss, sl, sp, n: events.append((ds.name, dl, dp, ss.name, sl, n)))
    kt.set_end_deep_copy_callback(lambda: events.append("end"))
    try:
        yield events
    finally:
        kt.set_begin_deep_copy_callback(None)
        kt.set_end_deep_copy_callback(None)


@pytest.mark.parametrize("src_kind,dst_kind", [("right", "left"), ("stride", "right"), ("left", "stride")])
def test_strided_copies_are_reported_to_tools(deep_copy_events, src_kind, dst_kind):
    # Kokkos::deep_copy reports every copy, contiguous or not; the core's own
    # strided copies do the same, with both Views' labels and addresses.
    src = make(src_kind, kokkos.float64, (3, 4))
    dst = make(dst_kind, kokkos.float64, (3, 4))
    np.asarray(src)[...] = np.arange(12.0).reshape(3, 4)
    kokkos.deep_copy(dst, src)
    np.testing.assert_array_equal(np.asarray(dst), np.arange(12.0).reshape(3, 4))
    address = np.asarray(dst).__array_interface__["data"][0]
    # "Host" is Kokkos::HostSpace::name()
    assert deep_copy_events == [("Host", dst.label, address, "Host", src.label, 12 * 8), "end"]


@pytest.mark.parametrize("kind", ["right", "stride"])
def test_scalar_fill_is_reported_to_tools(deep_copy_events, kind):
    dst = make(kind, kokkos.int32, (5,))
    kokkos.deep_copy(dst, 7)
    assert np.asarray(dst).tolist() == [7] * 5
    (begin, end) = deep_copy_events
    assert begin[1] == dst.label and begin[4] == "Scalar" and begin[5] == 5 * 4
    assert begin[2] == np.asarray(dst).__array_interface__["data"][0]
    assert end == "end"


def test_copies_are_silent_without_a_listener():
    import kokkos.tools as kt

    calls = []
    kt.set_begin_deep_copy_callback(lambda *a: calls.append(a))
    kt.set_begin_deep_copy_callback(None)
    kokkos.deep_copy(make("left", kokkos.float32, (2, 3)), make("right", kokkos.float32, (2, 3)))
    assert calls == []


@pytest.mark.parametrize("shape", [(1000, 1000), (3000, 17), (17, 3000), (60, 50, 40)])
@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.complex128])
def test_large_host_copies_and_fills_match_numpy(shape, dtype):
    # From 1 MiB on, host copies and fills run without the GIL and, with a
    # multi-threaded Kokkos (OpenMP), split across its host threads.
    src = (np.arange(np.prod(shape)) % 101).astype(dtype).reshape(shape)
    right = kokkos.array(src, copy=True)
    left = kokkos.View(shape, kokkos.read_dtype(np.dtype(dtype)), layout=kokkos.LayoutLeft)
    kokkos.deep_copy(left, right)  # LayoutRight -> LayoutLeft (tiled)
    assert (np.asarray(left) == src).all()
    back = kokkos.View(shape, kokkos.read_dtype(np.dtype(dtype)))
    kokkos.deep_copy(back, left)
    assert (np.asarray(back) == src).all()
    kokkos.deep_copy(back, 7)  # contiguous fill
    assert (np.asarray(back) == 7).all()
    sub = left[1:-1, ::2] if len(shape) == 2 else left[:, 1:, ::3]
    kokkos.deep_copy(sub, 5)  # strided fill
    expect = src.copy()
    (expect[1:-1, ::2] if len(shape) == 2 else expect[:, 1:, ::3])[...] = 5
    assert (np.asarray(left) == expect).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.int8, np.complex128])
@pytest.mark.parametrize("offset", [0, 1, 3])
def test_very_large_fills_write_exactly_the_view(dtype, offset):
    # From 16 MiB on, contiguous host fills use non-temporal stores: an
    # aligned body, plain stores for the unaligned head and the tail. The
    # View starts `offset` elements into a NumPy array, so the head varies;
    # the elements around it must stay untouched.
    n = (1 << 24) // np.dtype(dtype).itemsize + 5
    base = np.zeros(n + 8, dtype=dtype)
    inside = base[offset : offset + n]
    kokkos.deep_copy(kokkos.asarray(inside), 3)
    assert (inside == 3).all()
    assert (base[:offset] == 0).all() and (base[offset + n :] == 0).all()


def test_very_large_fill_of_unaligned_memory_falls_back_to_plain_stores():
    # float64 elements one byte off their alignment: no streamed stores
    # (they need element-aligned memory); the plain loop fills it instead.
    n = (1 << 24) // 8 + 5
    raw = np.zeros(n * 8 + 9, dtype=np.uint8)
    inside = raw[1 : 1 + n * 8].view(np.float64)
    view = kokkos.asarray(inside)
    assert view.data % 8 == 1
    kokkos.deep_copy(view, 3.0)
    assert (inside == 3.0).all()
    assert raw[0] == 0 and not raw[1 + n * 8 :].any()


# ---- messages name the call the user made (issue 26) ----------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda v, s: kokkos.deep_copy(v, s), r"kokkos\.deep_copy\(\)"),
        (lambda v, s: v.deep_copy(s), r"View\.deep_copy\(\)"),
    ],
)
@pytest.mark.parametrize(
    "src, exc, kind, why",
    [
        ("hello", ValueError, "str", "could not convert string to float: 'hello'"),
        (object(), TypeError, "object", "must be a string or a real number"),
    ],
)
def test_deep_copy_of_an_unconvertible_source_names_call_view_and_sources(call, name, src, exc, kind, why):
    v = kokkos.array([2], label="dst")
    with pytest.raises(exc) as info:
        call(v, src)
    msg = str(info.value)
    assert re.match(
        name + rf": cannot copy an object of type {kind} into View 'dst' \(float64\): .*{why}.*"
        r"The source may be a View, an array or buffer of the same shape",
        msg,
    ), msg
    assert isinstance(info.value.__cause__, exc)  # NumPy's own error, kept


def test_deep_copy_of_a_number_string_still_fills():
    v = kokkos.array([2])
    kokkos.deep_copy(v, "1.5")
    assert list(v) == [1.5, 1.5]


def test_create_mirror_view_and_copy_with_swapped_arguments():
    v = kokkos.array([2])
    with pytest.raises(
        TypeError,
        match=r"kokkos\.create_mirror_view_and_copy\(\): the arguments are \(space, view\), but the first is a View "
        r"and the second a memory_space: they look swapped",
    ):
        kokkos.create_mirror_view_and_copy(v, kokkos.HostSpace)
    with pytest.raises(TypeError, match=r"first is a View and the second a str: they look swapped"):
        kokkos.create_mirror_view_and_copy(v, "HostSpace")
    # two Views: not a swap, src is a View and space is checked as a space
    with pytest.raises(TypeError, match=r"create_mirror_view_and_copy\(\).*space"):
        kokkos.create_mirror_view_and_copy(v, v)
    assert kokkos.create_mirror_view_and_copy(kokkos.HostSpace, v) is v
