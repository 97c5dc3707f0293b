"""Every way into Kokkos from C and C++ modules, before Kokkos is initialized
and after it is finalized, one case per process (tests/test_cxx_entry.py).
Nothing may abort: before initialize an entry point initializes Kokkos as
creating a View does; after finalize it raises. The test modules built from
tests/cxx/ (kp_test_pyb, kp_test_nb, kp_test_c) are on PYTHONPATH.

    cxx_entry.py CASE MODULE ENTRY
"""

import importlib
import warnings

import numpy as np

import kokkos
from scenario import raises, run


def _capi_bound(m, c):
    return c.from_malloc(int(kokkos.double), [3], label="c_bound", kokkos_bound=True).shape


# The entry points: each takes the C++ module and the C module and does one
# thing that crosses into Kokkos from outside the Python package.
ENTRIES = {
    "arg": lambda m, c: m.scale(np.arange(3.0), 2.0),  # a View parameter
    "ret": lambda m, c: m.echo_2d(np.ones((2, 2))).shape,  # a View parameter and return value
    "list": lambda m, c: m.sum_list([np.ones(3), np.ones(2)]),  # std::vector<View>
    "optional": lambda m, c: m.sum_optional(np.ones(3)),  # std::optional<View>
    "capi_bound": _capi_bound,  # view_from_deleter of Kokkos-owned memory
    "capi_ensure": lambda m, c: c.runtime_ensure(),
    "deep_copy": lambda m, c: kokkos.deep_copy(kokkos.asarray(np.zeros(3)), kokkos.asarray(np.ones(3))),
}


def _modules(module):
    return importlib.import_module(module), importlib.import_module("kp_test_c")


# Entries that need only the C module: importing a C++ module on the
# pybind11 / nanobind header initializes Kokkos already (docs/building.md).
C_ONLY = ("capi_bound", "capi_ensure", "deep_copy")


def before_initialize(module, entry):
    """The entry point is the program's first Kokkos action: it initializes.
    For the C++ modules that action is their import."""
    if entry in C_ONLY:
        m, c = None, importlib.import_module("kp_test_c")
        assert not kokkos.is_initialized()
    else:
        m, c = _modules(module)
        assert kokkos.is_initialized()
    ENTRIES[entry](m, c)
    assert kokkos.is_initialized()
    kokkos.finalize()
    print("OK")


def _raises_after_finalize(module, call, *words):
    """pybind11 casters and the core raise RuntimeError; nanobind's casters
    cannot throw (nanobind calls them from noexcept code), so the reason is a
    RuntimeWarning and the call raises nanobind's TypeError."""
    if module == "kp_test_nb":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with raises(TypeError, "incompatible function arguments"):
                call()
        said = " | ".join(str(w.message) for w in caught if w.category is RuntimeWarning)
        for word in words:
            assert word in said, f"expected {word!r} in the RuntimeWarning, got {said!r}"
    else:
        with raises(RuntimeError, *words):
            call()


def after_finalize(module, entry):
    m, c = _modules(module)
    kokkos.initialize()
    kokkos.finalize()
    call = lambda: ENTRIES[entry](m, c)  # noqa: E731
    if entry in ("capi_bound", "capi_ensure", "deep_copy"):
        with raises(RuntimeError, "finalized"):
            call()
    else:
        _raises_after_finalize(module, call, "finalized")
    print("OK")


def released(module, entry):
    """A View released at finalize, passed to C++: the message names it."""
    m, c = _modules(module)
    kokkos.initialize()
    v = kokkos.array("gone", [2, 2], dtype=kokkos.double)
    w = kokkos.array("gone_1d", [3], dtype=kokkos.double)
    kokkos.finalize()
    assert v.released and w.released
    calls = {
        "arg": lambda: m.scale(w, 2.0),
        "ret": lambda: m.echo_2d(v),
        "list": lambda: m.sum_list([w, np.ones(2)]),
        "optional": lambda: m.sum_optional(w),
    }
    label = "'gone'" if entry == "ret" else "'gone_1d'"
    _raises_after_finalize(module, calls[entry], label, "was released")
    print("OK")


def released_warnings_as_errors(module, entry):
    """Under -W error (warnings.simplefilter("error")) nanobind's caster
    cannot warn either: the TypeError alone, and nothing aborts."""
    m, c = _modules(module)
    kokkos.initialize()
    w = kokkos.array("gone_1d", [3], dtype=kokkos.double)
    kokkos.finalize()
    calls = {"arg": lambda: m.scale(w, 2.0), "list": lambda: m.sum_list([w])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with raises(TypeError, "incompatible function arguments"):
            calls[entry]()
    print("OK")


CASES = {f.__name__: f for f in (before_initialize, after_finalize, released, released_warnings_as_errors)}

if __name__ == "__main__":
    run(CASES)
