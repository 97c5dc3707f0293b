"""Kokkos Tools on the GPU: a C tool library (tests/tools/logging_tool.c)
sees CudaSpace allocations, their initialization, fills, copies and
deallocations made from Python, each with the View's label. Runs where Kokkos
has CUDA; skipped elsewhere."""

import pytest

import kokkos
import tools_build
from support import HAS_CUDA, TOOLS_VARIABLES, run_scenario, succeeded

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space"),
]


def test_a_tool_library_sees_device_views_with_their_labels(tmp_path):
    tool = tools_build.build_tool_library(tmp_path)
    log = tmp_path / "events.log"
    tools_env = "KOKKOS_TOOLS_LIBS" if kokkos.kokkos_version() >= (3, 7, 0) else "KOKKOS_PROFILE_LIBRARY"
    env = {tools_env: str(tool), "KP_TEST_TOOL_LOG": str(log)}
    succeeded(run_scenario("tools_lifetime", "device_views", env=env, unset=TOOLS_VARIABLES))
    records = [line.split("\t") for line in log.read_text().splitlines()]

    allocs = [r for r in records if r[0] == "allocate_data" and r[2] == "py_dev"]
    assert [(r[1], int(r[3])) for r in allocs] == [("Cuda", 8000)]
    # The zero fill of the new allocation is a kernel named after the label,
    # as Kokkos names a View's initialization.
    kernels = [r[1] for r in records if r[0] == "begin_parallel_for"]
    assert "Kokkos::View::initialization [py_dev]" in kernels
    copies = [(r[1], r[2], r[3], r[4], int(r[5])) for r in records if r[0] == "begin_deep_copy"]
    assert ("Cuda", "py_dev", "Host", "Scalar", 8000) in copies  # the fill
    assert ("Cuda", "py_dev", "Host", "py_host", 8000) in copies
    assert ("Host", "py_host", "Cuda", "py_dev", 8000) in copies
    # Every copy names both Views: nothing reports an empty label.
    assert all(c[1] and c[3] for c in copies), copies
    deallocs = [r for r in records if r[0] == "deallocate_data" and r[2] == "py_dev"]
    assert [(r[1], int(r[3])) for r in deallocs] == [("Cuda", 8000)]
