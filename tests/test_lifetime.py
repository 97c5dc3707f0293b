"""Memory stays flat across many create / slice / copy / convert / destroy
cycles, and owners go exactly when their last user goes."""

import gc
import sys
import weakref

import numpy as np

import kokkos


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_million_create_destroy_cycles_keep_memory_flat():
    View = kokkos.View
    for _ in range(100_000):  # warm up allocator and caches
        View((8,))
    gc.collect()
    before = rss_kib()
    for _ in range(1_000_000):
        View((8,))
    gc.collect()
    grown = rss_kib() - before
    assert grown < 2048, f"RSS grew by {grown} KiB over a million Views"


def test_slice_copy_convert_cycles_keep_memory_flat():
    arr = np.arange(64.0)

    def cycle():
        v = kokkos.array([8, 8])
        s = v[1:5, ::2]
        kokkos.deep_copy(v, arr.reshape(8, 8))
        a = np.asarray(s)
        w = kokkos.array(a)
        m = w.create_mirror()
        return float(m[0, 0])

    for _ in range(20_000):
        cycle()
    gc.collect()
    before = rss_kib()
    for _ in range(200_000):
        cycle()
    gc.collect()
    grown = rss_kib() - before
    assert grown < 2048, f"RSS grew by {grown} KiB"


def test_allocation_goes_with_its_last_user():
    v = kokkos.array([16])
    alloc = weakref.ref(v.allocation)
    sub = v[4:]
    arr = np.asarray(sub)
    del v, sub
    gc.collect()
    assert alloc() is not None, "the NumPy array still uses the memory"
    del arr
    gc.collect()
    assert alloc() is None


def test_wrapped_numpy_refcount_returns():
    arr = np.zeros((4, 4))
    base = sys.getrefcount(arr)
    views = [kokkos.array(arr)[i] for i in range(4)]
    del views
    gc.collect()
    after = sys.getrefcount(arr)
    assert after == base
