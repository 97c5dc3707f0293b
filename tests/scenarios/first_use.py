"""First use of Kokkos from several threads at once, with and without Kokkos
Tools callbacks set, one case per process (tests/test_first_use.py): Kokkos
is initialized once and every thread gets what it asked for; a thread that
finds another initializing waits for it (Ctrl-C ends the wait); Python run
by the initialization itself cannot wait for it and is refused. While a
callback is set Kokkos initializes without the GIL, and the declare_metadata
callbacks of its initialization sleep here to hold the others off longer.
Each case prints "done" at its end.

    first_use.py views THREADS CALLBACKS     CALLBACKS: none, set
    first_use.py CASE                        one of the other CASES
"""

import os
import signal
import sys
import threading
import time

import numpy as np

import kokkos
import kokkos.tools as kt
from scenario import raises, run


def reported():
    seen = []
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    return seen


def slow_initialization(seconds=0.01, hold=None):
    """Callbacks that Kokkos' initialization raises: parse_args notes the
    thread it runs on (one initialization raises it once, or twice as
    Kokkos 5 does: Kokkos was initialized once when the returned list names
    one thread), declare_metadata sleeps (or waits for hold)."""
    count = []
    kt.set_parse_args_callback(lambda argc, argv: count.append(threading.get_ident()))

    def metadata(key, value):
        if hold is not None:
            hold.wait(30)
        else:
            time.sleep(seconds)

    kt.set_declare_metadata_callback(metadata)
    return count


def together(n, work):
    """Runs work(i) in n threads started at once; returns their results (an
    exception counts as a result)."""
    results = [None] * n
    start = threading.Barrier(n)

    def body(i):
        start.wait()
        try:
            results[i] = work(i)
        except BaseException as e:  # noqa: BLE001 - the caller looks at it
            results[i] = e

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive(), "a thread hangs"
    return results


def views(threads, callbacks):
    """Each thread makes its first View, fills it and checks it against
    NumPy: all succeed, and Kokkos was initialized once."""
    n = int(threads)
    seen = reported()
    count = slow_initialization() if callbacks == "set" else None
    if callbacks == "set":
        kt.set_allocate_data_callback(lambda *a: None)

    def work(i):
        v = kokkos.View((3, i + 1), label=f"first-{i}")
        ref = np.arange(3.0 * (i + 1)).reshape(3, i + 1) + i
        kokkos.deep_copy(v, ref)
        return np.array_equal(np.asarray(v), ref)

    results = together(n, work)
    assert results == [True] * n, results
    assert kokkos.is_initialized()
    if count is not None:
        assert len(set(count)) == 1, count
    assert not seen, seen
    print("done")


def initialize_race():
    """kokkos.initialize() from four threads at once: exactly one of them
    initialized Kokkos (True), the others found it done (False)."""
    count = slow_initialization()
    results = together(4, lambda i: kokkos.initialize())
    assert sorted(results) == [False, False, False, True], results
    assert len(set(count)) == 1, count
    print("done")


def finalize_while_initializing():
    """finalize() while another thread initializes: it waits, then
    finalizes; the initializing thread's View is released."""
    hold = threading.Event()
    slow_initialization(hold=hold)
    made = []
    t = threading.Thread(target=lambda: made.append(kokkos.View((4,), label="early")))
    t.start()
    time.sleep(0.3)  # the thread is inside Kokkos' initialization now
    threading.Timer(0.5, hold.set).start()
    kokkos.finalize()
    t.join(30)
    assert kokkos.is_finalized() and len(made) == 1 and made[0].released, made
    print("done")


def kokkos_used_by_the_initialization():
    """A callback of the initialization itself uses Kokkos: refused (it
    cannot wait for the initialization it is part of), reported as any
    callback error; the program and another thread go on."""
    seen = reported()
    tried = []

    def metadata(key, value):
        if not tried:
            tried.append(key)
            kokkos.View((2,), label="inside")

    kt.set_declare_metadata_callback(metadata)
    results = together(2, lambda i: kokkos.View((2,), label=f"t{i}").shape)
    assert results == [(2,), (2,)], results
    assert len(seen) == 1 and isinstance(seen[0], RuntimeError), seen
    assert "being initialized" in str(seen[0]) and "declare_metadata" in str(seen[0]), seen
    print("done")


def interrupted_wait():
    """Ctrl-C while the main thread waits for another thread's
    initialization: KeyboardInterrupt at once; once the initialization ends
    the main thread uses Kokkos."""
    hold = threading.Event()
    slow_initialization(hold=hold)
    t = threading.Thread(target=lambda: kokkos.View((4,), label="worker"))
    t.start()
    time.sleep(0.3)
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    with raises(KeyboardInterrupt):
        kokkos.View((4,), label="main")
    assert time.monotonic() - start < 10
    hold.set()
    t.join(30)
    v = kokkos.View((4,), label="main")
    assert v.shape == (4,) and kokkos.is_initialized()
    print("done")


CASES = {
    f.__name__: f
    for f in (views, initialize_race, finalize_while_initializing, kokkos_used_by_the_initialization, interrupted_wait)
}

if __name__ == "__main__":
    run(CASES)
