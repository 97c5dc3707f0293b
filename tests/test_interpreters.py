"""kokkos._core declares that it does not support sub-interpreters (Kokkos,
the C API table and the finalize registry are per process): importing it in
one fails with a clear ImportError, and the main interpreter's kokkos keeps
working. On Python 3.12+ an isolated sub-interpreter's import system
refuses (the module's Py_mod_multiple_interpreters slot); before 3.12, and in
a legacy sub-interpreter (which does not check its extensions), the module's
exec does."""

import importlib.util

import pytest

from support import run_python, succeeded

LOW_LEVEL = next(
    (name for name in ("_interpreters", "_xxsubinterpreters") if importlib.util.find_spec(name)),
    None,
)

pytestmark = pytest.mark.skipif(LOW_LEVEL is None, reason="this Python has no sub-interpreter module")


def test_subinterpreter_import_is_refused():
    proc = run_python(
        f"""
        import os
        import {LOW_LEVEL} as interpreters
        import kokkos

        v = kokkos.array([3])
        r, w = os.pipe()
        code = "\\n".join([
            "import os",
            "try:",
            "    import kokkos._core",
            "    message = 'imported'",
            "except ImportError as e:",
            "    message = 'ImportError: ' + str(e)",
            f"os.write({{w}}, message.encode())",
        ])
        i = interpreters.create()
        try:
            run = getattr(interpreters, "exec", None) or interpreters.run_string
            run(i, code)
        finally:
            interpreters.destroy(i)
        os.close(w)
        print(os.read(r, 4096).decode())
        kokkos.deep_copy(v, 2.0)  # the main interpreter's kokkos is untouched
        print("main", list(v))
        """
    )
    succeeded(proc, "main [2.0, 2.0, 2.0]")
    assert "ImportError: module kokkos._core does not support loading in subinterpreters" in proc.stdout, proc.stdout


@pytest.mark.skipif(importlib.util.find_spec("_testcapi") is None, reason="this Python has no _testcapi")
def test_legacy_subinterpreter_import_is_refused():
    proc = run_python(
        """
        import os
        import _testcapi
        import kokkos

        r, w = os.pipe()
        code = "\\n".join([
            "import os",
            "try:",
            "    import kokkos._core",
            "    message = 'imported'",
            "except ImportError as e:",
            "    message = 'ImportError: ' + str(e)",
            f"os.write({w}, message.encode())",
        ])
        _testcapi.run_in_subinterp(code)  # the legacy configuration
        os.close(w)
        print(os.read(r, 4096).decode())
        print("main", kokkos.array([2]).shape)
        """
    )
    succeeded(proc, "main [2]")
    assert "ImportError: module kokkos._core does not support loading in subinterpreters" in proc.stdout, proc.stdout
