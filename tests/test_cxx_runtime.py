"""Lifetimes across Kokkos finalize, the Kokkos runtime check, the build
paths (python -m kokkos, the CMake package) and the seed's example, each in
a fresh interpreter where the process state matters.

- finalize with Views alive on both sides, called from Python or from C++:
  Python Views read as released, C++ modules drop theirs in a finalize hook,
  nothing aborts (tests/scenarios/cxx_finalize.py);
- a module built against another Kokkos library fails to import with
  ImportError naming both libraries;
- examples/ built as a user would, printing the seed's Expected Output;
- a C++ runtime a compiler links statically into a user's library or
  module is not exported from it (Kokkos' references cannot bind to it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
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


# ---- a C++ runtime linked statically stays inside what carries it ---------------------------

# The C++ runtime's own symbols: locale, streams, exceptions, unwinding.
RUNTIME_SYMBOL = re.compile(
    r" (_ZNSt6locale\w*|_ZNSo\w*|__cxa_throw|__gxx_personality_v0|_Unwind_RaiseException)$", re.M
)
STATIC_RUNTIME = "-static-libstdc++ -static-libgcc"


def runtime_symbols(library, *how):
    """The C++ runtime symbols library defines: all of them, or with
    how=("-D",) those it exports."""
    nm = subprocess.run(["nm", *how, "--defined-only", str(library)], capture_output=True, text=True, check=True)
    return RUNTIME_SYMBOL.findall(nm.stdout)


def runtime_exports(library):
    """The C++ runtime symbols a library exports; None when it carries no
    copy of the runtime (the compiler linked libstdc++.so after all)."""
    needed = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True, check=True).stdout
    return None if "libstdc++" in needed else runtime_symbols(library, "-D")


@pytest.mark.skipif(shutil.which("nm") is None or shutil.which("readelf") is None, reason="no binutils")
def test_a_static_cxx_runtime_stays_inside_a_cmake_built_user_library():
    """A compiler that links the C++ runtime statically (one GPU machine's
    g++ does) puts a copy of it in the seed example's user library and
    module. Exported, Kokkos' own references to the C++ runtime bound to that
    copy with NumPy imported first, and Kokkos::initialize crashed in it
    writing a number to a stream. Built through the CMake package
    (kokkos_python::kokkos's link options) they export none of it, and the
    seed example runs with NumPy imported first."""
    if kokkos.get_memory_space_available("CudaSpace"):
        pytest.skip("the seed example's CUDA build links through nvcc_wrapper (the GPU suite builds it as usual)")
    try:
        build = cxx_build.cmake_build(
            cxx_build.ROOT / "examples",
            "examples-static-runtime",
            {
                "pybind11_DIR": cxx_build._cmake_dir("pybind11", "--cmakedir"),
                "EXAMPLES_NANOBIND": "OFF",
                "CMAKE_SHARED_LINKER_FLAGS": STATIC_RUNTIME,
                "CMAKE_MODULE_LINKER_FLAGS": STATIC_RUNTIME,
            },
        )
    except cxx_build.BuildError as e:
        pytest.fail(f"building examples/ failed:\n{e}")
    (module,) = (build / "pybind11").glob("ex_generate*.so")
    # (the module is stripped; the user library shows the copy it carries)
    assert runtime_exports(build / "libuser.so") is None or runtime_symbols(build / "libuser.so")
    for library in (build / "libuser.so", module):
        exported = runtime_exports(library)
        if exported is None:
            pytest.skip(f"this compiler linked libstdc++.so into {library.name} despite {STATIC_RUNTIME}")
        assert exported == [], f"{library.name} exports the C++ runtime it carries: {exported[:8]}"
    if os.environ.get("KOKKOS_PYTHON_SANITIZED") == "1":
        # ASan replaces the allocation functions of the whole process; a C++
        # runtime linked into a library frees with its own copy what ASan's
        # operator new allocated (alloc-dealloc-mismatch). Not a setup ASan
        # supports: the ordinary build runs the example.
        return
    res = succeeded(
        run_python(
            "import numpy, runpy, sys; sys.argv = ['ex-numpy.py']; "
            f"runpy.run_path({str(cxx_build.ROOT / 'examples' / 'ex-numpy.py')!r}, run_name='__main__')",
            paths=[build / "pybind11"],
        )
    )
    assert "[user-bindings]> Modifying View... Done." in res.stdout


@pytest.mark.skipif(shutil.which("nm") is None or shutil.which("readelf") is None, reason="no binutils")
def test_a_static_cxx_runtime_stays_inside_a_module_built_with_python_m_kokkos_flags(tmp_path):
    """The same for a module built by hand with `python -m kokkos --ldflags`."""
    if kokkos.get_memory_space_available("CudaSpace"):
        pytest.skip("a CUDA Kokkos's headers compile only with its nvcc_wrapper, not the plain host compiler")
    flags = [*succeeded(run_module("kokkos", "--includes")).stdout.split(), *STATIC_RUNTIME.split()]
    ldflags = succeeded(run_module("kokkos", "--ldflags")).stdout.split()
    assert any(f.startswith("-Wl,--exclude-libs,") for f in ldflags), ldflags
    target = cxx_build.compile_module(
        cxx_build.SOURCES / "mismatch_module.cpp", "kp_test_mismatch", flags + ldflags, tmp_path
    )
    exported = runtime_exports(target)
    if exported is None:
        pytest.skip("this compiler linked libstdc++.so despite -static-libstdc++")
    assert exported == [], exported[:8]
    succeeded(run_python("import numpy, kp_test_mismatch; print('imported')", paths=[tmp_path]))
