"""Pickling Views and DynRankViews: every dtype, rank 0..8, every layout,
protocols 0..5 (protocol 5 in band and out of band), what the round trip
restores, what it shares, and every error path."""

import copy
import gc
import multiprocessing
import pickle
import sys

import numpy as np
import pytest

import kokkos
import kokkos.pickling
from support import DTYPES, HAS_CUDA, LAYOUTS, NP_DTYPES, cuda, run_scenario, sample, shape_of, succeeded

MODES = [
    "protocol0",
    "protocol1",
    "protocol2",
    "protocol3",
    "protocol4",
    "protocol5-inband",
    "protocol5-outofband",
]


def round_trip(view, mode):
    if mode == "protocol5-outofband":
        buffers = []
        data = pickle.dumps(view, protocol=5, buffer_callback=buffers.append)
        return pickle.loads(data, buffers=buffers)
    protocol = 5 if mode == "protocol5-inband" else int(mode[-1])
    return pickle.loads(pickle.dumps(view, protocol=protocol))


def filled(
    shape,
    dt,
    layout=kokkos.LayoutRight,
    label="pickled",
    dynamic=False,
    trait=kokkos.Managed,
    seed=0,
):
    cls = kokkos.DynRankView if dynamic else kokkos.View
    v = cls(shape, dt, label=label, layout=layout, trait=trait)
    np.asarray(v)[...] = sample(NP_DTYPES[dt], shape, seed)
    return v


def check_restored(v, w, mode):
    assert type(w) is type(v)
    assert w.dynamic == v.dynamic
    assert w.dtype == v.dtype
    assert w.shape == v.shape
    assert w.layout == v.layout
    assert w.label == v.label
    assert w.space == v.space
    assert w.strides == v.strides
    assert not w.readonly
    # Only out of band does the View share the buffer it is given; in band
    # pickle hands back a bytearray (bytes when read-only), copied as
    # protocol 4's bytes are.
    want_trait = v.trait | kokkos.Unmanaged if mode == "protocol5-outofband" else v.trait
    assert w.trait == want_trait
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))


def shares_memory(v, w):
    return np.shares_memory(np.asarray(v), np.asarray(w))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda x: x.name)
@pytest.mark.parametrize("rank", range(9))
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_round_trip_every_dtype_rank_layout(dt, rank, layout, mode):
    v = filled(shape_of(rank), dt, layout)
    w = round_trip(v, mode)
    check_restored(v, w, mode)
    if v.size > 0:
        # Out of band the View comes back over the very buffer pickle was
        # handed (no copy); every other way it is a copy of its own.
        assert shares_memory(v, w) == (mode == "protocol5-outofband")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda x: x.name)
@pytest.mark.parametrize("rank", range(8))
@pytest.mark.parametrize("dt", [kokkos.float64, kokkos.complex64, kokkos.int16, kokkos.bool], ids=lambda d: d.name)
def test_round_trip_dyn_rank_view(dt, rank, layout, mode):
    v = filled(shape_of(rank, base=1), dt, layout, label="dyn", dynamic=True)
    w = round_trip(v, mode)
    assert isinstance(w, kokkos.DynRankView)
    check_restored(v, w, mode)


@pytest.mark.parametrize("mode", MODES)
def test_layout_left_rank1_comes_back_layout_left(mode):
    # Rank 1: LayoutLeft and LayoutRight strides are the same; the layout
    # is still what the View said.
    v = filled((10,), kokkos.float64, kokkos.LayoutLeft)
    assert round_trip(v, mode).layout == kokkos.LayoutLeft
    w = filled((1, 6, 1), kokkos.int32, kokkos.LayoutLeft)
    assert round_trip(w, mode).layout == kokkos.LayoutLeft


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "trait",
    [kokkos.RandomAccess, kokkos.Atomic, kokkos.Restrict, kokkos.RandomAccess | kokkos.Restrict],
    ids=str,
)
def test_memory_traits_restored(trait, mode):
    v = filled((3, 4), kokkos.float32, trait=trait)
    w = round_trip(v, mode)
    assert w.trait & ~kokkos.Unmanaged == trait
    assert bool(w.trait & kokkos.Unmanaged) == (mode == "protocol5-outofband")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (4, 0, 2)])
