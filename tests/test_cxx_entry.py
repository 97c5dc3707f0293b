"""Every entry point from C and C++ modules into Kokkos, before initialize,
after finalize and with a released View, each in a fresh interpreter
(tests/scenarios/cxx_entry.py): the pybind11 and nanobind casters (a View
parameter, a returned View, std::vector<View>, std::optional<View>), the C
API and a deep_copy between two wrapped NumPy arrays. Nothing aborts:
before initialize they initialize Kokkos, after finalize they raise.
"""

from __future__ import annotations

import pytest

import cxx_build
from support import load_scenario, run_scenario, succeeded

MODULES = ["kp_test_pyb", "kp_test_nb"]
ENTRIES = list(load_scenario("cxx_entry").ENTRIES)
CASTER_ENTRIES = ["arg", "ret", "list", "optional"]


@pytest.fixture(scope="module")
def built():
    return cxx_build.built_test_modules()


def scenario(case, module, entry, built):
    return succeeded(run_scenario("cxx_entry", case, module, entry, paths=[built]), "OK", clean=True)


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("module", MODULES)
def test_entry_point_before_initialize_initializes_kokkos(built, module, entry):
    scenario("before_initialize", module, entry, built)


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("module", MODULES)
def test_entry_point_after_finalize_raises(built, module, entry):
    scenario("after_finalize", module, entry, built)


@pytest.mark.parametrize("entry", CASTER_ENTRIES)
@pytest.mark.parametrize("module", MODULES)
def test_released_view_passed_to_cxx_names_the_view(built, module, entry):
    scenario("released", module, entry, built)


@pytest.mark.parametrize("entry", ["arg", "list"])
def test_nanobind_released_view_under_warnings_as_errors_raises_type_error(built, entry):
    scenario("released_warnings_as_errors", "kp_test_nb", entry, built)
