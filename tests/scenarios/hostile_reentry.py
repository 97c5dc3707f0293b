"""Python code that finalizes Kokkos in the middle of an operation, one case
per process (tests/test_hostile.py): the operation must be refused with a
clear error or complete, never touch freed memory. Each case prints "done"
at its end.

    hostile_reentry.py CASE [EVENT]
"""

import sys

import numpy as np

import kokkos
import kokkos.tools as kt
from scenario import raises, run

# ---- a value's own methods finalize Kokkos


def index_finalizes_during_store():
    """The value's __index__ finalizes Kokkos after the View was checked:
    the store is refused (it used to write into freed memory)."""
    kokkos.initialize()
    v = kokkos.View((4,), kokkos.int64, label="target")

    class Finalizing:
        def __index__(self):
            kokkos.finalize()
            return 7

    for key in (1, (1,), slice(None)):
        with raises(RuntimeError, "'target'", "released"):
            v[key] = Finalizing()
        if kokkos.is_finalized():
            break
    print("done")


def index_finalizes_during_read():
    kokkos.initialize()
    v = kokkos.View((4, 4), label="grid")

    class Finalizing:
        def __index__(self):
            kokkos.finalize()
            return 1

    with raises(RuntimeError, "'grid'"):
        v[Finalizing(), 2]
    with raises(RuntimeError, "'grid'"):
        v[Finalizing()]
    print("done")


def bool_finalizes_during_fill():
    kokkos.initialize()
    v = kokkos.View((100,), kokkos.bool, label="mask")

    class Truthy(int):
        def __bool__(self):
            kokkos.finalize()
            return True

    with raises(RuntimeError, "'mask'"):
        kokkos.deep_copy(v, Truthy(1))
    print("done")


def array_interface_finalizes_during_deep_copy():
    kokkos.initialize()
    v = kokkos.View((1000,), label="dst")
    src = np.arange(1000.0)

    class Finalizing:
        @property
        def __array_interface__(self):
            kokkos.finalize()
            return src.__array_interface__

    with raises(RuntimeError, "'dst'"):
        kokkos.deep_copy(v, Finalizing())
    print("done")


# ---- Kokkos Tools callbacks finalize Kokkos


def _report_unraisable():
    reported = []
    sys.unraisablehook = lambda u: reported.append(u.exc_value)
    return reported


def _allocate(views):
    views["x"] = x = kokkos.View((8,), label="gamma")
    x[0] = 1.0


def _deallocate(views):
    del views["v"]


def _deep_copy(views):
    kokkos.deep_copy(views["v"], views["w"])


# event -> an operation on the Views v and w that calls its callback
CALLBACK_ACTIONS = {
    "allocate_data": _allocate,
    "deallocate_data": _deallocate,
    "begin_deep_copy": _deep_copy,
    "end_deep_copy": _deep_copy,
}


def callback_finalizes(event):
    kokkos.initialize()
    reported = _report_unraisable()

    def finalize_now(*args):
        kokkos.finalize()

    set_callback = getattr(kt, "set_" + event + "_callback")
    set_callback(finalize_now)
    views = {"v": kokkos.View((64,), label="alpha"), "w": kokkos.View((64,), label="beta")}
    CALLBACK_ACTIONS[event](views)
    set_callback(None)
    # the operation completed with Kokkos alive, and the refusal was reported
    assert not kokkos.is_finalized(), "Kokkos finalized inside its own operation"
    assert reported and all(isinstance(e, RuntimeError) for e in reported), reported
    assert "inside a Kokkos operation" in str(reported[0]), reported[0]
    w = views["w"]
    kokkos.deep_copy(w, 2.0)
    assert float(w[63]) == 2.0
    kokkos.finalize()
    assert w.released
    print("done")
    return views


def fence_callback_finalizes():
    kokkos.initialize()
    reported = _report_unraisable()
    kt.set_begin_fence_callback(lambda *a: kokkos.finalize())
    v = kokkos.View((8,), label="alpha")
    kokkos.fence()
    kt.set_begin_fence_callback(None)
    assert not kokkos.is_finalized()
    # Kokkos 3.x does not report global fences to tools; 4.x does
    print("reported", len(reported), [type(e).__name__ for e in reported])
    assert all(isinstance(e, RuntimeError) for e in reported)
    v[0] = 1.0
    print("done")
    return v


def finalize_from_deallocation_during_finalize():
    kokkos.initialize()
    reported = _report_unraisable()
    kt.set_deallocate_data_callback(lambda *a: kokkos.finalize())
    views = [kokkos.View((16,), label=f"v{i}") for i in range(5)]
    kokkos.finalize()
    assert kokkos.is_finalized()
    assert all(v.released for v in views)
    # one refusal per View freed (Kokkos 4 frees allocations of its own too)
    assert len(reported) >= 5 and all(isinstance(e, RuntimeError) for e in reported), reported
    print("done")
    return views


def callback_recurses():
    sys.setrecursionlimit(200)
    kokkos.initialize()
    sys.unraisablehook = lambda u: None
    a = kokkos.View((32,), label="a")
    b = kokkos.View((32,), label="b")
    kokkos.deep_copy(b, 3.0)
    calls = [0]

    def again(*args):
        calls[0] += 1
        kokkos.deep_copy(a, b)

    kt.set_begin_deep_copy_callback(again)
    kokkos.deep_copy(a, b)
    kt.set_begin_deep_copy_callback(None)
    assert calls[0] > 10, calls
    assert float(a[31]) == 3.0
    print("done")
    return a, b


def callback_exceptions_are_reported():
    kokkos.initialize()
    reported = _report_unraisable()

    def bad(*a):
        raise MemoryError("from a callback")

    kt.set_allocate_data_callback(bad)
    kt.set_deallocate_data_callback(bad)
    v = kokkos.View((10,), label="x")
    del v
    kt.set_allocate_data_callback(None)
    kt.set_deallocate_data_callback(None)
    assert len(reported) == 2, reported
    print("done")


CASES = {
    f.__name__: f
    for f in (
        index_finalizes_during_store,
        index_finalizes_during_read,
        bool_finalizes_during_fill,
        array_interface_finalizes_during_deep_copy,
        callback_finalizes,
        fence_callback_finalizes,
        finalize_from_deallocation_during_finalize,
        callback_recurses,
        callback_exceptions_are_reported,
    )
}

if __name__ == "__main__":
    run(CASES)
