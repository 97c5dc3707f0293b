"""Lifetimes across Kokkos finalize, the Kokkos runtime check, the build
paths (python -m kokkos, the CMake package) and the seed's example, each in
a fresh interpreter where the process state matters.

- finalize with Views alive on both sides, called from Python or from C++:
  Python Views read as released, C++ modules drop theirs in a finalize hook,
  nothing aborts (tests/scenarios/cxx_finalize.py);
- a module built against another Kokkos library fails to import with
  ImportError naming both libraries;
- examples/ built as a user would, printing the seed's Expected Output.
- scripts/init_order_probe.sh (the seed example's module in each import
  order) and its crash handler, scripts/segv_backtrace.c.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cxx_build
import kokkos
from support import SCENARIO_LIMIT, failed, run_module, run_python, run_scenario, succeeded

# The original package's "Expected Output" of examples/ex-numpy.py.
SEED_EXPECTED = """\
[user-bindings]> Generating View... Done.
[user-bindings]> Modifying View... Done.
Executing to numpy...
Kokkos View  : KokkosView_float64_HostSpace_LayoutRight_1 (ndim=1, shape=[10])
view    (0) = 0.0
view    (1) = 1.0
view    (2) = 0.0
view    (3) = 3.0
view    (4) = 0.0
view    (5) = 5.0
view    (6) = 0.0
view    (7) = 7.0
view    (8) = 0.0
view    (9) = 9.0
Numpy Array  : ndarray (ndim=1, shape=(10,))
arr     (0) = 0.0
arr     (1) = 1.0
arr     (2) = 0.0
arr     (3) = 3.0
arr     (4) = 0.0
arr     (5) = 5.0
arr     (6) = 0.0
arr     (7) = 7.0
arr     (8) = 0.0
arr     (9) = 9.0
Executing from numpy...
Numpy Array  : ndarray (ndim=2, shape=(10, 10))
arr     (0) = [0 1 1 1 1 1 1 1 1 1]
arr     (1) = [1 0 1 1 1 1 1 1 1 1]
arr     (2) = [1 1 0 1 1 1 1 1 1 1]
arr     (3) = [1 1 1 0 1 1 1 1 1 1]
arr     (4) = [1 1 1 1 0 1 1 1 1 1]
arr     (5) = [1 1 1 1 1 0 1 1 1 1]
arr     (6) = [1 1 1 1 1 1 0 1 1 1]
arr     (7) = [1 1 1 1 1 1 1 0 1 1]
arr     (8) = [1 1 1 1 1 1 1 1 0 1]
arr     (9) = [1 1 1 1 1 1 1 1 1 0]
Kokkos View  : KokkosDynRankView_int32_HostSpace_LayoutRight (ndim=2, shape=[10, 10, 1, 1, 1, 1, 1])
view    (0) = [0 1 1 1 1 1 1 1 1 1]
view    (1) = [1 0 1 1 1 1 1 1 1 1]
view    (2) = [1 1 0 1 1 1 1 1 1 1]
view    (3) = [1 1 1 0 1 1 1 1 1 1]
view    (4) = [1 1 1 1 0 1 1 1 1 1]
view    (5) = [1 1 1 1 1 0 1 1 1 1]
view    (6) = [1 1 1 1 1 1 0 1 1 1]
view    (7) = [1 1 1 1 1 1 1 0 1 1]
view    (8) = [1 1 1 1 1 1 1 1 0 1]
view    (9) = [1 1 1 1 1 1 1 1 1 0]
Executing user bindings...
Kokkos View  : KokkosView_float64_HostSpace_LayoutRight_2 (ndim=2, shape=[10, 2])
view    (0) = [-1.0 1.0]
view    (1) = [-2.0 2.0]
view    (2) = [-3.0 3.0]
view    (3) = [-4.0 4.0]
view    (4) = [-5.0 5.0]
view    (5) = [-6.0 6.0]
view    (6) = [-7.0 7.0]
view    (7) = [-8.0 8.0]
view    (8) = [-9.0 9.0]
view    (9) = [-10.0 10.0]
Modify View  : KokkosView_float64_HostSpace_LayoutRight_2 (ndim=2, shape=[10, 2])
view    (0) = [-2.0 2.0]
view    (1) = [-4.0 4.0]
view    (2) = [-6.0 6.0]
view    (3) = [-8.0 8.0]
view    (4) = [-10.0 10.0]
view    (5) = [-12.0 12.0]
view    (6) = [-14.0 14.0]
view    (7) = [-16.0 16.0]
view    (8) = [-18.0 18.0]
view    (9) = [-20.0 20.0]
Numpy Array  : ndarray (ndim=2, shape=(10, 2))
arr     (0) = [-2.0 2.0]
arr     (1) = [-4.0 4.0]
arr     (2) = [-6.0 6.0]
arr     (3) = [-8.0 8.0]
arr     (4) = [-10.0 10.0]
arr     (5) = [-12.0 12.0]
arr     (6) = [-14.0 14.0]
arr     (7) = [-16.0 16.0]
arr     (8) = [-18.0 18.0]
arr     (9) = [-20.0 20.0]
"""


@pytest.fixture(scope="module")
def built():
    return cxx_build.built_test_modules()


def scenario(case, *args, paths):
    return succeeded(run_scenario("cxx_finalize", case, *args, paths=paths))


@pytest.mark.parametrize("mod", ["kp_test_pyb", "kp_test_nb"])
@pytest.mark.parametrize("finalize", ["python", "cxx"], ids=["python", "cxx"])
def test_finalize_with_views_alive_on_both_sides(built, mod, finalize):
    res = scenario("both_sides_alive", mod, finalize, paths=[built])
    assert res.stdout.strip().endswith("OK")


@pytest.mark.parametrize("event", ["push_region", "begin_deep_copy", "allocate_data"])
def test_cxx_finalize_inside_a_callback_of_a_python_call(built, event):
    """Kokkos::finalize from C++ inside a Tools callback of a Python call on
    the same thread: it ends (it waited for that call forever), the call
    completes or raises, nothing is freed under it."""
    succeeded(
        run_scenario("cxx_finalize", "cxx_finalize_inside_a_callback", event, paths=[built], timeout=SCENARIO_LIMIT)
    )


def test_exit_without_finalize_with_views_alive(built):
    res = scenario("exit_without_finalize", paths=[built])
    assert res.stdout.strip() == "bye" and "Kokkos" not in res.stderr


def test_numpy_array_of_cpp_view_outlives_finalize(built):
    scenario("numpy_array_outlives_finalize", paths=[built])


# ---- one Kokkos runtime ---------------------------------------------------------------------


def test_module_built_against_another_kokkos_is_refused(tmp_path):
    other = cxx_build.other_kokkos()
    if other is None:
        pytest.skip("only one Kokkos is installed here")
    inc, lib, omp = other
    flags = [
        f"-I{kokkos.get_include()}",
        f"-I{inc}",
        f"-I{__import__('sysconfig').get_paths()['include']}",
        lib,
        f"-Wl,-rpath,{os.path.dirname(lib)}",
        "-ldl",
    ] + (["-fopenmp"] if omp else [])
    cxx_build.compile_module(cxx_build.SOURCES / "mismatch_module.cpp", "kp_test_mismatch", flags, tmp_path)
    res = failed(run_python("import kp_test_mismatch", paths=[tmp_path]))
    assert re.search(
        r"ImportError: kp_test_mismatch uses a different Kokkos library than the kokkos package: "
        r"the module was built against Kokkos \d+\.\d+\.\d+ \(.*kokkoscore.*\), kokkos._core runs "
        r"Kokkos \d+\.\d+\.\d+ \(.*kokkoscore.*\)\. Two Kokkos runtimes in one process cannot share "
        r"Views",
        res.stderr,
    ), res.stderr
    mine = ".".join(map(str, kokkos.kokkos_version()))
    assert f"kokkos._core runs Kokkos {mine}" in res.stderr


def test_module_built_by_hand_with_python_m_kokkos_flags(tmp_path):
    """The positive control of the test above: the same module, built with
    the flags `python -m kokkos` prints, imports."""
    if kokkos.get_memory_space_available("CudaSpace"):
        pytest.skip("a CUDA Kokkos's headers compile only with its nvcc_wrapper, not the plain host compiler")

    def flags(opt):
        return succeeded(run_module("kokkos", opt)).stdout.split()

    cxx_build.compile_module(
        cxx_build.SOURCES / "mismatch_module.cpp",
        "kp_test_mismatch",
        flags("--includes") + flags("--ldflags"),
        tmp_path,
    )
    succeeded(run_python("import kp_test_mismatch; print('imported')", paths=[tmp_path]))
    # and the plain C module needs only the include flags
    cxx_build.compile_module(cxx_build.SOURCES / "capi_module.c", "kp_test_c", flags("--includes"), tmp_path)
    succeeded(
        run_python("import kokkos, kp_test_c as c; v = c.from_malloc(9, [3]); assert v.shape == (3,)", paths=[tmp_path])
    )


# ---- build paths ----------------------------------------------------------------------------------


def test_python_m_kokkos():
    def run(*args):
        return run_module("kokkos", *args)

    cmake_dir = run("--cmake-dir").stdout.strip()
    assert cmake_dir == kokkos.get_cmake_dir()
    assert (Path(cmake_dir) / "kokkos_pythonConfig.cmake").exists()
    assert (Path(cmake_dir) / "kokkos_pythonConfigVersion.cmake").exists()
    assert run("--cmakedir").stdout.strip() == cmake_dir
    includes = run("--includes").stdout.split()
    assert includes[0] == "-I" + kokkos.get_include()
    assert any(Path(i[2:], "Kokkos_Core.hpp").exists() for i in includes)
    assert any(Path(i[2:], "Python.h").exists() for i in includes)
    assert run("--include-dir").stdout.strip() == kokkos.get_include()
    assert (Path(kokkos.get_include()) / "kokkos_python" / "kokkos_python.h").exists()
    ld = run("--ldflags").stdout.split()
    assert any("kokkoscore" in f for f in ld)
    assert run("--kokkos-version").stdout.strip() == ".".join(map(str, kokkos.kokkos_version()))
    assert run("--version").stdout.strip() == kokkos.__version__
    assert "--cmake-dir" in run().stdout
    bad = run("--no-such-flag")
    assert bad.returncode == 2 and "unrecognized arguments: --no-such-flag" in bad.stderr


# ---- the seed's example ---------------------------------------------------------------------------


def sections(text):
    """(section label, ndim, data lines) per printed block, type names and
    shapes left out: our types are kokkos.View / kokkos.DynRankView."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(Kokkos View|Modify View|Numpy Array) +: \S+ \(ndim=(\d+), shape=.*\)$", line)
        if m:
            out.append([m.group(1), int(m.group(2)), []])
        elif re.match(r"^(view|arr) +\(\d+\) = ", line):
            out[-1][2].append(line)
        elif line.startswith("Executing"):
            out.append([line, None, []])
    return out


