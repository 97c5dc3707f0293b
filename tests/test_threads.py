"""Several Python threads at once: creating, copying (the core releases the
GIL around copies, fills and allocations), slicing, exporting and destroying
Views, and Kokkos Tools callbacks fired from those threads. Every result is
checked against NumPy; every thread's exception fails the test."""

import gc
import sys
import threading

import numpy as np
import pytest

import kokkos

THREADS = 4
LAYOUTS = [kokkos.LayoutRight, kokkos.LayoutLeft]


def run_threads(target, n=THREADS, timeout=300):
    """Starts n threads running target(i) together; re-raises the first
    exception any of them raised."""
    errors = []
    start = threading.Barrier(n)

    def body(i):
        try:
            start.wait()
            target(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((i, e))

    threads = [threading.Thread(target=body, args=(i,), name=f"kokkos-test-{i}") for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), f"{t.name} hangs"
    if errors:
        i, e = errors[0]
        raise AssertionError(f"thread {i} failed: {type(e).__name__}: {e}") from e


@pytest.fixture(autouse=True)
def _fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: more interleavings
    yield
    sys.setswitchinterval(old)


def test_independent_views_in_every_thread():
    """Each thread creates, fills, copies between layouts, slices, mirrors
    and drops its own Views; all results equal NumPy's."""

    def work(i):
        rng = np.random.default_rng(i)
        for it in range(40):
            shape = (int(rng.integers(1, 60)), int(rng.integers(1, 60)), 3)
            ref = rng.standard_normal(shape)
            a = kokkos.View(shape, layout=LAYOUTS[it % 2], label=f"t{i}a{it}")
            kokkos.deep_copy(a, ref)
            b = kokkos.View(shape, layout=LAYOUTS[(it + 1) % 2], label=f"t{i}b{it}")
            kokkos.deep_copy(b, a)  # strided host copy, GIL released
            sub = b[1:, ::2, ::-1]
            np.testing.assert_array_equal(np.asarray(sub), ref[1:, ::2, ::-1])
            m = sub.create_mirror()
            np.testing.assert_array_equal(np.asarray(m), ref[1:, ::2, ::-1])
            kokkos.deep_copy(b, float(i))
            assert float(b[0, 0, 0]) == float(i)
            del a, b, sub, m

    run_threads(work)


def test_threads_copy_into_disjoint_parts_of_one_view():
    n = 200_000
    shared = kokkos.View((THREADS, n), kokkos.int64, label="shared")
    sources = [np.arange(n, dtype=np.int64) * (i + 1) for i in range(THREADS)]

    def work(i):
        row = shared[i]
        for _ in range(30):
            kokkos.deep_copy(row, sources[i])
            kokkos.deep_copy(row, 0)
        kokkos.deep_copy(row, sources[i])

    run_threads(work)
    np.testing.assert_array_equal(np.asarray(shared), np.stack(sources))


def test_subviews_made_and_dropped_while_others_copy():
    """Reference counting of one shared Allocation under contention: some
    threads churn subviews and NumPy exports of a View, others copy into it."""
    v = kokkos.View((64, 1024), label="churned")
    alloc = v.allocation
    rows = np.arange(64 * 1024, dtype=np.float64).reshape(64, 1024)

    def work(i):
        for it in range(300):
            if i % 2:
                sub = v[it % 64, ::3]
                arr = np.asarray(sub)
                mv = memoryview(v[it % 64])
                assert arr.shape == (342,)
                mv.release()
                del sub, arr
            else:
                r = (it * 7 + i) % 64
                kokkos.deep_copy(v[r], rows[r])

    run_threads(work)
    gc.collect()
    assert alloc.exports == 0
    kokkos.deep_copy(v, rows)
    np.testing.assert_array_equal(np.asarray(v), rows)
    v = None  # drop the View while the Allocation is watched
    gc.collect()


def test_wrapped_numpy_memory_from_threads():
    arrays = [np.zeros((128, 128)) for _ in range(THREADS)]
    bases = [sys.getrefcount(arrays[i]) for i in range(THREADS)]

    def work(i):
        a = arrays[i]
        for it in range(100):
            w = kokkos.array(a)
            kokkos.deep_copy(w[it % 128], float(it))
            t = kokkos.array(np.asarray(w).T)
            assert float(t[3, it % 128]) == float(it)
            del w, t

    run_threads(work)
    gc.collect()
    expect = np.zeros((128, 128))
    expect[:100] = np.arange(100.0)[:, None]
    counts = [sys.getrefcount(arrays[i]) for i in range(THREADS)]  # (outside an assert: see above)
    assert counts == bases
    for i in range(THREADS):
        np.testing.assert_array_equal(arrays[i], expect)


def test_allocation_and_deallocation_callbacks_from_threads():
    kt = pytest.importorskip("kokkos.tools")
    if not hasattr(kt, "set_allocate_data_callback"):
        pytest.skip("no allocation callbacks")
    lock = threading.Lock()
    seen = {"alloc": 0, "dealloc": 0, "threads": set()}
    labels = set()

    def on_alloc(space, label, ptr, size):
        with lock:
            seen["alloc"] += 1
            seen["threads"].add(threading.get_ident())
            labels.add(label)

    def on_dealloc(space, label, ptr, size):
        with lock:
            seen["dealloc"] += 1

    per_thread = 50
    gc.collect()
    kt.set_allocate_data_callback(on_alloc)
    kt.set_deallocate_data_callback(on_dealloc)
    try:

        def work(i):
            for it in range(per_thread):
                v = kokkos.View((32,), label=f"cb-{i}-{it}")
                kokkos.deep_copy(v, float(it))
                assert float(v[31]) == float(it)
                del v

        run_threads(work)
        gc.collect()
    finally:
        kt.set_allocate_data_callback(None)
        kt.set_deallocate_data_callback(None)
    ours = {f"cb-{i}-{it}" for i in range(THREADS) for it in range(per_thread)}
    assert ours <= labels
    assert seen["alloc"] >= THREADS * per_thread
    assert seen["dealloc"] >= THREADS * per_thread
    assert len(seen["threads"]) == THREADS, "each thread's allocations called back on that thread"


def test_region_callbacks_from_threads_with_gil_released_work():
    kt = pytest.importorskip("kokkos.tools")
    if not hasattr(kt, "set_push_region_callback"):
        pytest.skip("no region callbacks")
    lock = threading.Lock()
    names = []
    kt.set_push_region_callback(lambda name: (lock.acquire(), names.append(name), lock.release()))
    try:

        def work(i):
            big = kokkos.View((100_000,), label=f"r{i}")
            src = np.full(100_000, float(i))
            for _ in range(50):
                with kt.region(f"thread{i}"):
                    kokkos.deep_copy(big, src)
            assert float(big[99_999]) == float(i)

        run_threads(work)
    finally:
        kt.set_push_region_callback(None)
    for i in range(THREADS):
        assert names.count(f"thread{i}") == 50


def test_gc_and_threads_dropping_cycles_with_views():
    """Views kept in reference cycles, collected by whichever thread runs
    the collector."""

    class Node:
        pass

    def work(i):
        for it in range(200):
            a, b = Node(), Node()
            a.other, b.other = b, a
            a.view = kokkos.View((16,), label=f"cyc{i}")
            b.sub = a.view[::2]
            kokkos.deep_copy(b.sub, 1.0)
            if it % 50 == 0:
                gc.collect()

    run_threads(work)
    gc.collect()
