"""The public headers compile as C++14, C++17 and C++20.

pykokkos builds its kernels as C++14 against Kokkos 3.x, most projects use
C++17, and Kokkos 5.0 requires C++20. A module on the pybind11 casters is
built by hand with each standard the installed Kokkos allows (its own
standard and newer; the flags of `python -m kokkos`), with
-Werror=deprecated-declarations, and used from Python.
"""

import os
import re

import pytest

import cxx_build
import kokkos
from support import run_module, run_python, succeeded

STANDARDS = (14, 17, 20)


def _kokkos_standard():
    """The C++ standard Kokkos was built with (KOKKOS_ENABLE_CXX<N>)."""
    for directory in (kokkos.get_kokkos_include(), os.path.join(kokkos.get_kokkos_include(), "trilinos")):
        config = os.path.join(directory, "KokkosCore_config.h")
        if os.path.exists(config):
            with open(config) as f:
                found = re.findall(r"^#define KOKKOS_ENABLE_CXX(\d+)\b", f.read(), re.M)
            return min(int(n) for n in found) if found else 14
    pytest.fail(f"no KokkosCore_config.h under {kokkos.get_kokkos_include()}")


@pytest.mark.parametrize("standard", STANDARDS)
def test_module_builds_and_runs_with_each_standard(standard, tmp_path):
    if kokkos.get_memory_space_available("CudaSpace"):
        pytest.skip("a CUDA Kokkos's headers compile only with its nvcc_wrapper (tests/test_cuda_cxx.py)")
    if standard < _kokkos_standard():
        pytest.skip(f"this Kokkos needs C++{_kokkos_standard()} or newer")

    def flags(*args):
        return succeeded(run_module(*args)).stdout.split()

    name = f"kp_std{standard}"
    cxx_build.compile_module(
        cxx_build.SOURCES / "standards_module.cpp",
        name,
        flags("kokkos", "--includes")
        + flags("pybind11", "--includes")
        + flags("kokkos", "--ldflags")
        + [f"-std=c++{standard}", f"-DKP_STANDARDS_MODULE={name}", "-Werror=deprecated-declarations"],
        tmp_path,
    )
    proc = run_python(
        f"""
        import kokkos, numpy as np, {name} as m
        kokkos.initialize()
        print("cplusplus", m.cplusplus)
        a = m.make(3)
        m.scale(a, 2.0)
        assert np.asarray(a).tolist() == [[2, 0, 0], [0, 4, 0], [0, 0, 6]], np.asarray(a)
        d = kokkos.array("d", [2, 3], dtype=kokkos.float32, layout=kokkos.LayoutLeft)
        assert m.dyn_rank(d) == 2
        m.dyn_fill(d)
        assert np.asarray(d).tolist() == [[0, 1, 2], [10, 11, 12]], np.asarray(d)
        try:
            m.scale(np.zeros((2, 2), dtype=np.float32), 1.0)
        except TypeError:
            pass
        else:
            raise AssertionError("a float32 array passed for a float64 View")
        print("standards ok", m.type_name())
        """,
        paths=[tmp_path],
    )
    succeeded(proc, "standards ok", "Kokkos::View<float64**, LayoutRight, HostSpace>")
    cplusplus = int(re.search(r"cplusplus (\d+)", proc.stdout).group(1))
    assert cplusplus // 100 == {14: 2014, 17: 2017, 20: 2020}[standard], cplusplus


def test_cxxflags_name_the_standard_kokkos_needs():
    """python -m kokkos --cxxflags: Kokkos' own standard (at least C++17),
    and -fopenmp when Kokkos has OpenMP (its headers refuse to compile
    without it)."""
    printed = succeeded(run_module("kokkos", "--cxxflags")).stdout.split()
    assert printed == kokkos.cxxflags()
    assert kokkos.cxx_standard() == max(17, _kokkos_standard())
    assert printed[0] == f"-std=c++{kokkos.cxx_standard()}"
    assert ("-fopenmp" in printed) == ("OpenMP" in kokkos.enabled_backends())


# ---- what Kokkos 5.2 deprecates ------------------------------------------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = [
    os.path.join(d, f)
    for top in ("include", os.path.join("src", "bridge"))
    for d, _, files in os.walk(os.path.join(ROOT, top))
    for f in files
    if f.endswith((".h", ".hpp", ".cpp"))
]


def test_sources_are_found():
    names = {os.path.basename(p) for p in SOURCES}
    assert {"compat.hpp", "pybind11.hpp", "kokkos_python.hpp", "bridge.cpp"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: os.path.relpath(p, ROOT))
def test_no_host_mirror_and_no_out_of_rank_extent(path):
    """Kokkos 5.2 deprecates View::HostMirror (host_mirror_type replaces it)
    and extent(r) for r >= rank. The headers and the bridge use neither:
    every extent(r) with a variable r runs in a loop bounded by the rank."""
    with open(path) as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines):
        code = line.split("//")[0]
        assert "HostMirror" not in code, f"{path}:{n + 1}: {line.strip()}"
        for arg in re.findall(r"\bextent\((?:static_cast<\w+>\()?(\w+)\)?\)", code):
            if arg.isdigit():
                continue
            loop = next(
                (
                    lines[k]
                    for k in range(n, max(n - 12, -1), -1)
                    if re.search(rf"\bfor \((?:int|unsigned|size_t) {arg} = ", lines[k])
                ),
                None,
            )
            assert loop is not None, f"{path}:{n + 1}: extent({arg}) outside a loop over the rank: {line.strip()}"
            bound = re.search(rf"\b{arg} < ([^;]+);", loop)
            assert bound and "rank" in bound.group(1), f"{path}:{n + 1}: extent({arg}) in {loop.strip()}"