def test_empty_views(shape, mode):
    v = kokkos.View(shape, kokkos.complex128, label="empty", layout=kokkos.LayoutLeft)
    w = round_trip(v, mode)
    assert w.shape == shape and w.size == 0 and w.layout == kokkos.LayoutLeft and w.label == "empty"


@pytest.mark.parametrize("mode", MODES)
def test_labels_survive(mode):
    for label in ["", "a b/c:d", "Ωμέγα ⚙", "x" * 300]:
        assert round_trip(filled((2,), kokkos.int8, label=label), mode).label == label


@pytest.mark.parametrize("mode", MODES)
def test_strided_subview_comes_back_contiguous(mode):
    v = filled((6, 8), kokkos.float64, label="grid")
    sub = v[1:5, ::3]
    assert not sub.is_contiguous and sub.layout == kokkos.LayoutStride
    w = round_trip(sub, mode)
    assert w.is_contiguous and w.layout == kokkos.LayoutStride
    assert w.shape == sub.shape and w.label == "grid"
    np.testing.assert_array_equal(np.asarray(w), np.asarray(sub))
    assert not shares_memory(w, v)


def test_contiguous_subview_pickles_only_its_elements():
    v = filled((1000, 100), kokkos.float64)
    row = v[10, :]
    assert row.is_contiguous
    assert len(pickle.dumps(row, protocol=5)) < 100 * 8 + 400
    assert len(pickle.dumps(v, protocol=5)) > 1000 * 100 * 8
    np.testing.assert_array_equal(np.asarray(round_trip(row, "protocol4")), np.asarray(v)[10])


def test_out_of_band_payload_is_not_in_the_stream():
    v = filled((512, 512), kokkos.float64)
    buffers = []
    data = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    assert len(data) < 1000
    assert len(buffers) == 1 and buffers[0].raw().nbytes == v.nbytes
    # The buffer exports the View's own memory: no copy was made.
    with buffers[0].raw() as raw:
        assert np.shares_memory(np.frombuffer(raw, dtype=np.uint8), np.asarray(v))


def test_out_of_band_from_a_transport_buffer_shares_a_memoryview_of_it():
    # What a transport delivers: a bytearray of its own (writable), or bytes.
    # Handed over as a memoryview, the View lives in it.
    v = filled((4, 5), kokkos.int64, kokkos.LayoutLeft, label="moved", trait=kokkos.Restrict)
    buffers = []
    data = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    received = bytearray(buffers[0].raw())
    w = pickle.loads(data, buffers=[memoryview(received)])
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))
    assert w.layout == kokkos.LayoutLeft and not w.readonly
    assert w.trait == kokkos.Restrict | kokkos.Unmanaged
    np.asarray(w)[0, 0] = 12345
    assert int.from_bytes(received[:8], sys.byteorder, signed=True) == 12345
    r = pickle.loads(data, buffers=[memoryview(bytes(buffers[0].raw()))])
    assert r.readonly and r.trait == kokkos.Restrict | kokkos.Unmanaged
    with pytest.raises(ValueError, match="is read-only"):
        r[0, 0] = 1