@pytest.mark.slow
def test_seed_example_prints_the_expected_output():
    try:
        build = cxx_build.examples()
    except cxx_build.BuildError as e:
        pytest.fail(f"building examples/ failed:\n{e}")
    want = sections(SEED_EXPECTED)
    assert [w[0] for w in want] == [
        "Executing to numpy...",
        "Kokkos View",
        "Numpy Array",
        "Executing from numpy...",
        "Numpy Array",
        "Kokkos View",
        "Executing user bindings...",
        "Kokkos View",
        "Modify View",
        "Numpy Array",
    ]
    for binding in ("pybind11", "nanobind"):
        res = succeeded(
            run_python(
                f"import runpy, sys; sys.argv = ['ex-numpy.py']; "
                f"runpy.run_path({str(cxx_build.ROOT / 'examples' / 'ex-numpy.py')!r}, run_name='__main__')",
                paths=[build / binding],
            )
        )
        assert sections(res.stdout) == want, res.stdout
        assert "[user-bindings]> Generating View... Done." in res.stdout
        assert "[user-bindings]> Modifying View... Done." in res.stdout


# ---- scripts/init_order_probe.sh and its crash handler -------------------------------------


def test_the_crash_handler_prints_where_a_process_died(tmp_path):
    """scripts/segv_backtrace.c, preloaded: a fault prints the native frames
    (library+offset) and the process still dies of the signal."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    handler = tmp_path / "segv_backtrace.so"
    subprocess.run(
        [
            cc,
            "-shared",
            "-fPIC",
            "-O1",
            "-o",
            str(handler),
            str(cxx_build.ROOT / "scripts" / "segv_backtrace.c"),
            "-ldl",
        ],
        check=True,
        timeout=120,
    )
    # Under the sanitizers their runtimes would take the SEGV themselves (and
    # report it): leave it to the handler.
    asan = (os.environ.get("ASAN_OPTIONS", "") + ":handle_segv=0").lstrip(":")
    ubsan = (os.environ.get("UBSAN_OPTIONS", "") + ":handle_segv=0").lstrip(":")
    preload = f"{handler} {os.environ.get('LD_PRELOAD', '')}".strip()
    # Python's fault handler off: the handler sees the fault itself; on: the
    # fault handler prints Python's stack first, then passes the signal on.
    for faulthandler, first_line in (("", "signal 11 at address (nil)"), ("1", "signal 11, sent by raise or kill")):
        res = run_python(
            "import ctypes; print('faulting', flush=True); ctypes.string_at(0)",
            env={
                "LD_PRELOAD": preload,
                "ASAN_OPTIONS": asan,
                "UBSAN_OPTIONS": ubsan,
                "PYTHONFAULTHANDLER": faulthandler,
            },
        )
        assert res.returncode == -11, (res.returncode, res.stderr)
        assert "faulting" in res.stdout
        assert f"segv_backtrace: {first_line}, thread " in res.stderr, res.stderr
        frames = re.findall(r"^#\d+ (\S+)\+0x[0-9a-f]+ ", res.stderr, re.M)
        assert any("libc.so" in f for f in frames), res.stderr
        assert any("_ctypes" in f or "libffi" in f for f in frames), res.stderr


@pytest.mark.slow
def test_the_import_order_probe_runs_every_order_here(tmp_path):
    """scripts/init_order_probe.sh (made to run once on a machine where a
    crash is seen) works as written: every order passes here, and it prints
    what Kokkos' library was bound to."""
    try:
        cxx_build.examples()
    except cxx_build.BuildError as e:
        pytest.fail(f"building examples/ failed:\n{e}")
    res = subprocess.run(
        ["bash", str(cxx_build.ROOT / "scripts" / "init_order_probe.sh"), str(tmp_path / "probe")],
        env=dict(os.environ, PYTHON=sys.executable),
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "init_order_probe: 0 of 7 orders failed" in out
    bound = out.split("== what Kokkos' library is bound to", 1)[1].split("==", 1)[0]
    counts = re.findall(r"^\s+(\d+) (\S+)$", bound, re.M)
    assert any("kokkoscore" in lib and int(n) > 0 for n, lib in counts), out
    assert len(list((tmp_path / "probe").glob("probe*.txt"))) == 7
