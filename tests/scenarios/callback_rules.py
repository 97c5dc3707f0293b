"""What Python run from a Kokkos event may do, one case per process
(tests/test_callback_rules.py): make and drop Views, raise, recurse
(too deep: a RecursionError reported as any callback error is), end the
program (KeyboardInterrupt and SystemExit reach it as soon as the Kokkos
call that ran the callback returns), and call the original package's
self-test, which runs one at a time. Each case prints "done" at its end.

    callback_rules.py CASE [ARGS...]     one of CASES
"""

import os
import signal
import sys
import threading
import time

import numpy as np

import kokkos
import kokkos.tools as kt
from callback_reentry import raise_every_event
from scenario import raises, run


def reported():
    """Collects what sys.unraisablehook receives: (exception, err_msg, object)."""
    seen = []
    sys.unraisablehook = lambda u: seen.append((u.exc_value, u.err_msg, u.object))
    return seen


def names_event(report, event):
    """Whether an unraisable report names the event (in its message on
    3.10 and 3.13+, in a note on 3.11 and 3.12, or as the callable's own
    name)."""
    exc, msg, obj = report
    notes = " ".join(getattr(exc, "__notes__", []))
    return event in f"{msg} {notes} {getattr(obj, '__name__', '')}"


# ---- make and drop Views, raise, recurse


def deallocation_chain(recursion_limit=None):
    """A deallocate_data callback that returns a fresh View for the first
    20,000 events: each returned View, dropped, raises the next event inside
    the same C call. The chain stops at Python's recursion limit (and never
    past 1,000 levels, however high the limit is set) with one
    RecursionError, reported; the program goes on."""
    if recursion_limit:
        sys.setrecursionlimit(int(recursion_limit))
    seen = reported()
    calls = [0]

    def deallocate_data(space, label, ptr, size):
        calls[0] += 1
        if calls[0] < 20000:
            return kokkos.View((4,), label="chained")
        return None

    kt.set_deallocate_data_callback(deallocate_data)
    v = kokkos.View((4,), label="first")
    del v
    kt.set_deallocate_data_callback(None)
    assert 50 < calls[0] < 20000, calls
    assert len(seen) == 1 and isinstance(seen[0][0], RecursionError), seen
    assert names_event(seen[0], "deallocate_data"), seen
    w = kokkos.View((3,), label="after")
    w[1] = 2.0
    assert list(np.asarray(w)) == [0.0, 2.0, 0.0]
    print("levels", calls[0])
    print("done")


def allocation_recursion():
    """An allocate_data callback that makes a View: each allocation raises
    the next event. One RecursionError, reported; the Views made are
    right."""
    seen = reported()
    depth = [0]
    made = []

    def allocate_data(space, label, ptr, size):
        depth[0] += 1
        v = kokkos.View((2,), label="inner")
        v[0] = depth[0]
        made.append(float(v[0]) == depth[0])

    kt.set_allocate_data_callback(allocate_data)
    outer = kokkos.View((5,), label="outer")
    kt.set_allocate_data_callback(None)
    assert 50 < depth[0] < 100000 and all(made), (depth[0], made.count(False))
    assert len(seen) == 1 and isinstance(seen[0][0], RecursionError), seen[:3]
    assert names_event(seen[0], "allocate_data"), seen
    assert outer.shape == (5,)
    print("done")


