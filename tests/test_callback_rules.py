"""What Python run from a Kokkos event may do (docs/hardening.md): make and
drop Views, raise and recurse (too deep: one RecursionError, reported as any
callback error is, never a crash); end the program (KeyboardInterrupt and
SystemExit raised in a callback reach it as soon as the Kokkos call that ran
the callback returns; Ctrl-C ends finalize()'s wait for another thread's
callback); and call the original package's self-test, which runs one at a
time (RuntimeError otherwise). Each case runs in its own interpreter
(tests/scenarios/callback_rules.py) under a time limit."""

import pytest

from support import SCENARIO_LIMIT, TOOLS_VARIABLES, failed, load_scenario, run_scenario, succeeded

pytestmark = pytest.mark.timeout(2 * SCENARIO_LIMIT)

CASES = sorted(
    set(load_scenario("callback_rules").CASES)
    - {"system_exit", "self_test_threads", "callbacks_removed_while_threads_use_kokkos"}
)


def _run(case, *args):
    return run_scenario("callback_rules", case, *args, unset=TOOLS_VARIABLES, timeout=SCENARIO_LIMIT)


@pytest.mark.parametrize("case", CASES)
def test_callback_rule(case):
    succeeded(_run(case), "done", clean=True)


def test_a_deallocation_chain_stops_at_the_recursion_limit():
    """The chain of the issue: a View returned by each deallocate_data
    callback; it stops after hundreds of levels, not at the C stack's end."""
    out = succeeded(_run("deallocation_chain"), "done", clean=True).stdout
    levels = int(out.split("levels ")[1].split()[0])
    assert 50 < levels <= 1000


@pytest.mark.parametrize("limit", [200, 100000])
def test_a_deallocation_chain_follows_the_recursion_limit_up_to_a_cap(limit):
    """A lower limit stops the chain sooner; a limit set far higher (as
    recursive programs do) still ends it at 1,000 levels, where the C stack
    holds (CPython 3.12 and later count C calls against a limit of their
    own, more than these levels fit)."""
    out = succeeded(_run("deallocation_chain", str(limit)), "done", clean=True).stdout
    levels = int(out.split("levels ")[1].split()[0])
    assert 50 < levels <= min(limit, 1000)


@pytest.mark.parametrize("code", [0, 7])
def test_sys_exit_in_a_callback_ends_the_program(code):
    r = _run("system_exit", str(code))
    assert "before" in r.stdout and "not reached" not in r.stdout, r.stdout + r.stderr
    if code:
        failed(r, returncode=code)
    else:
        succeeded(r, clean=True)


@pytest.mark.parametrize("run", range(4))
def test_views_while_another_thread_finalizes(run):
    """A race: each run is one more chance for the thread to allocate while
    Kokkos finalizes."""
    succeeded(_run("views_while_another_thread_finalizes"), "done", clean=True)


def test_callbacks_removed_while_threads_use_kokkos_never_crash():
    """Kokkos reads a slot twice (test, then call); a slot emptied by
    another thread in between was a call through NULL (Kokkos 4 and 5 fence
    between the two)."""
    out = succeeded(_run("callbacks_removed_while_threads_use_kokkos", "3"), "done", clean=True).stdout
    assert int(out.split("events ")[1].split()[0]) > 0


def test_the_self_test_from_two_threads_never_crashes():
    r = succeeded(_run("self_test_threads", "40"), "done", clean=True)
    assert "outcomes" in r.stdout
