"""A pytest plugin for running pykokkos' tests on this package
(tests/test_pykokkos.py, docs/pykokkos.md). Use it as
``python -m pytest -p pykokkos_default_space`` with this directory on
PYTHONPATH.

- pykokkos compiles kernels for OpenMP unless told otherwise; this makes the
  host backend kokkos was built with (Serial on Debian's Kokkos) pykokkos'
  default space, or the one PYKOKKOS_DEFAULT_SPACE names (``Cuda`` for the
  GPU run).
- Under pytest-xdist (``-n N``) each worker compiles into its own
  directory (pk_cpp_workers/<worker>/pk_cpp): pykokkos writes its generated
  code under the working directory, and two workers compiling one kernel
  there would overwrite each other's files."""

import os

from kokkos._types import _BUILD, _EXEC_NAMES


def pytest_configure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        path = os.path.join(os.getcwd(), "pk_cpp_workers", worker)
        os.makedirs(path, exist_ok=True)
        os.chdir(path)
    import pykokkos

    backend = os.environ.get("PYKOKKOS_DEFAULT_SPACE") or _EXEC_NAMES[_BUILD["default_host_execution_space"]]
    pykokkos.set_default_space(getattr(pykokkos.ExecutionSpace, backend))
