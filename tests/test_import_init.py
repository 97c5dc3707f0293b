"""Importing a C++ module built on the kokkos_python pybind11 or nanobind
header initializes Kokkos when nothing has, as kokkos.initialize() would
(issue 26: a C++ function making a Kokkos::View before initialize aborted
the process). Each case in a fresh interpreter: tests/scenarios/import_init.py."""

from __future__ import annotations

import pytest

import cxx_build
from support import load_scenario, run_scenario, succeeded

MODULES = ["kp_test_pyb", "kp_test_nb"]
CASES = [c for c in load_scenario("import_init").CASES if c != "import_reads_sys_argv"]


@pytest.fixture(scope="module")
def built():
    return cxx_build.built_test_modules()


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("module", MODULES)
def test_import_initializes_kokkos(built, module, case):
    succeeded(run_scenario("import_init", case, module, paths=[built]), "OK", clean=True)


@pytest.mark.parametrize("module", MODULES)
def test_import_reads_kokkos_flags_of_sys_argv_and_reports_failure(built, module):
    proc = run_scenario("import_init", "import_reads_sys_argv", module, "--kokkos-threads=abc", paths=[built])
    succeeded(proc, "OK", clean=True)
