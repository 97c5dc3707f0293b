"""What the scenario scripts share.

A scenario script runs in a fresh interpreter (Kokkos initializes once per
process), started by tests/support.py as ``python tests/scenarios/NAME.py
CASE [ARGS...]``; this directory is then first on sys.path. It must exit 0
for its test to pass: a failed assert, an exception, or a raise that did not
happen makes it exit 1 with a traceback the test shows.

This module imports nothing but the standard library, so a scenario starts
with exactly the modules it imports itself.
"""

import contextlib
import sys


class Raised:
    """What raises() caught: value is the exception."""

    value = None


@contextlib.contextmanager
def raises(exc, *words):
    """The block must raise exc (a class or a tuple of them) with each of
    words in its message; if it raises nothing, the scenario fails.

        with raises(RuntimeError, "'label'", "released"):
            view[0]
    """
    raised = Raised()
    try:
        yield raised
    except exc as e:
        raised.value = e
        for word in words:
            assert word in str(e), f"{type(e).__name__}: {e} (expected {word!r} in the message)"
    else:
        names = exc.__name__ if isinstance(exc, type) else " or ".join(e.__name__ for e in exc)
        raise AssertionError(f"expected {names}, nothing was raised")


_kept = []


def run(cases):
    """Runs the case sys.argv[1] names, a function of cases, with the rest of
    sys.argv as its arguments. What it returns stays alive until the
    interpreter exits, as a script's globals would."""
    if len(sys.argv) < 2 or sys.argv[1] not in cases:
        raise SystemExit(f"usage: {sys.argv[0]} CASE [ARGS...] with CASE one of {', '.join(cases)}")
    _kept.append(cases[sys.argv[1]](*sys.argv[2:]))
