"""First use of Kokkos from several threads at once (docs/hardening.md):
Kokkos is initialized once and every thread gets its View, with or without
Kokkos Tools callbacks set (which make Kokkos initialize without the GIL);
a thread that finds another initializing waits for it, and Ctrl-C ends that
wait. Each case runs in its own interpreter (tests/scenarios/first_use.py)
under a time limit."""

import pytest

from support import SCENARIO_LIMIT, TOOLS_VARIABLES, load_scenario, run_scenario, succeeded

pytestmark = pytest.mark.timeout(2 * SCENARIO_LIMIT)

OTHER_CASES = sorted(set(load_scenario("first_use").CASES) - {"views"})


def _run(case, *args):
    return run_scenario("first_use", case, *args, unset=TOOLS_VARIABLES, timeout=SCENARIO_LIMIT)


@pytest.mark.parametrize("callbacks", ["none", "set"])
@pytest.mark.parametrize("threads", [2, 8])
def test_first_views_from_threads(threads, callbacks):
    succeeded(_run("views", str(threads), callbacks), "done", clean=True)


@pytest.mark.parametrize("case", OTHER_CASES)
def test_first_use(case):
    succeeded(_run(case), "done", clean=True)
