"""Importing a C++ module built on the kokkos_python pybind11 or nanobind
header initializes Kokkos, as a plain kokkos.initialize() would, when
nothing has (tests/test_import_init.py; docs/building.md). One case per
process; the test modules of tests/cxx/ are on PYTHONPATH.

    import_init.py CASE MODULE [ARGS...]
"""

import importlib
import warnings

import kokkos
from scenario import raises, run


def view_made_in_cxx_first(module):
    """A C++ function that makes a Kokkos::View as the program's first Kokkos
    action: the import initialized Kokkos, so it works (it used to abort)."""
    assert not kokkos.is_initialized()
    m = importlib.import_module(module)
    assert kokkos.is_initialized()
    assert kokkos.runtime._initialized_at_import == module
    assert m.make_left_1d(3).shape == (3,)
    print("OK")


def initialize_with_settings_after_import_warns(module):
    m = importlib.import_module(module)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert kokkos.initialize() is False  # nothing asked for: nothing to say
        assert not caught, [str(w.message) for w in caught]
        assert kokkos.initialize(num_threads=2, disable_warnings=True) is False
        assert kokkos.initialize(["prog", "--kokkos-threads=2"]) is False
    said = [str(w.message) for w in caught if w.category is RuntimeWarning]
    assert len(said) == 2, said
    assert said[0] == (
        f"kokkos.initialize(): Kokkos was already initialized, with default settings, when {module} was imported "
        "(a module built on the kokkos_python pybind11 or nanobind header initializes Kokkos at import); "
        f"num_threads=2, disable_warnings=True cannot apply any more: call kokkos.initialize(...) before "
        f"importing {module}"
    ), said[0]
    assert "'--kokkos-threads=2' cannot apply any more" in said[1], said[1]
    assert m.make_left_1d(2).shape == (2,)
    print("OK")


def initialize_before_import(module):
    """The documented order: kokkos.initialize(...) first; the import then
    leaves Kokkos alone and nothing warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kokkos.initialize(num_threads=1) is True
        m = importlib.import_module(module)
    assert kokkos.runtime._initialized_at_import is None
    assert m.make_left_1d(2).shape == (2,)
    print("OK")


def import_after_finalize(module):
    """After finalize the import initializes nothing (Kokkos cannot be
    initialized again) and the module imports; its View calls raise."""
    kokkos.initialize()
    kokkos.finalize()
    m = importlib.import_module(module)
    assert kokkos.is_finalized() and not kokkos.is_initialized()
    assert kokkos.runtime._initialized_at_import is None
    assert m.kokkos_version() > 0
    print("OK")


def import_reads_sys_argv(module, *flags):
    """The import initializes as kokkos.initialize() does: with sys.argv's
    --kokkos-* flags (given to this script). A bad one makes the import fail
    with ImportError naming the module, caused by initialize's ValueError."""
    with raises(ImportError) as r:
        importlib.import_module(module)
    # pybind11 and nanobind raise their own ImportError ("initialization
    # failed", "Encountered an error while initializing the extension") from
    # the module's
    error = r.value
    while error is not None and "Kokkos could not be initialized" not in str(error):
        error = error.__cause__ or error.__context__
    assert isinstance(error, ImportError), repr(r.value)
    assert f"{module}: Kokkos could not be initialized when the module was loaded" in str(error), str(error)
    assert "call kokkos.initialize() before importing it" in str(error)
    assert isinstance(error.__cause__, ValueError), repr(error.__cause__)
    assert "'--kokkos-threads=abc'" in str(error.__cause__)
    assert not kokkos.is_initialized()
    print("OK")


CASES = {
    f.__name__: f
    for f in (
        view_made_in_cxx_first,
        initialize_with_settings_after_import_warns,
        initialize_before_import,
        import_after_finalize,
        import_reads_sys_argv,
    )
}

if __name__ == "__main__":
    run(CASES)
