"""Every order of Kokkos finalize against the things that hold Kokkos memory.

Holders: Views, subviews, mirrors, mirror views, DynRankViews, NumPy arrays
made from Views (buffer protocol, __array_interface__, DLPack), memoryviews,
DLPack capsules never consumed, Views over NumPy memory, Views made from
NumPy through DLPack. Orders: the holder dropped before finalize; finalize
with the holder alive, then used, then dropped; finalize with the holder
alive until the interpreter exits; no finalize at all (the atexit handler
does it); finalize twice. Plus finalize from another thread, from __del__
during garbage collection, and at exit while a daemon thread is copying.

Each scenario runs in its own interpreter (Kokkos initializes once per
process; the cases are in tests/scenarios/finalize_orders.py): it must exit
0, print its marker, and write nothing that looks like a crash. What "use after finalize" must do:
- a View of Kokkos memory raises RuntimeError naming its label;
- memory exported before finalize (NumPy arrays, memoryviews, capsules)
  stays valid for its consumer;
- Views of foreign memory (NumPy, DLPack producers) are unaffected.
"""

import itertools

import pytest

import kokkos
from support import SCENARIO_LIMIT, cuda, load_scenario, run_scenario, succeeded

SCENARIO = load_scenario("finalize_orders")

# A hang (finalize waiting for work that never ends, ...) fails the test
# that hung: each scenario under SCENARIO_LIMIT, each test (up to three
# scenarios) under four times that.
pytestmark = pytest.mark.timeout(4 * SCENARIO_LIMIT)


def _ok(case, *args):
    return succeeded(run_scenario("finalize_orders", case, *args, timeout=SCENARIO_LIMIT), clean=True)


@pytest.mark.parametrize("holder,order", list(itertools.product(SCENARIO.HOLDERS, SCENARIO.ORDERS)))
def test_finalize_order(holder, order):
    r = _ok("holder", holder, order)
    assert "scenario ok" in r.stdout


def test_several_holders_of_one_allocation_in_every_drop_order():
    """A View, a subview, a NumPy array and a memoryview of one allocation:
    finalize in between any two drops."""
    r = _ok("several_holders")
    assert "scenario ok 72" in r.stdout


def test_finalize_twice_and_initialize_after():
    r = _ok("finalize_twice")
    assert "scenario ok" in r.stdout


def test_finalize_from_another_thread():
    r = _ok("from_another_thread")
    assert "scenario ok" in r.stdout


def test_finalize_from_del_during_garbage_collection():
    r = _ok("from_del_during_gc")
    assert "scenario ok" in r.stdout


def test_exit_while_daemon_threads_copy():
    """The interpreter exits (atexit finalize) while daemon threads keep
    copying into and out of Views: no crash at exit."""
    r = _ok("exit_while_daemon_threads_copy")
    assert "scenario ok" in r.stdout


def test_explicit_finalize_while_threads_copy():
    """Threads copying, filling, fencing and allocating while the main
    thread finalizes: the work in flight ends before Kokkos tears down (no
    Kokkos error printed), later work is refused with RuntimeError. A race:
    three runs, each of which failed about one time in four before the
    finalize hook waited for the work in flight (Kokkos with OpenMP)."""
    for _ in range(3):
        r = _ok("finalize_while_threads_copy")
        assert "scenario ok" in r.stdout
        assert "ERROR" not in r.stderr, r.stderr


def test_finalize_waits_for_an_allocation_in_flight():
    r = _ok("finalize_while_a_thread_allocates")
    assert "scenario ok" in r.stdout


def test_finalize_waits_for_work_in_flight_and_refuses_new_work():
    """Deterministic: a Tools callback holds an allocation in flight while
    another thread finalizes (the refusal, the second finalize, the release)."""
    if not hasattr(kokkos.tools, "set_allocate_data_callback"):
        pytest.skip("no allocate callback in this Kokkos")
    r = _ok("finalize_waits_for_work_in_flight")
    assert "scenario ok" in r.stdout


@cuda
def test_cuda_array_interface_address_survives_finalize():
    """CuPy keeps the View it read __cuda_array_interface__ from, not a
    release call: finalize must leave that device memory allocated."""
    pytest.importorskip("cupy")
    r = _ok("cuda_array_interface_survives")
    assert "scenario ok" in r.stdout