@pytest.mark.parametrize("kind", [bytes, bytearray])
def test_out_of_band_bytes_or_bytearray_is_copied(kind):
    # Exactly bytes or bytearray is what pickle makes in band: the View gets
    # memory of its own and the pickled traits, as protocol 4 gives.
    v = filled((4, 5), kokkos.int64, kokkos.LayoutLeft, label="moved", trait=kokkos.Restrict)
    buffers = []
    data = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    received = kind(buffers[0].raw())
    before = sys.getrefcount(received)
    w = pickle.loads(data, buffers=[received])
    assert sys.getrefcount(received) == before  # not held
    assert w.trait == kokkos.Restrict and not w.readonly and w.label == "moved"
    assert w.layout == kokkos.LayoutLeft
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))
    assert not np.shares_memory(np.asarray(w), np.frombuffer(received, np.uint8))
    np.asarray(w)[0, 0] = 12345
    assert int.from_bytes(received[:8], sys.byteorder, signed=True) == np.asarray(v)[0, 0]
    if kind is bytearray:
        received.extend(b"1234")  # no export of it is left


class _Bytes(bytes):
    pass


@pytest.mark.parametrize(
    "wrap",
    [
        lambda b: pickle.PickleBuffer(bytearray(b)),
        lambda b: memoryview(bytearray(b)),
        lambda b: np.frombuffer(bytearray(b), np.uint8),
        _Bytes,
    ],
    ids=["PickleBuffer", "memoryview", "numpy", "bytes-subclass"],
)
def test_out_of_band_other_buffers_stay_zero_copy(wrap):
    v = filled((3, 7), kokkos.float32, trait=kokkos.RandomAccess)
    buffers = []
    data = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    received = wrap(buffers[0].raw().tobytes())
    w = pickle.loads(data, buffers=[received])
    assert w.trait == kokkos.RandomAccess | kokkos.Unmanaged
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))
    with memoryview(received) as mv:
        assert np.shares_memory(np.asarray(w), np.frombuffer(mv, np.uint8))


def test_out_of_band_from_an_mmap_stays_zero_copy(tmp_path):
    import mmap

    v = filled((16,), kokkos.int32, trait=kokkos.Atomic)
    buffers = []
    data = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    path = tmp_path / "payload"
    path.write_bytes(buffers[0].raw())
    with open(path, "r+b") as f:
        m = mmap.mmap(f.fileno(), 0)
    w = pickle.loads(data, buffers=[m])
    assert w.trait == kokkos.Atomic | kokkos.Unmanaged and not w.readonly
    np.asarray(w)[3] = -7
    assert int.from_bytes(m[12:16], sys.byteorder, signed=True) == -7
    with pytest.raises(BufferError):
        m.close()  # the View holds an export
    del w
    gc.collect()
    m.close()


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda x: x.name)
@pytest.mark.parametrize(
    "trait",
    [
        kokkos.Managed,
        kokkos.RandomAccess,
        kokkos.Atomic,
        kokkos.Restrict,
        kokkos.RandomAccess | kokkos.Restrict,
        kokkos.Unmanaged,
        kokkos.Unmanaged | kokkos.Restrict,
    ],
    ids=str,
)
@pytest.mark.parametrize("dt", [kokkos.float64, kokkos.int8, kokkos.complex64, kokkos.uint32], ids=lambda d: d.name)
def test_in_band_round_trip_is_the_same_under_every_protocol(dt, trait, layout, protocol):
    # pickle.dumps / loads as they come (in band): every protocol gives a
    # View of its own with the pickled traits (Unmanaged is never pickled).
    base = filled((5, 3), dt, layout, label="same", trait=kokkos.Managed if trait & kokkos.Unmanaged else trait)
    v = base
    if trait & kokkos.Unmanaged:
        v = kokkos.array(np.asarray(base), trait=trait, label="same")
        assert v.trait == trait  # LayoutStride comes back LayoutRight here
    w = pickle.loads(pickle.dumps(v, protocol=protocol))
    assert w.trait == trait & ~kokkos.Unmanaged
    assert (w.dtype, w.shape, w.layout, w.label, w.space) == (v.dtype, v.shape, v.layout, v.label, v.space)
    assert not w.readonly
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))
    assert not shares_memory(v, w)


