"""Code written for pykokkos-base runs unchanged: its test patterns (Views of
every variant indexed with lists, in-place arithmetic, mirrors, deep copies)
and its Tools test (Python callbacks seeing C++ kernels, sections, copies and
regions through kokkos.tools._internal, and the Python program's own Views)."""

import numpy as np

import kokkos
from support import failed, run_python, run_scenario, succeeded


def variants():
    for dims in range(1, kokkos.max_concrete_rank):
        shape = [2] * dims
        idx = [(i + 1) % 2 for i in range(dims)]
        zeros = [0] * dims
        for dtype in kokkos.dtypes:  # the original's numeric dtypes, as its tests loop over them
            for layout in [e for e in kokkos.layouts if kokkos.get_layout_available(e)]:
                for trait in [e for e in kokkos.memory_traits if kokkos.get_memory_trait_available(e)]:
                    yield shape, idx, zeros, dict(dtype=dtype, space=kokkos.HostSpace, layout=layout, trait=trait)


def generate_variant(shape, **kwargs):
    if kwargs["trait"] == kokkos.Unmanaged:
        con_arr = np.zeros(shape, dtype=kokkos.convert_dtype(kwargs["dtype"]))
        dyn_arr = np.zeros(shape, dtype=kokkos.convert_dtype(kwargs["dtype"]))
        return [
            kokkos.unmanaged_array(con_arr, **kwargs, dynamic=False),
            kokkos.unmanaged_array(dyn_arr, **kwargs, dynamic=True),
            con_arr,
            dyn_arr,
        ]
    return [kokkos.array(shape, **kwargs, dynamic=False), kokkos.array(shape, **kwargs, dynamic=True), None, None]


def test_seed_view_patterns():
    count = 0
    for shape, idx, zeros, kwargs in variants():
        data = generate_variant(shape, **kwargs)
        data[0][idx] = 1
        data[1][idx] = 2
        data[0][idx] *= 3
        data[1][idx] *= 3
        assert data[0][zeros] == 0 and data[1][zeros] == 0
        assert data[0][idx] == 3 and data[1][idx] == 6
        if kwargs["trait"] != kokkos.Unmanaged:
            mirror = [data[0].create_mirror(), data[1].create_mirror()]
            kokkos.deep_copy(mirror[0], data[0])
            kokkos.deep_copy(mirror[1], data[1])
            assert mirror[0][idx] == 3 and mirror[1][idx] == 6
        views = [data[0].create_mirror_view(), data[1].create_mirror_view()]
        assert views[0][idx] == 3 and views[1][idx] == 6
        count += 1
    assert count == 7 * 12 * 3 * 6  # ranks 1..7, the original's dtypes, layouts, traits


def test_seed_tools_test_in_a_fresh_process():
    succeeded(run_scenario("seed_tools", "seed_tools_test"), "seed tools test ok")


def test_internal_test_needs_setup():
    r = run_python("import kokkos; kokkos.initialize(); kokkos.tools._internal.test()")
    failed(r, "call kokkos.tools._internal.setup() first", returncode=1)


def test_seed_module_attributes():
    assert kokkos.Host == kokkos.HostSpace and kokkos.Serial == kokkos.HostSpace
    assert kokkos.Cuda == kokkos.CudaSpace and kokkos.device.Cuda.name == "Cuda"
    assert kokkos.get_memory_space("Host") == kokkos.HostSpace
    assert kokkos.libpykokkos is kokkos._core
