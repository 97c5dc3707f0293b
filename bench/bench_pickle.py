"""Pickle round trips of a 256 MB View beside a 256 MB NumPy array, one run.

Each row times dumps + loads of the same data both ways and prints the ratio
(ours / NumPy's; lower is better) beside the goal (within 1.1x):
- protocol 5 out of band, buffers handed straight back (zero copy both ways);
- protocol 5 out of band, each buffer copied once into a bytearray first, as
  a transport (a socket, MPI, shared memory) delivers it;
- protocol 5 in band (the data goes through the pickle stream);
- protocol 4 (by value: bytes out, a new allocation in).
Best of several runs (the least disturbed by other work on the machine),
NumPy and View alternating.
Run: .venv/bin/python bench/bench_pickle.py [megabytes]
"""

import os
import pickle
import sys
import time

import numpy as np

import kokkos


def out_of_band(obj):
    buffers = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    return pickle.loads(data, buffers=buffers)


def out_of_band_transport(obj):
    buffers = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    # A memoryview of the transport's bytearray: the View lives in it (an
    # exact bytearray would be copied, as in band).
    received = [memoryview(bytearray(b.raw())) for b in buffers]
    return pickle.loads(data, buffers=received)


def in_band(obj):
    return pickle.loads(pickle.dumps(obj, protocol=5))


def by_value(obj):
    return pickle.loads(pickle.dumps(obj, protocol=4))


def timed(fn, obj, repeat):
    fn(obj)  # warm up (page faults of the first allocation)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(obj)
        times.append(time.perf_counter() - t0)
        del out
    return times


def main():
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    n = mb * 1024 * 1024 // 8
    kokkos.initialize()
    print(
        f"kokkos {kokkos.__version__}, Kokkos {'.'.join(map(str, kokkos.kokkos_version()))} "
        f"{kokkos.enabled_backends()}, numpy {np.__version__}, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores"
    )
    view = kokkos.View((n,), kokkos.float64, label="bench_pickle")
    array = np.arange(n, dtype=np.float64)
    kokkos.deep_copy(view, array)
    assert np.array_equal(np.asarray(out_of_band_transport(view)), array)
    assert np.array_equal(np.asarray(in_band(view)), array)
    assert np.array_equal(np.asarray(by_value(view)), array)

    print(f"pickle round trip (dumps + loads) of {mb} MB float64, best of 21")
    print(f"{'case':<48} {'View':>12} {'NumPy':>12} {'ratio':>7}   goal")
    cases = [
        ("protocol 5, out of band, zero copy", out_of_band, 200),
        ("protocol 5, out of band, one transport copy", out_of_band_transport, 7),
        ("protocol 5, in band", in_band, 7),
        ("protocol 4, by value", by_value, 7),
    ]
    for name, fn, repeat in cases:
        ours, theirs = [], []
        for _ in range(3):  # alternate, so drift hits both
            ours += timed(fn, view, repeat)
            theirs += timed(fn, array, repeat)
        t_ours, t_np = min(ours), min(theirs)
        unit, scale = ("us", 1e6) if t_np < 1e-3 else ("ms", 1e3)
        print(f"{name:<48} {t_ours * scale:>9.1f} {unit} {t_np * scale:>9.1f} {unit} {t_ours / t_np:>6.2f}x   <= 1.1x")
    print(
        "  (protocol 4 and 5 in band: NumPy's loads wraps the unpickled bytes / bytearray object as an\n"
        "   array, no copy; a View comes back as a new Managed Kokkos allocation with the pickled traits,\n"
        "   one copy into fresh memory)"
    )


if __name__ == "__main__":
    main()
