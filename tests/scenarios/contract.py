"""The Python API's promises that need a fresh process (Kokkos initializes
once per process), for tests/test_contract.py.

    contract.py CASE
"""

import warnings

import numpy as np

import kokkos
from scenario import raises, run


def bad_threads_argument():
    """A non-numeric --kokkos-threads: ValueError naming the argument, not
    Kokkos' std::stoi message; Kokkos stays uninitialized."""
    for arg in ("--kokkos-threads=abc", "--kokkos-num-threads=", "--kokkos-device-id=-1"):
        with raises(ValueError, f"'{arg}'", "expected a non-negative integer") as r:
            kokkos.initialize(["prog", arg])
        assert "stoi" not in str(r.value)
        assert not kokkos.is_initialized()
    assert kokkos.initialize(["prog", "--kokkos-threads=1"])
    print("OK")


def unloadable_tools_library():
    """A tools library the loader cannot find: Kokkos prints and runs on;
    Python hears a RuntimeWarning naming the library and the keyword."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert kokkos.initialize(tools_libs="libkokkos_python_no_such_tool.so")
    said = [str(w.message) for w in caught if w.category is RuntimeWarning]
    assert any(
        "kokkos.initialize(): Kokkos" in s
        and "could not load the Tools library 'libkokkos_python_no_such_tool.so' given as tools_libs" in s
        for s in said
    ), said
    print("OK")


def unloadable_tools_library_from_environment(variable, how):
    """The same through KOKKOS_TOOLS_LIBS / KOKKOS_PROFILE_LIBRARY (variable,
    set by the test), when kokkos.initialize() initializes (how="initialize")
    and when the first View does ("auto"). A Kokkos before 3.7 does not read
    KOKKOS_TOOLS_LIBS: the warning says which variable it reads."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if how == "initialize":
            assert kokkos.initialize()
        else:
            kokkos.View((2,))
            assert kokkos.is_initialized()
    said = [str(w.message) for w in caught if w.category is RuntimeWarning]
    where = "kokkos.initialize()" if how == "initialize" else "Kokkos initialized on first use"
    version = ".".join(map(str, kokkos.kokkos_version()))
    if variable == "KOKKOS_TOOLS_LIBS" and kokkos.kokkos_version() < (3, 7, 0):
        want = (
            f"{where}: KOKKOS_TOOLS_LIBS='libkokkos_python_no_such_tool.so' is set, but Kokkos {version} reads "
            "KOKKOS_PROFILE_LIBRARY (it reads KOKKOS_TOOLS_LIBS from 3.7 on), so no Tools library was loaded; "
            "set KOKKOS_PROFILE_LIBRARY='libkokkos_python_no_such_tool.so'"
        )
    else:
        want = (
            f"{where}: Kokkos {version} could not load the Tools library 'libkokkos_python_no_such_tool.so' "
            f"named by {variable} (Kokkos prints why on stderr)"
        )
    assert any(want in s for s in said), (want, said)
    print("OK")


def deep_copy_before_initialize(kind):
    """deep_copy initializes Kokkos as creating a View does, whatever the
    source: another View over NumPy memory, a NumPy array, a scalar."""
    dst = kokkos.asarray(np.zeros(3))
    src = {"view": kokkos.asarray(np.ones(3)), "array": np.ones(3), "scalar": 1.0}[kind]
    assert not kokkos.is_initialized()
    kokkos.deep_copy(dst, src)
    assert kokkos.is_initialized()
    assert np.asarray(dst).tolist() == [1.0, 1.0, 1.0]
    print("OK")


def deep_copy_after_finalize(kind):
    kokkos.initialize()
    kokkos.finalize()
    dst = kokkos.asarray(np.zeros(3))
    src = {"view": kokkos.asarray(np.ones(3)), "array": np.ones(3), "scalar": 1.0}[kind]
    with raises(RuntimeError, "finalized"):
        kokkos.deep_copy(dst, src)
    print("OK")


CASES = {
    f.__name__: f
    for f in (
        bad_threads_argument,
        unloadable_tools_library,
        unloadable_tools_library_from_environment,
        deep_copy_before_initialize,
        deep_copy_after_finalize,
    )
}

if __name__ == "__main__":
    run(CASES)
