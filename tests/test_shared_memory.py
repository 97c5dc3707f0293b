"""Views over multiprocessing.shared_memory: wrapping a segment as an
Unmanaged View, what keeps the segment alive, what shm.close() does while a
View lives (a BufferError, never a crash), and Views shared between
processes."""

import gc
import pickle
import sys
from multiprocessing import shared_memory

import numpy as np
import pytest

import kokkos
from support import DTYPES, NP_DTYPES, run_scenario, sample, succeeded

# memoryview.cast has no complex formats and no 'e' (half)
CASTABLE = [d for d in DTYPES if NP_DTYPES[d].kind != "c" and d != kokkos.float16]


@pytest.fixture
def shm():
    seg = shared_memory.SharedMemory(create=True, size=4096)
    yield seg
    gc.collect()
    try:
        seg.close()
    finally:
        seg.unlink()


def test_asarray_and_array_wrap_the_segment_without_copying(shm):
    for view in (kokkos.asarray(shm.buf), kokkos.array(shm.buf)):
        assert view.dtype == kokkos.uint8 and view.shape == (4096,)
        assert view.trait == kokkos.Unmanaged and view.space == kokkos.HostSpace
        view[7] = 42
        assert shm.buf[7] == 42
        shm.buf[8] = 9
        assert view[8] == 9
        del view


@pytest.mark.parametrize("dt", CASTABLE, ids=lambda d: d.name)
def test_typed_view_through_memoryview_cast(shm, dt):
    np_dt = NP_DTYPES[dt]
    shape = (4, 8)
    typed = shm.buf[: 32 * np_dt.itemsize].cast(memoryview(np.zeros(1, np_dt)).format.lstrip("<=@"), shape)
    view = kokkos.array(typed, label="shm")
    assert view.dtype == dt and view.shape == shape and view.label == "shm"
    values = sample(np_dt, shape)
    np.asarray(view)[...] = values
    np.testing.assert_array_equal(np.frombuffer(shm.buf, np_dt, count=32).reshape(shape), values)
    del view, typed


@pytest.mark.parametrize("order, layout", [("C", kokkos.LayoutRight), ("F", kokkos.LayoutLeft)])
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_typed_view_through_numpy_any_dtype_and_layout(shm, dt, order, layout):
    np_dt = NP_DTYPES[dt]
    shape = (3, 5)
    view = kokkos.asarray(np.ndarray(shape, np_dt, buffer=shm.buf, order=order))
    assert view.dtype == dt and view.layout == layout and view.shape == shape
    values = sample(np_dt, shape)
    kokkos.deep_copy(view, values)
    raw = np.frombuffer(shm.buf, np_dt, count=15).reshape(shape, order=order)
    np.testing.assert_array_equal(raw, values)
    del view


def test_view_keeps_the_segment_memoryview_alive(shm):
    buf = shm.buf
    before = sys.getrefcount(buf)
    view = kokkos.asarray(buf)
    assert sys.getrefcount(buf) > before
    del view
    gc.collect()
    assert sys.getrefcount(buf) == before
    del buf


def test_close_while_a_view_lives_is_a_buffer_error(shm):
    view = kokkos.asarray(shm.buf)
    view[0] = 5
    with pytest.raises(BufferError, match="memoryview has 1 exported buffer"):
        shm.close()
    # Nothing was unmapped: the View still reads and writes the segment.
    view[1] = 6
    assert shm.buf[0] == 5 and shm.buf[1] == 6
    del view
    gc.collect()
    shm.close()  # now it works
    with pytest.raises(TypeError):
        kokkos.asarray(shm.buf)  # None after close


def test_close_while_a_cast_view_lives_is_a_buffer_error(shm):
    view = kokkos.array(shm.buf.cast("d"))
    view[3] = 2.5
    # The segment's own memoryview can go, but the mapping cannot: the View
    # still holds it.
    with pytest.raises(BufferError, match="cannot close exported pointers exist"):
        shm.close()
    assert view[3] == 2.5
    view[4] = 1.5
    assert list(np.asarray(view)[3:5]) == [2.5, 1.5]
    del view
    gc.collect()
    shm.close()


def test_view_outlives_the_shared_memory_object():
    seg = shared_memory.SharedMemory(create=True, size=800)
    name = seg.name
    view = kokkos.array(seg.buf.cast("q"))
    np.asarray(view)[:] = np.arange(100)
    seen = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_type)
    try:
        del seg  # SharedMemory.__del__ tries close(): BufferError, reported, not raised
        gc.collect()
    finally:
        sys.unraisablehook = old_hook
    assert seen == [BufferError]
    assert int(np.asarray(view).sum()) == sum(range(100))  # still mapped
    del view
    gc.collect()
    again = shared_memory.SharedMemory(name=name)
    assert np.frombuffer(again.buf, np.int64, count=100)[99] == 99
    again.close()
    again.unlink()


def test_pickle_out_of_band_into_shared_memory(shm):
    # Shared memory as the transport of pickle protocol 5's out-of-band buffer.
    v = kokkos.View((10, 12), kokkos.complex64, label="field", layout=kokkos.LayoutLeft)
    kokkos.deep_copy(v, sample(np.dtype(np.complex64), (10, 12)))
    buffers = []
    meta = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    n = v.nbytes
    shm.buf[:n] = buffers[0].raw()
    w = pickle.loads(meta, buffers=[shm.buf[:n]])
    assert w.label == "field" and w.layout == kokkos.LayoutLeft and w.trait == kokkos.Unmanaged
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))
    w[0, 0] = 7 + 1j
    assert np.frombuffer(shm.buf, np.complex64, count=1)[0] == 7 + 1j
    del w


def test_views_of_one_segment_in_two_processes(shm):
    parent = kokkos.array(shm.buf[: 256 * 8].cast("d", (16, 16)), label="parent")
    np.asarray(parent)[:] = 1.0
    proc = succeeded(run_scenario("shared_memory_child", "add_through_a_view", shm.name))
    assert "BufferError: cannot close exported pointers exist" in proc.stdout
    assert "child done" in proc.stdout
    np.testing.assert_array_equal(np.asarray(parent), 1.0 + np.arange(256.0).reshape(16, 16))
    del parent
