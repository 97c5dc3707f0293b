"""The Kokkos runtime from Python: initialize / finalize in every order,
Views alive at finalize (ours or the C++ side's), auto-initialize and
finalize at exit. Each scenario runs in its own interpreter, since Kokkos
initializes once per process: short ones inline, the others in
tests/scenarios/runtime_lifecycle.py."""

import os

import numpy as np
import pytest

import kokkos
from pykokkos_suite import BINDING
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


def test_execution_space_instance_initializes_kokkos():
    # Kokkos 5.1 allows an execution-space instance only between initialize
    # and finalize: making one initializes Kokkos first.
    r = scenario("execution_space_instance_initializes_kokkos")
    assert "initialized by KokkosExecutionSpace_" in r.stdout


def test_runtime_ensure_names_its_caller_by_a_str():
    # the rule's entry for Python code (execution-space instances) takes the caller's name
    with pytest.raises(TypeError, match=r"^_runtime_ensure\(\): where must be a str, got int$"):
        kokkos._core._runtime_ensure(1)


def test_execution_space_instance_after_finalize():
    r = scenario("execution_space_instance_after_finalize")
    assert "refused after finalize" in r.stdout


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


def test_every_mirror_spelling_refuses_a_released_view():
    r = scenario("mirrors_of_a_released_view_refuse")
    assert r.stdout.count("refused:") == 4, r.stdout + r.stderr


def test_numpy_outlives_everything():
    a = np.asarray(kokkos.array([3]))
    a[:] = 1
    assert a.sum() == 3


# ---- OpenMP thread binding ----------------------------------------------------------------------

needs_openmp = pytest.mark.skipif(
    "OpenMP" not in kokkos.enabled_backends(), reason="thread binding concerns Kokkos' OpenMP backend"
)

SHOW_BINDING = f"""
    import ctypes, os, kokkos
    kokkos.initialize()
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    print("python", [os.environ.get(k) for k in {BINDING!r}])
    print("c", [libc.getenv(k.encode()) for k in {BINDING!r}])
"""


def test_initialize_puts_no_thread_binding_into_the_environment():
    # Neither Python's os.environ nor the C environment (what a forked child
    # or a later-loaded OpenMP runtime reads) gains a value.
    succeeded(run_python(SHOW_BINDING, unset=BINDING), "python [None, None]", "c [None, None]")


def test_initialize_keeps_the_users_thread_binding():
    proc = run_python(SHOW_BINDING, env={"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"})
    succeeded(proc, "python ['close', 'cores']", "c [b'close', b'cores']")


@needs_openmp
def test_no_binding_warning_from_kokkos_when_the_user_set_none():
    proc = succeeded(run_python("import kokkos; kokkos.initialize(); kokkos.finalize()", unset=BINDING))
    assert "OMP_PROC_BIND" not in proc.stderr, proc.stderr


@needs_openmp
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to see a binding")
def test_a_process_started_after_initialize_keeps_every_core():
    # A child of a program that initialized Kokkos, itself initializing
    # Kokkos, may run on every core its parent may: its main thread (and the
    # compilers or workers it starts) is not bound to the first core.
    code = """
        import os, subprocess, sys, kokkos
        kokkos.initialize()
        child = "import os, kokkos; kokkos.initialize(); print(sorted(os.sched_getaffinity(0)))"
        print("parent", sorted(os.sched_getaffinity(0)))
        out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout
        print("child", out.strip())
    """
    every = sorted(os.sched_getaffinity(0))
    succeeded(run_python(code, unset=BINDING), f"parent {every}", f"child {every}")