def views_in_every_callback():
    """Every event's callback makes a View, fills and checks it against
    NumPy, copies it, drops it (each of which raises events whose callbacks
    do not make Views again), and raises ValueError every third call;
    through the whole of raise_every_event(). Every ValueError is reported,
    naming its event, and nothing else is."""
    seen = reported()
    calls = {}
    wrong = []
    busy = threading.local()

    def make_callback(event):
        def callback(*args):
            n = calls[event] = calls.get(event, 0) + 1
            if not getattr(busy, "on", False) and kokkos.is_initialized() and not kokkos.is_finalized():
                busy.on = True
                try:
                    v = kokkos.View((3, 4), label=f"in-{event}")
                except RuntimeError:  # while Kokkos initializes or finalizes
                    pass
                else:
                    ref = np.arange(12.0).reshape(3, 4) * n
                    kokkos.deep_copy(v, ref)
                    w = kokkos.create_mirror(v, copy=True)
                    if not np.array_equal(np.asarray(w), ref):
                        wrong.append(event)
                    del v, w
                finally:
                    busy.on = False
            if n % 3 == 0:
                raise ValueError(f"{event} #{n}")

        return callback

    for event in kt.EVENTS:
        setter = getattr(kt, f"set_{event}_callback", None)
        if setter is not None:
            setter(make_callback(event))
    raise_every_event()
    assert not wrong, wrong
    expected = sum(n // 3 for n in calls.values())
    values = [r for r in seen if isinstance(r[0], ValueError)]
    assert len(values) == expected == len(seen), (expected, seen[:5])
    for exc, msg, obj in values:
        event = str(exc).split(" #")[0]
        assert names_event((exc, msg, obj), event), (exc, msg, obj)
    assert len(calls) >= 10, calls
    print("done")


# ---- KeyboardInterrupt and SystemExit


class Stop(KeyboardInterrupt):
    """A KeyboardInterrupt that says where it came from."""


def raiser(where):
    def callback(*args):
        raise Stop(where)

    return callback


def caught(call, where):
    """call() must raise the very Stop(where) a callback raised."""
    with raises(Stop) as r:
        call()
    assert r.value.args == (where,), r.value.args


def keyboard_interrupt_main():
    """In the main thread, a KeyboardInterrupt raised by a callback reaches
    the program when the Kokkos call that ran the callback returns: the
    object itself, from every kind of call. Nothing else is reported but the
    later ones of an event a call raises more than once (Kokkos 4's fence
    with two execution spaces raises begin_fence for each): the first
    reaches the program, the others go to sys.unraisablehook."""
    seen = reported()
    kokkos.initialize()
    cases = [
        ("push_region", lambda: kt.push_region("r")),
        ("pop_region", kt.pop_region),
        ("create_profile_section", lambda: kt.create_profile_section("s")),
        ("profile_event", lambda: kt.mark_event("e")),
        ("declare_metadata", lambda: kt.declare_metadata("k", "v")),
        ("allocate_data", lambda: kokkos.View((4,), label="a")),
        ("begin_fence", lambda: kokkos.fence("f")),
        ("begin_deep_copy", lambda: kokkos.deep_copy(kokkos.View((4,)), 1.0)),
        ("begin_parallel_reduce", lambda: (kt._internal.setup(), kt._internal.test())),
        ("declare_output_type", lambda: kt.declare_output_type("o", kt.VariableInfo(int, "ordinal", [1, 2]))),
        ("begin_context", lambda: kt.begin_context(kt.get_new_context_id())),
    ]
    tested, repeated = [], {}
    for event, call in cases:
        setter = getattr(kt, f"set_{event}_callback")
        fired = []
        setter(lambda *a, fired=fired: fired.append(a))
        call()
        if fired:  # this Kokkos raises the event from this call (3.4 raises no fence events)
            setter(raiser(event))
            caught(call, event)
            tested.append(event)
            if len(fired) > 1:
                repeated[event] = len(fired) - 1
        setter(None)
    assert len(tested) >= len(cases) - 1, tested
    later = [e.args[0] for e, _, _ in seen if isinstance(e, Stop)]
    assert len(later) == len(seen) and sorted(later) == sorted(e for e, n in repeated.items() for _ in range(n)), seen
    seen.clear()
    # a callback set while a View lives: its deallocation cannot raise, so
    # the interrupt comes at the main thread's next check (the next call)
    kt.set_deallocate_data_callback(lambda *a: None)
    v = kokkos.View((4,), label="dropped")
    kt.set_deallocate_data_callback(raiser("deallocate_data"))

    def drop():
        nonlocal v
        del v
        len("the next call")

    caught(drop, "deallocate_data")
    kt.clear_callbacks()
    kt.set_finalize_callback(raiser("finalize"))
    caught(kokkos.finalize, "finalize")
    assert kokkos.is_finalized()
    assert not seen, seen
    print("done")


def keyboard_interrupt_thread():
    """In another thread: from an entry point that raises it at its end, the
    object itself; elsewhere (a deep_copy) one of its class, at the thread's
    next bytecode. The thread's other work goes on after it is caught."""
    seen = reported()
    kokkos.initialize()
    out = {}

    def work():
        for event, call in [
            ("push_region", lambda: kt.push_region("r")),
            ("allocate_data", lambda: kokkos.View((4,), label="t")),
        ]:
            getattr(kt, f"set_{event}_callback")(raiser(event))
            try:
                call()
            except Stop as e:
                out[event] = e.args
            getattr(kt, f"set_{event}_callback")(None)
        dst = kokkos.View((4,), label="dst")
        kt.set_begin_deep_copy_callback(raiser("begin_deep_copy"))
        try:
            kokkos.deep_copy(dst, 2.0)
            len("the next bytecode")
        except Stop as e:
            out["begin_deep_copy"] = e.args
        kt.set_begin_deep_copy_callback(None)
        out["values"] = list(np.asarray(dst))

    t = threading.Thread(target=work)
    t.start()
    t.join(60)
    assert not t.is_alive()
    assert out["push_region"] == ("push_region",) and out["allocate_data"] == ("allocate_data",), out
    assert out["begin_deep_copy"] == (), out  # the class, not the object
    assert out["values"] == [2.0] * 4, out
    assert not seen, seen
    print("done")


def first_interrupt_kept():
    """Two callbacks of one Kokkos call raise KeyboardInterrupt: the first
    reaches the program, the second is reported; other exceptions are
    reported as always."""
    seen = reported()
    kokkos.initialize()
    kt.set_begin_deep_copy_callback(raiser("begin_deep_copy"))
    kt.set_end_deep_copy_callback(raiser("end_deep_copy"))
    kt.set_begin_fence_callback(lambda *a: 1 / 0)
    dst = kokkos.View((8,), label="dst")
    caught(lambda: kokkos.deep_copy(dst, 3.0), "begin_deep_copy")
    kt.clear_callbacks()
    assert list(np.asarray(dst)) == [3.0] * 8
    kinds = sorted(type(r[0]).__name__ for r in seen)
    assert "Stop" in kinds and kinds.count("Stop") == 1, kinds
    assert set(kinds) <= {"Stop", "ZeroDivisionError"}, kinds
    print("done")


def system_exit(code):
    """sys.exit(code) in a push_region callback ends the program with code
    (after the call returns: nothing after it runs)."""
    kokkos.initialize()
    kt.set_push_region_callback(lambda name: sys.exit(int(code)))
    print("before", flush=True)
    kt.push_region("r")
    print("after: not reached", flush=True)


def system_exit_thread():
    """sys.exit() in a callback of another thread ends that thread, as it
    would in Python code there; the main thread goes on."""
    kokkos.initialize()
    reached = []

    def work():
        kt.push_region("r")
        reached.append("after")

    kt.set_push_region_callback(lambda name: sys.exit(3))
    t = threading.Thread(target=work)
    t.start()
    t.join(60)
    kt.set_push_region_callback(None)
    assert not t.is_alive() and not reached
    print("done")


def interrupted_finalize_wait():
    """Ctrl-C while finalize() waits for another thread's callback: the
    KeyboardInterrupt comes at once, Kokkos still initialized; finalize
    works once the callback returned."""
    kokkos.initialize()
    inside, release = threading.Event(), threading.Event()

    def slow(name):
        inside.set()
        release.wait(30)

    kt.set_push_region_callback(slow)
    t = threading.Thread(target=kt.push_region, args=("slow",))
    t.start()
    assert inside.wait(30)
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    with raises(KeyboardInterrupt):
        kokkos.finalize()
    waited = time.monotonic() - start
    assert waited < 10 and kokkos.is_initialized(), waited
    release.set()
    t.join(30)
    kokkos.finalize()
    assert kokkos.is_finalized()
    print("done")


def views_while_another_thread_finalizes():
    """A thread makes small Views (allocated with the GIL held) while the
    main thread finalizes, with a callback set (so finalize runs without the
    GIL): each View is made before finalize (and released by it) or refused
    with RuntimeError; none is allocated while Kokkos tears down."""
    kokkos.initialize()
    kt.set_finalize_callback(lambda: None)
    made, refused = [], []
    started = threading.Event()

    def work():
        while True:
            try:
                made.append(kokkos.View((4,), label="small"))
            except RuntimeError as e:
                refused.append(str(e))
                return
            started.set()

    t = threading.Thread(target=work)
    t.start()
    assert started.wait(30)
    time.sleep(0.02)
    kokkos.finalize()
    t.join(30)
    assert not t.is_alive() and len(refused) == 1, refused
    assert "Kokkos is being finalized" in refused[0] or "has been finalized" in refused[0], refused
    assert all(v.released for v in made), sum(not v.released for v in made)
    print("done")


# ---- removing callbacks while Kokkos runs


def callbacks_removed_inside_kokkos():
    """Kokkos tests a Tools slot, fences (raising the fence events: Kokkos 4
    and 5) and calls through the slot read again: a begin_fence callback
    that removes the region callbacks in between must not leave Kokkos
    calling an empty slot. The same remover runs from begin_deep_copy (every
    Kokkos raises it). No removed callback runs after its removal; once the
    Kokkos call returns, Kokkos' table is empty."""
    kokkos.initialize()
    calls = []
    kt.set_push_region_callback(lambda name: calls.append("push"))
    kt.set_pop_region_callback(lambda: calls.append("pop"))

    def remove(*args):
        calls.append("removed")
        for event in ("push_region", "pop_region", "begin_fence", "begin_deep_copy"):
            kt.set_callback(event, None)

    kt.set_begin_fence_callback(remove)
    kt.set_begin_deep_copy_callback(remove)
    for _ in range(3):
        kt.push_region("removed")
        kt.pop_region()
    v = kokkos.View((100,), label="target")
    kokkos.deep_copy(v, kokkos.View((100,), label="source"))
    assert calls.count("removed") == 1, calls
    assert "push" not in calls[calls.index("removed") :] and "pop" not in calls[calls.index("removed") :], calls
    assert not any(kt.get_callbacks().values()), kt.get_callbacks()
    assert not kt.profile_library_loaded()
    assert all(kt._t._slot(i)[0] == 0 for i in range(len(kt.EVENTS))), "a slot still holds the trampoline"
    print("done")


def tools_paused_inside_kokkos():
    """pause_tools() from a begin_fence callback (raised between Kokkos' test
    of the push_region slot and its call through it) or a begin_deep_copy
    one: no callback runs from then on, Kokkos' table is empty once the call
    returns, and resume_tools() brings every callback back."""
    kokkos.initialize()
    calls = []
    kt.set_push_region_callback(lambda name: calls.append("push"))

    def pause(*args):
        calls.append("paused")
        kt.pause_tools()
        assert kt.tools_paused()

    kt.set_begin_fence_callback(pause)
    kt.set_begin_deep_copy_callback(pause)
    for _ in range(3):
        kt.push_region("paused")
        kt.pop_region()
    kokkos.deep_copy(kokkos.View((10,), label="target"), 1.0)
    assert calls.count("paused") == 1 and "push" not in calls[calls.index("paused") :], calls
    assert kt.tools_paused() and not kt.profile_library_loaded()
    assert all(kt._t._slot(i)[0] == 0 for i in range(len(kt.EVENTS))), "a slot is still set while paused"
    kt.resume_tools()
    assert not kt.tools_paused() and kt.profile_library_loaded()
    kt.set_begin_fence_callback(None)
    kt.set_begin_deep_copy_callback(None)
    calls.clear()
    kt.push_region("resumed")
    kt.pop_region()
    assert calls == ["push"], calls

    # paused and resumed inside one Kokkos call: Kokkos never pauses, and
    # the callbacks go on
    def pause_and_resume(*args):
        kt.pause_tools()
        assert kt.tools_paused()
        kt.resume_tools()
        assert not kt.tools_paused()

    kt.set_begin_deep_copy_callback(pause_and_resume)
    kokkos.deep_copy(kokkos.View((10,), label="target"), 1.0)
    assert not kt.tools_paused() and kt.profile_library_loaded()
    calls.clear()
    kt.push_region("still")
    assert calls == ["push"], calls
    kt.pop_region()
    print("done")


def callbacks_removed_while_threads_use_kokkos(seconds):
    """Threads push and pop regions, fence and make Views (Kokkos runs
    without the GIL) while another sets and removes the callbacks of those
    events as fast as it can: never a call through an emptied slot. When
    all stop, a removed callback is gone from Kokkos' table."""
    kokkos.initialize()
    sys.setswitchinterval(1e-5)
    events = ("push_region", "pop_region", "begin_fence", "end_fence", "allocate_data", "deallocate_data")
    stop = threading.Event()
    seen = []

    def use(i):
        while not stop.is_set():
            with kt.region(f"worker {i}"):
                kokkos.fence()
                v = kokkos.View((64,), label=f"w{i}")
                kokkos.deep_copy(v, float(i))
                assert float(np.asarray(v)[63]) == float(i)

    def toggle():
        n = 0
        while not stop.is_set():
            event = events[n % len(events)]
            kt.set_callback(event, (lambda *a, e=event: seen.append(e)) if (n // len(events)) % 2 == 0 else None)
            n += 1

    threads = [threading.Thread(target=use, args=(i,)) for i in range(3)] + [threading.Thread(target=toggle)]
    for t in threads:
        t.start()
    time.sleep(float(seconds))
    stop.set()
    for t in threads:
        t.join(60)
        assert not t.is_alive(), "a thread hangs"
    kt.clear_callbacks()
    assert seen, "no callback ran"
    assert not kt.profile_library_loaded()
    print("events", len(seen))
    print("done")


# ---- the original package's self-test


def self_test_reentered():
    """setup() and test() called from the self-test's own callbacks: refused
    with RuntimeError (the outer test goes on and passes)."""
    kokkos.initialize()
    said = []

    def again(*args):
        for call in (kt._internal.setup, kt._internal.test):
            with raises(RuntimeError, "already running") as r:
                call()
            said.append(str(r.value))

    kt.set_begin_parallel_for_callback(again)
    kt.set_push_region_callback(again)
    kt._internal.setup()
    kt._internal.test()
    kt.clear_callbacks()
    assert len(said) >= 4 and said[1].startswith("kokkos.tools._internal.test()"), said
    kt._internal.setup()
    kt._internal.test()  # alone again: it works
    print("done")


def self_test_threads(rounds):
    """Two threads each running setup(); test() with Python callbacks set
    (which give the GIL to the other thread): each call works or raises
    RuntimeError, never crashes."""
    kokkos.initialize()
    events = []
    for event in ("begin_parallel_for", "end_parallel_for", "push_region", "begin_deep_copy", "allocate_data"):
        getattr(kt, f"set_{event}_callback")(lambda *a, e=event: events.append(e) or time.sleep(0))
    sys.setswitchinterval(1e-5)
    outcomes = {"ok": 0, "refused": 0}
    lock = threading.Lock()

    def work():
        for _ in range(int(rounds)):
            try:
                kt._internal.setup()
                kt._internal.test()
                key = "ok"
            except RuntimeError as e:
                assert "already running" in str(e) or "setup() first" in str(e), e
                key = "refused"
            with lock:
                outcomes[key] += 1

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive()
    kt.clear_callbacks()
    assert outcomes["ok"] + outcomes["refused"] == 2 * int(rounds) and outcomes["ok"] > 0, outcomes
    print("outcomes", outcomes)
    print("done")


CASES = {
    f.__name__: f
    for f in (
        deallocation_chain,
        allocation_recursion,
        views_in_every_callback,
        keyboard_interrupt_main,
        keyboard_interrupt_thread,
        first_interrupt_kept,
        system_exit,
        system_exit_thread,
        interrupted_finalize_wait,
        views_while_another_thread_finalizes,
        callbacks_removed_inside_kokkos,
        tools_paused_inside_kokkos,
        callbacks_removed_while_threads_use_kokkos,
        self_test_reentered,
        self_test_threads,
    )
}

if __name__ == "__main__":
    run(CASES)
