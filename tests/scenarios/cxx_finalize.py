"""Kokkos finalize with Views alive on the Python and the C++ side, one case
per process (tests/test_cxx_runtime.py). The test modules built from
tests/cxx/ (kp_test_pyb, kp_test_nb, kp_test_c) are on PYTHONPATH.

    cxx_finalize.py CASE [ARGS...]
"""

import gc
import importlib
import warnings

import numpy as np

import kokkos
from scenario import raises, run


def both_sides_alive(module, finalize_from):
    """module: kp_test_pyb or kp_test_nb; finalize_from: python (kokkos.finalize)
    or cxx (Kokkos::finalize called by the module)."""
    m = importlib.import_module(module)
    import kp_test_c as c

    kokkos.initialize()
    v = m.make_kept(3)  # C++ keeps a copy as well
    w = kokkos.array("pyside", [3, 2], dtype=kokkos.double)
    m.hold(w)  # C++ holds Python's memory
    a = np.arange(4.0)
    m.scale(a, 2.0)
    cv = c.from_malloc(int(kokkos.double), [4], label="cside", kokkos_bound=True)
    ci = c.from_inline(int(kokkos.double), [4], label="cinline", kokkos_bound=True)
    calls = c.deleter_calls()
    made, gone, _ = c.inline_calls()
    assert m.held_count() == 2 and not v.released
    if finalize_from == "python":
        kokkos.finalize()
    else:
        m.finalize_from_cpp()
    assert kokkos.is_finalized()
    assert v.released and w.released and cv.released
    assert c.is_released(cv) and c.deleter_calls() == calls + 1  # dropped at finalize, once
    assert c.is_released(ci) and c.inline_calls()[:2] == (made, gone + 1)
    assert c.external_ctx(ci, c.inline_tag) is None  # the context is gone
    assert m.held_count() == 0  # the module's finalize hook ran
    for view, label in ((v, "kept"), (w, "pyside"), (cv, "cside"), (ci, "cinline")):
        with raises(RuntimeError, label, "finalized"):
            np.asarray(view)
    with raises(RuntimeError, "was released when Kokkos was finalized"):
        c.describe(v)
    if module == "kp_test_nb":
        # nanobind's casters cannot throw: a RuntimeWarning says why, then TypeError
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with raises(TypeError, "incompatible function arguments"):
                m.echo_2d(v)
        assert any("'kept' was released" in str(w.message) for w in caught), [str(w.message) for w in caught]
    else:
        with raises(RuntimeError, "'kept' was released"):
            m.echo_2d(v)  # a released View must not convert to a C++ View, and says why
    with raises(RuntimeError, "'pyside' was released"):
        m.as_f64_2d(w)
    live = c.live_buffers()
    with raises(RuntimeError, "view_from_deleter(): Kokkos has been finalized; Kokkos-owned memory"):
        c.from_malloc(int(kokkos.double), [4], kokkos_bound=True)
    with raises(RuntimeError, "view_from_inline(): Kokkos has been finalized; Kokkos-owned memory"):
        c.from_inline(int(kokkos.double), [4], kokkos_bound=True)
    assert c.live_buffers() == live and c.inline_calls()[:2] == (made, gone + 1)  # still the caller's
    del v, w, cv, ci
    gc.collect()
    assert c.deleter_calls() == calls + 1 and c.inline_calls()[:2] == (made, gone + 1)
    print("OK")


def exit_without_finalize():
    import kp_test_c as c
    import kp_test_pyb as m

    kokkos.initialize()
    v = m.make_kept(3)
    w = kokkos.array("w", [3, 2], dtype=kokkos.double)
    m.hold(w)
    cv = c.from_malloc(int(kokkos.double), [4], kokkos_bound=True)
    print("bye")
    return [v, w, cv, np.asarray(v)]  # alive until the interpreter exits


def numpy_array_outlives_finalize():
    import kp_test_pyb as m

    kokkos.initialize()
    a = np.asarray(m.make_float64_2_right([2, 2]))  # the View itself is gone, NumPy exports it
    kokkos.finalize()
    assert a.sum() == 0.5 + 1.5 + 2.5 + 3.5
    print("OK")


def cxx_finalize_inside_a_callback(event):
    """The application's Kokkos::finalize (kp_test_pyb.finalize_from_cpp)
    runs inside a Kokkos Tools callback of a Python call, on the same thread:
    Kokkos finalizes without waiting for that call (it would wait forever),
    the memory the call may still use stays allocated, and the call ends:
    a region or a copy completes, an allocation raises RuntimeError."""
    import kp_test_pyb as m

    import kokkos.tools as kt

    kokkos.initialize()
    v, w = kokkos.View((1 << 17,), label="v"), kokkos.View((1 << 17,), label="w")
    kokkos.deep_copy(w, 2.0)
    calls = []

    def finalize_from_cpp(*args):
        if not calls:
            calls.append(event)
            m.finalize_from_cpp()

    getattr(kt, f"set_{event}_callback")(finalize_from_cpp)
    if event == "push_region":
        kt.push_region("finalized")
    elif event == "begin_deep_copy":
        kokkos.deep_copy(v, w)
    else:
        with raises(RuntimeError, "Kokkos was finalized while the View 'late' was being allocated"):
            kokkos.View((1 << 17,), label="late")
    assert calls == [event] and kokkos.is_finalized()
    assert v.released and w.released
    with raises(RuntimeError, "'v'"):
        v[0]
    print("OK")


CASES = {
    f.__name__: f
    for f in (both_sides_alive, exit_without_finalize, numpy_array_outlives_finalize, cxx_finalize_inside_a_callback)
}

if __name__ == "__main__":
    run(CASES)
