"""Python code that Kokkos runs (Kokkos Tools callbacks, and the __del__,
weakref and atexit callbacks that run inside them) calling kokkos.finalize()
or kokkos.initialize(); other threads finalizing while a callback runs. One
case per process (tests/test_callback_reentry.py): each must end, within
the test's limit, with the call done or refused with a clear error. Each
case prints "done" at its end.

    callback_reentry.py record                 which events raise_every_event() raises (JSON)
    callback_reentry.py sweep EVENT ACTION     EVENT's callback calls ACTION (finalize, initialize)
    callback_reentry.py CASE                   one of the other CASES
"""

import atexit
import gc
import json
import sys
import threading
import weakref

import numpy as np

import kokkos
import kokkos.tools as kt
from scenario import raises, run

# What kokkos.finalize() says when a callback calls it ({} is the event).
REFUSED = "kokkos.finalize() called from inside a kokkos.tools {} callback"


def reported():
    """Collects what sys.unraisablehook receives (what callbacks raise)."""
    seen = []
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    return seen


def raise_every_event():
    """Kokkos work that raises every Tools event Python and the package's own
    C++ can raise: initialize, regions, sections, events, metadata, View
    allocations (with and without the GIL), deep copies, fills, fences, C++
    kernels, tuning, finalize. Returns nothing: every View is dropped before
    finalize but one, which finalize releases."""
    kokkos.initialize()
    kt.push_region("region")
    kt.pop_region()
    with kt.region("with"):
        pass
    section = kt.create_profile_section("section")
    kt.start_section(section)
    kt.stop_section(section)
    kt.destroy_profile_section(section)
    kt.mark_event("event")
    kt.declare_metadata("key", "value")
    big = kokkos.View((1 << 17,), label="big")  # allocated without the GIL
    small = kokkos.View((8,), label="small")
    kokkos.deep_copy(big, 1.0)
    kokkos.deep_copy(small, np.arange(8.0))
    other = kokkos.View((1 << 17,), label="other")
    kokkos.deep_copy(other, big)
    kokkos.fence("fence")
    del other, small
    kt._internal.setup()
    kt._internal.test()  # C++ kernels, a section, a copy, a region
    size = kt.declare_input_type("size", kt.VariableInfo(int, "interval"))
    block = kt.declare_output_type("block", kt.VariableInfo(int, "ordinal", [32, 64]))
    context = kt.get_new_context_id()
    kt.begin_context(context)
    kt.declare_optimization_goal(context, kt.OptimizationGoal(size, kt.OptimizationType.minimize))
    kt.request_output_values(context, [kt.VariableValue(size, 10)], [kt.VariableValue(block, 32)])
    kt.end_context(context)
    kokkos.finalize()
    assert kokkos.is_finalized()
    assert big.released


def record():
    """Prints the events raise_every_event() raised, as a JSON list."""
    fired = set()
    for event in kt.EVENTS:
        setter = getattr(kt, f"set_{event}_callback", None)
        if setter is not None:
            setter(lambda *args, event=event: fired.add(event))
    raise_every_event()
    print(json.dumps(sorted(fired)))
    print("done")


def sweep(event, action):
    """EVENT's callback calls kokkos.finalize() or kokkos.initialize() every
    time Kokkos raises it, through the whole of raise_every_event(). Inside a
    callback, finalize is always refused, naming the event; initialize
    returns False (Kokkos is running), or is refused while Kokkos is being
    initialized or finalized. Prints how often the callback ran."""
    unraisable = reported()
    calls = []

    def callback(*args):
        try:
            result = kokkos.finalize() if action == "finalize" else kokkos.initialize()
        except RuntimeError as e:
            calls.append(str(e))
        else:
            calls.append(result)

    getattr(kt, f"set_{event}_callback")(callback)
    raise_every_event()
    assert not unraisable, unraisable
    for outcome in calls:
        if action == "finalize":
            assert isinstance(outcome, str) and REFUSED.format(event) in outcome, outcome
            assert "inside a Kokkos operation" in outcome and "finalize after it returns" in outcome, outcome
        elif not isinstance(outcome, str):
            assert outcome is False, outcome
        else:  # before Kokkos is initialized, or once finalize began
            assert outcome.startswith("kokkos.initialize()"), outcome
            assert "being initialized" in outcome or "cannot be initialized again" in outcome, outcome
            if "being initialized" in outcome:
                assert f"inside a kokkos.tools {event} callback" in outcome, outcome
    print("calls", len(calls))
    print("done")


# ---- Python that runs inside a callback without being the callback


class Doomed(kokkos.View):
    """A View whose __del__ finalizes Kokkos."""

    def __del__(self):
        kokkos.finalize()


def view_del_inside_a_callback():
    """The last reference to a View whose __del__ finalizes goes inside a
    push_region callback: refused, naming the callback; the same outside a
    callback finalizes."""
    unraisable = reported()
    kokkos.initialize()
    doomed = [Doomed((4,), label="doomed"), Doomed((4,), label="later")]
    kt.set_push_region_callback(lambda name: doomed.pop(0))
    kt.push_region("drop")
    kt.set_push_region_callback(None)
    assert not kokkos.is_finalized()
    assert len(unraisable) == 1 and REFUSED.format("push_region") in str(unraisable[0]), unraisable
    doomed.clear()
    gc.collect()
    assert kokkos.is_finalized()
    print("done")