def test_restored_view_keeps_its_buffer_alive():
    v = filled((1000,), kokkos.float32)
    buffers = []
    data = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    received = bytearray(buffers[0].raw())
    before = sys.getrefcount(received)
    w = pickle.loads(data, buffers=[memoryview(received)])
    assert sys.getrefcount(received) == before + 1
    with pytest.raises(BufferError):
        received.extend(b"1234")  # exported: cannot be resized under the View
    expected = np.asarray(v).copy()
    del data, buffers
    np.testing.assert_array_equal(np.asarray(w), expected)
    del w
    gc.collect()
    assert sys.getrefcount(received) == before
    received.extend(b"1234")


def test_readonly_view():
    ro = kokkos.array(bytes(range(16)))
    assert ro.readonly
    assert round_trip(ro, "protocol5-outofband").readonly  # over ro's own memory
    for mode in ("protocol4", "protocol5-inband"):  # a new View of its own
        w = round_trip(ro, mode)
        assert not w.readonly and list(np.asarray(w)) == list(range(16))


def test_misaligned_buffer_is_copied_to_aligned_memory():
    v = filled((33,), kokkos.complex128, label="c")
    buffers = []
    data = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    store = bytearray(v.nbytes + 1)
    store[1:] = buffers[0].raw()
    odd = memoryview(store)[1:]  # one byte off: not aligned for complex128
    w = pickle.loads(data, buffers=[odd])
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))
    assert w.data % 16 == 0
    assert not np.shares_memory(np.asarray(w), np.frombuffer(store, np.uint8))
    assert w.label == "c"


def test_copy_and_deepcopy_give_managed_copies():
    v = filled((3, 4), kokkos.float64, kokkos.LayoutLeft, label="orig", trait=kokkos.RandomAccess)
    for w in (copy.copy(v), copy.deepcopy(v)):
        assert w.trait == kokkos.RandomAccess and w.layout == kokkos.LayoutLeft and w.label == "orig"
        assert not shares_memory(v, w)
        np.testing.assert_array_equal(np.asarray(w), np.asarray(v))


def test_views_inside_containers_and_shared_references():
    v = filled((5,), kokkos.int32)
    data = pickle.dumps({"a": v, "b": [v, v[1:3]]}, protocol=5)
    out = pickle.loads(data)
    assert out["a"] is out["b"][0]  # pickle's memo keeps identity
    np.testing.assert_array_equal(np.asarray(out["b"][1]), np.asarray(v)[1:3])


def test_across_processes_with_multiprocessing():
    v = filled((20, 30), kokkos.float32, kokkos.LayoutLeft, label="travels", trait=kokkos.Restrict)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        # The child unpickles the View, copies it and pickles the copy back.
        w = pool.apply(copy.copy, (v,))
    assert w.label == "travels" and w.layout == kokkos.LayoutLeft and w.trait == kokkos.Restrict
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))


# ---- memory spaces ---------------------------------------------------------------------


def test_restore_space_context():
    v = filled((4,), kokkos.float64)
    blob = pickle.dumps(v, protocol=5)
    with kokkos.pickling.restore_space("HostSpace") as name:
        assert name == "HostSpace"
        w = pickle.loads(blob)
    assert w.space == kokkos.HostSpace
    assert kokkos.pickling._restore_space.get() is None
    with (
        pytest.raises((ValueError, TypeError), match="memory space|NoSuchSpace"),
        kokkos.pickling.restore_space("NoSuchSpace"),
    ):
        pass


META = (1, "float64", (3,), "LayoutRight", "gpu", "CudaSpace", False, 0)


@pytest.mark.skipif(HAS_CUDA, reason="needs a Kokkos without CudaSpace")
@pytest.mark.parametrize("rebuild", ["_rebuild_buffer", "_rebuild_value"])
def test_unavailable_space_is_a_clear_error_and_restore_space_recovers(rebuild):
    fn = getattr(kokkos.pickling, rebuild)
    data = np.arange(3.0).tobytes()
    with pytest.raises(
        RuntimeError,
        match=r"pickled from CudaSpace, which this Kokkos does not have.*restore_space",
    ):
        fn(data, META)
    with kokkos.pickling.restore_space(kokkos.HostSpace):
        w = fn(data, META)
    assert w.space == kokkos.HostSpace and w.label == "gpu"
    assert list(np.asarray(w)) == [0.0, 1.0, 2.0]


