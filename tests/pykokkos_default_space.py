"""A pytest plugin for running pykokkos' tests on a Kokkos without OpenMP
(tests/test_pykokkos.py, docs/pykokkos.md): pykokkos compiles kernels for
OpenMP unless told otherwise; this makes the host backend kokkos was built
with (Serial on Debian's Kokkos) pykokkos' default space. Use it as
``python -m pytest -p pykokkos_default_space`` with this directory on
PYTHONPATH."""

from kokkos._types import _BUILD, _EXEC_NAMES


def pytest_configure(config):
    import pykokkos

    backend = _EXEC_NAMES[_BUILD["default_host_execution_space"]]
    pykokkos.set_default_space(getattr(pykokkos.ExecutionSpace, backend))
