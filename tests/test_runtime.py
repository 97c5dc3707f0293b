"""The Kokkos runtime from Python: initialize / finalize in every order,
Views alive at finalize (ours or the C++ side's), auto-initialize and
finalize at exit. Each scenario runs in its own interpreter, since Kokkos
initializes once per process: short ones inline, the others in
tests/scenarios/runtime_lifecycle.py."""

import numpy as np
import pytest

import kokkos
from support import failed, run_python, run_scenario, succeeded


def scenario(case):
    return succeeded(run_scenario("runtime_lifecycle", case))


def test_in_process_state():
    assert kokkos.is_initialized()
    assert not kokkos.is_finalized()
    assert kokkos.initialize() is False, "already initialized"
    kokkos.fence()
    kokkos.fence("named fence")
    major, minor, patch = kokkos.kokkos_version()
    assert major >= 3
    backends = kokkos.enabled_backends()
    assert backends and set(backends) <= {"Serial", "Threads", "OpenMP", "Cuda", "HPX", "HIP", "SYCL", "OpenMPTarget"}
    assert "HostSpace" in kokkos.enabled_memory_spaces()


def test_fence_argument_errors():
    with pytest.raises(TypeError, match="label must be a str"):
        kokkos.fence(3)
    with pytest.raises(TypeError, match="at most 1 argument"):
        kokkos.fence("a", "b")


def test_print_configuration(capsys):
    kokkos.print_configuration()
    out = capsys.readouterr().out
    assert "Kokkos" in out or "KOKKOS" in out


def test_initialize_argument_errors():
    with pytest.raises(TypeError, match="argv must be a list of str"):
        kokkos.initialize("--kokkos-threads=2")
    with pytest.raises(TypeError, match=r"argv\[1\] must be a str"):
        kokkos._core._initialize(["python", 3], None, None, None, None, None, None)


def test_initialize_keyword_errors_in_fresh_process():
    scenario("initialize_keyword_errors")


def test_initialize_finalize_cycle():
    r = scenario("initialize_finalize_cycle")
    assert "reinit refused" in r.stdout and "alloc refused" in r.stdout


def test_print_configuration_keyword():
    r = succeeded(run_python("import kokkos; kokkos.initialize(print_configuration=True); kokkos.finalize()"))
    assert "Kokkos" in r.stdout or "KOKKOS" in r.stdout


def test_view_creation_initializes_kokkos():
    scenario("view_creation_initializes_kokkos")


def test_live_views_at_finalize():
    r = scenario("live_views_at_finalize")
    assert "done" in r.stdout


def test_finalize_at_exit_with_live_views():
    r = scenario("exit_with_live_views")
    assert "exiting" in r.stdout
    assert "rror" not in r.stderr and "abort" not in r.stderr.lower()


def test_cxx_side_finalize_releases_python_views():
    # The application's C++ code finalizes Kokkos directly (not through the
    # package): Kokkos' finalize hook must release the Python Views first.
    r = scenario("cxx_side_finalize_releases_python_views")
    assert "released by the C++ finalize" in r.stdout


def test_seed_style_initialize_reads_argv():
    scenario("seed_style_initialize_reads_argv")


def test_array_after_finalize_in_process_is_refused_cleanly():
    # in-process: nothing here may finalize, so only check the error path of
    # a released allocation through a fresh interpreter
    failed(run_scenario("runtime_lifecycle", "mirror_of_a_released_view"), "RuntimeError", "released", returncode=1)


def test_numpy_outlives_everything():
    a = np.asarray(kokkos.array([3]))
    a[:] = 1
    assert a.sum() == 3