def weakref_callbacks_inside_a_callback():
    """A weakref callback and a weakref.finalize that finalize, run by a
    collection inside a begin_deep_copy callback: refused, naming it."""
    unraisable = reported()
    kokkos.initialize()

    class Thing:
        pass

    things = [Thing(), Thing()]
    ref = weakref.ref(things[0], lambda r: kokkos.finalize())
    weakref.finalize(things[1], kokkos.finalize)
    v, w = kokkos.View((64,), label="v"), kokkos.View((64,), label="w")
    kt.set_begin_deep_copy_callback(lambda *a: things.clear())
    kokkos.deep_copy(v, w)
    kt.set_begin_deep_copy_callback(None)
    assert ref() is None and not kokkos.is_finalized()
    refusals = [e for e in unraisable if REFUSED.format("begin_deep_copy") in str(e)]
    assert len(refusals) == 2, unraisable
    kokkos.finalize()
    assert v.released
    print("done")


def nested_callbacks():
    """A region callback copies, and the copy's callback finalizes: refused,
    naming the innermost callback; after it, the outer one is named again."""
    kokkos.initialize()
    v, w = kokkos.View((64,), label="v"), kokkos.View((64,), label="w")
    said = []

    def finalize_here(*args):
        with raises(RuntimeError) as r:
            kokkos.finalize()
        said.append(str(r.value))

    def region(name):
        kokkos.deep_copy(v, w)
        finalize_here()

    kt.set_begin_deep_copy_callback(finalize_here)
    kt.set_push_region_callback(region)
    kt.push_region("outer")
    kt.clear_callbacks()
    assert REFUSED.format("begin_deep_copy") in said[0] and REFUSED.format("push_region") in said[1], said
    kokkos.finalize()
    print("done")


# ---- other threads


def finalize_waits_for_a_callback_in_another_thread(where):
    """A thread is inside a callback (of a Python region call, or of C++
    kernels that kokkos.tools._internal.test() runs with the GIL held) when
    another thread finalizes: finalize waits for the callback and the work
    that raised it, then finishes."""
    kokkos.initialize()
    entered, release = threading.Event(), threading.Event()
    outcome = {}

    def hold(*args):
        if not entered.is_set():
            entered.set()
            assert release.wait(60), "never released"

    def work():
        try:
            if where == "region":
                kt.push_region("held")
            else:
                kt._internal.setup()
                kt._internal.test()
            outcome["work"] = "ok"
        except Exception as e:  # reported below
            outcome["work"] = repr(e)

    if where == "region":
        kt.set_push_region_callback(hold)
    else:
        kt.set_begin_parallel_for_callback(hold)
    worker = threading.Thread(target=work)
    worker.start()
    while not entered.wait(0.05):  # not for long when the work ended without it
        assert worker.is_alive(), f"the work ended before its callback ran: {outcome}"
    view = kokkos.View((8,), label="main")
    finalizing = threading.Thread(target=lambda: outcome.update(finalize=kokkos.finalize()))
    finalizing.start()
    try:
        finalizing.join(0.2)  # a chance to finalize too early (it must not)
        assert not kokkos.is_finalized(), "finalized while another thread was inside a callback"
    finally:
        release.set()
    worker.join()
    finalizing.join()
    assert outcome == {"work": "ok", "finalize": None}, outcome
    assert kokkos.is_finalized() and view.released
    print("done")


def callback_waits_for_the_finalizing_thread():
    """A region callback waits for the thread that finalizes to be done: that
    finalize gives up after KOKKOS_PYTHON_FINALIZE_WAIT seconds with a
    RuntimeError naming the callback and leaves Kokkos running; once the
    callback has returned, finalize works."""
    kokkos.initialize()
    entered, finished = threading.Event(), threading.Event()
    outcome = {}

    def wait_for_the_finalizing_thread(name):
        entered.set()
        outcome["waited"] = finished.wait(120)

    kt.set_push_region_callback(wait_for_the_finalizing_thread)
    worker = threading.Thread(target=kt.push_region, args=("waits",))
    worker.start()
    assert entered.wait(60), "the callback never ran"
    view = kokkos.View((8,), label="main")
    try:
        kokkos.finalize()
    except RuntimeError as e:
        said = str(e)
    else:
        said = "finalize returned"
    finished.set()
    worker.join()
    assert outcome == {"waited": True}, outcome
    assert said.startswith("kokkos.finalize(): another thread is still inside a kokkos.tools push_region callback"), (
        said
    )
    assert "KOKKOS_PYTHON_FINALIZE_WAIT" in said and "Kokkos is still initialized" in said, said
    assert kokkos.is_initialized() and not view.released
    kokkos.deep_copy(view, 1.0)  # Kokkos works again
    kt.set_push_region_callback(None)
    kokkos.finalize()
    assert view.released
    print("done")


def exit_while_a_thread_waits_in_a_callback():
    """A daemon thread stays inside a region callback (it waits for an event
    nobody sets) when the program ends: the program's atexit handler and the
    package's own finalize give up after KOKKOS_PYTHON_FINALIZE_WAIT seconds,
    saying why, and the process exits."""
    kokkos.initialize()
    entered, never = threading.Event(), threading.Event()

    def stay(name):
        entered.set()
        never.wait()

    def finalize_at_exit():
        try:
            kokkos.finalize()
        except RuntimeError as e:
            print("atexit:", e, flush=True)

    atexit.register(finalize_at_exit)
    kt.set_push_region_callback(stay)
    threading.Thread(target=kt.push_region, args=("stays",), daemon=True).start()
    assert entered.wait(60), "the callback never ran"
    print("done", flush=True)


CASES = {
    f.__name__: f
    for f in (
        record,
        sweep,
        view_del_inside_a_callback,
        weakref_callbacks_inside_a_callback,
        nested_callbacks,
        finalize_waits_for_a_callback_in_another_thread,
        callback_waits_for_the_finalizing_thread,
        exit_while_a_thread_waits_in_a_callback,
    )
}

if __name__ == "__main__":
    run(CASES)
