"""kokkos.finalize() and kokkos.initialize() from Python that Kokkos runs:
every Kokkos Tools callback, the __del__, weakref and atexit callbacks run
inside one, and other threads finalizing while a callback runs. Nothing may
hang: each call finishes, or raises a RuntimeError that names the callback.

Every case runs in its own interpreter (tests/scenarios/callback_reentry.py)
under a time limit, so a hang fails the test that hung. The sweep takes its
events from kokkos.tools itself: every set_<event>_callback it has.
"""

import json

import pytest

import kokkos
import kokkos.tools as kt
from support import SCENARIO_LIMIT, SCENARIOS, TOOLS_VARIABLES, run_module, run_scenario, succeeded

# How long finalize waits for a callback that waits for it, in these tests.
WAIT = {"KOKKOS_PYTHON_FINALIZE_WAIT": "1"}

# A case takes about a second: each has SCENARIO_LIMIT, each test twice that.
pytestmark = pytest.mark.timeout(2 * SCENARIO_LIMIT)

# Every set_<event>_callback of kokkos.tools (set_callback(event, fn) is not one).
SETTERS = sorted(
    name[len("set_") : -len("_callback")]
    for name in dir(kt)
    if name.startswith("set_") and name.endswith("_callback") and name != "set_callback"
)


def _run(case, *args, env=None):
    return succeeded(
        run_scenario("callback_reentry", case, *args, env=env, unset=TOOLS_VARIABLES, timeout=SCENARIO_LIMIT), "done"
    )


@pytest.fixture(scope="module")
def raised():
    """The events raise_every_event() raises with this Kokkos."""
    out = _run("record").stdout
    return set(json.loads(out.splitlines()[0]))


def test_the_sweep_covers_every_setter_and_event(raised):
    events = [e for e in kt.EVENTS if hasattr(kt, f"set_{e}_callback")]
    assert SETTERS == sorted(events) and len(SETTERS) >= 26
    # the workload raises most of them (not the DualView ones, which only
    # C++ raises, nor those a Kokkos version does not raise from Python)
    assert {"push_region", "allocate_data", "begin_deep_copy", "begin_parallel_for", "finalize"} <= raised
    assert raised <= set(SETTERS)


@pytest.mark.parametrize("action", ["finalize", "initialize"])
@pytest.mark.parametrize("event", SETTERS)
def test_a_callback_that_finalizes_or_initializes(raised, event, action):
    """finalize from inside the callback is refused naming the event;
    initialize returns False, or is refused while Kokkos initializes or
    finalizes; the program runs on and ends."""
    r = _run("sweep", event, action)
    calls = int(r.stdout.split("calls ")[1].split()[0])
    assert (calls > 0) == (event in raised), (calls, sorted(raised))


def test_a_view_del_inside_a_callback():
    _run("view_del_inside_a_callback")


def test_weakref_callbacks_inside_a_callback():
    _run("weakref_callbacks_inside_a_callback")


def test_nested_callbacks_name_the_innermost():
    _run("nested_callbacks")


# Kokkos 3.x's OpenMP backend keeps its instance per thread: C++ code on a
# thread other than the one that initialized Kokkos cannot make a View that
# it initializes ("uninitialized execution space"), as in a C++ program.
CXX_ON_OTHER_THREADS = kokkos.kokkos_version() >= (4, 0, 0) or "OpenMP" not in kokkos.enabled_backends()


@pytest.mark.parametrize(
    "where",
    [
        "region",
        pytest.param(
            "cxx",
            marks=pytest.mark.skipif(
                not CXX_ON_OTHER_THREADS, reason="Kokkos 3.x OpenMP runs C++ Views on the initializing thread only"
            ),
        ),
    ],
)
def test_finalize_in_another_thread_waits_for_a_callback(where):
    """cxx: the callback comes from C++ kernels run with the GIL held (not
    counted Kokkos work): finalize still waits for it, and for the kernels."""
    _run("finalize_waits_for_a_callback_in_another_thread", where)


def test_finalize_gives_up_on_a_callback_that_waits_for_it():
    _run("callback_waits_for_the_finalizing_thread", env=WAIT)


def test_exit_while_a_daemon_thread_waits_in_a_callback():
    r = _run("exit_while_a_thread_waits_in_a_callback", env=WAIT)
    said = "kokkos.finalize(): another thread is still inside a kokkos.tools push_region callback after 1 s"
    assert f"atexit: {said}" in r.stdout
    assert f"kokkos: finalize at exit failed: {said}" in r.stderr


@pytest.mark.parametrize("event", ["push_region", "allocate_data"])
def test_the_sweep_under_the_timer(event):
    """python -m kokkos.tools.timer: its own callbacks set (push_region then
    replaced by the sweep's), Kokkos finalized while they are."""
    r = run_module(
        "kokkos.tools.timer",
        SCENARIOS / "callback_reentry.py",
        "sweep",
        event,
        "finalize",
        unset=TOOLS_VARIABLES,
        timeout=SCENARIO_LIMIT,
    )
    succeeded(r, "done")
    assert "kokkos.tools.timer:" in r.stderr