@cuda
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda x: x.name)
def test_device_views_go_through_a_host_copy(layout, mode):
    v = kokkos.View((6, 5), kokkos.complex64, label="dev", space="CudaSpace", layout=layout)
    host = sample(np.dtype(np.complex64), (6, 5))
    kokkos.deep_copy(v, np.asarray(host, order="F" if layout == kokkos.LayoutLeft else "C"))
    w = round_trip(v, mode)
    assert w.space == v.space and w.layout == v.layout and w.label == "dev" and w.shape == (6, 5)
    assert w.trait == v.trait  # a new Kokkos allocation in every mode
    np.testing.assert_array_equal(np.asarray(w.create_mirror_view(copy=True)), host)
    with kokkos.pickling.restore_space("HostSpace"):
        h = round_trip(v, mode)
    assert h.space == kokkos.HostSpace
    np.testing.assert_array_equal(np.asarray(h), host)


# ---- errors ---------------------------------------------------------------------------------


def test_released_view_cannot_be_pickled():
    proc = run_scenario("released_views", "pickling")
    succeeded(proc)
    assert proc.stdout.count("RuntimeError: cannot pickle View 'gone': it was released when Kokkos was finalized") == 2


def test_other_pickle_form_is_refused():
    meta = (99,) + META[1:]
    with pytest.raises(ValueError, match="pickled in form 99, this kokkos reads form 1"):
        kokkos.pickling._rebuild_buffer(bytes(24), meta)
    with pytest.raises(ValueError, match="pickled in form 'junk'"):
        kokkos.pickling._rebuild_value(bytes(24), "junk")


def test_damaged_pickle_is_refused():
    v = filled((10,), kokkos.float64)
    buffers = []
    data = pickle.dumps(v, protocol=5, buffer_callback=buffers.append)
    with pytest.raises(
        ValueError,
        match="holds 79 bytes, but a float64 View of this shape needs 80; the pickle is damaged",
    ):
        pickle.loads(data, buffers=[bytes(79)])
    with pytest.raises(ValueError, match="not contiguous"):
        pickle.loads(data, buffers=[memoryview(bytearray(160))[::2]])
    with pytest.raises(pickle.UnpicklingError):
        pickle.loads(data)  # out-of-band buffers not given


@pytest.mark.parametrize(
    "args, exc, match",
    [
        ((b"",), TypeError, "takes \\(buf, dtype, shape, layout, label, dynamic, traits\\), got 1"),
        ((b"", "float64", [3], 0, None, False, 0), TypeError, "shape must be a tuple"),
        ((b"", "float64", (-1,), 0, None, False, 0), ValueError, "shape\\[0\\] must be >= 0"),
        (
            (b"", "float64", (1,) * 9, 0, None, False, 0),
            ValueError,
            "rank 9 is larger than the maximum 8",
        ),
        (
            (b"", "float64", (1,) * 8, 0, None, True, 0),
            ValueError,
            "rank 8 is larger than the maximum 7",
        ),
        ((b"", "float64", (0,), 0, 5, False, 0), TypeError, "label must be a str or None"),
        ((b"", "float128", (0,), 0, None, False, 0), (TypeError, ValueError), "float128"),
        (
            (b"", "float64", (0,), "LayoutDiagonal", None, False, 0),
            (TypeError, ValueError),
            "LayoutDiagonal",
        ),
        ((12, "float64", (0,), 0, None, False, 0), TypeError, "must come as a buffer .*got int"),
    ],
)
def test_view_from_bytes_argument_errors(args, exc, match):
    with pytest.raises(exc, match=match):
        kokkos._core._view_from_bytes(*args)
