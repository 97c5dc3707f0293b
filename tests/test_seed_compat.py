"""Code written for pykokkos-base runs unchanged: its test patterns (Views of
every variant indexed with lists, in-place arithmetic, mirrors, deep copies)
and its Tools test (Python callbacks seeing C++ kernels, sections, copies and
regions through kokkos.tools._internal, and the Python program's own Views)."""

import textwrap

import numpy as np

import kokkos
from support import failed, run_python, succeeded


def variants():
    for dims in range(1, kokkos.max_concrete_rank):
        shape = [2] * dims
        idx = [(i + 1) % 2 for i in range(dims)]
        zeros = [0] * dims
        for dtype in kokkos.dtypes:
            if dtype == kokkos.bool:
                continue  # x *= 3 has no meaning for bool
            for layout in [e for e in kokkos.layouts if kokkos.get_layout_available(e)]:
                for trait in [e for e in kokkos.memory_traits if kokkos.get_memory_trait_available(e)]:
                    yield shape, idx, zeros, dict(dtype=dtype, space=kokkos.HostSpace, layout=layout, trait=trait)


def generate_variant(shape, **kwargs):
    if kwargs["trait"] == kokkos.Unmanaged:
        con_arr = np.zeros(shape, dtype=kokkos.convert_dtype(kwargs["dtype"]))
        dyn_arr = np.zeros(shape, dtype=kokkos.convert_dtype(kwargs["dtype"]))
        return [kokkos.unmanaged_array(con_arr, **kwargs, dynamic=False),
                kokkos.unmanaged_array(dyn_arr, **kwargs, dynamic=True), con_arr, dyn_arr]
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
    assert count == 7 * 13 * 3 * 6  # ranks 1..7, dtypes but bool, layouts, traits


def test_seed_tools_test_in_a_fresh_process():
    r = run_python(textwrap.dedent('''
        import gc, kokkos
        data, temp, regions = {}, {}, []
        count = 0
        def begin_parallel(name, devid):
            global count
            count += 1
            data[f"begin_{name}"] = count
            temp[count] = name
            return count
        def end_parallel(kernid):
            data[f"end_{temp[kernid]}"] = kernid
        def push_region(name):
            data[name] = [True, False]
            regions.append(name)
        def pop_region():
            data[regions[-1]][1] = True
        def alloc(handle, label, ptr, size):
            data[f"alloc_{label}"] = (size, handle.name)
        def dealloc(handle, label, ptr, size):
            data[f"dealloc_{label}"] = (size, handle.name)
        def create_prof(name):
            global count
            count += 1
            data[f"create_{name}"] = count
            temp[count] = name
            return count
        def start_prof(secid):
            data[f"start_{temp[secid]}"] = secid
        def stop_prof(secid):
            data[f"stop_{temp[secid]}"] = secid
        def destroy_prof(secid):
            data[f"destroy_{temp[secid]}"] = secid
        def begin_deep_copy(dh, dn, dp, sh, sn, sp, size):
            data[f"begin_{dn}/{dh.name}/dst"] = [size, True, False]
            data[f"begin_{sn}/{sh.name}/src"] = [size, True, False]
            temp["deep_copy"] = (dh, dn, sh, sn, size)
        def end_deep_copy():
            dh, dn, sh, sn, size = temp.pop("deep_copy")
            data[f"begin_{dn}/{dh.name}/dst"][-1] = True
            data[f"begin_{sn}/{sh.name}/src"][-1] = True

        kokkos.tools.set_init_callback(lambda seq, ver, n, info: data.setdefault("initialize", 1))
        kokkos.initialize()
        kokkos.tools._internal.setup()
        for itr in ("parallel_for", "parallel_reduce", "parallel_scan"):
            getattr(kokkos.tools, f"set_begin_{itr}_callback")(begin_parallel)
            getattr(kokkos.tools, f"set_end_{itr}_callback")(end_parallel)
        kokkos.tools.set_push_region_callback(push_region)
        kokkos.tools.set_pop_region_callback(pop_region)
        kokkos.tools.set_allocate_data_callback(alloc)
        kokkos.tools.set_deallocate_data_callback(dealloc)
        kokkos.tools.set_create_profile_section_callback(create_prof)
        kokkos.tools.set_start_profile_section_callback(start_prof)
        kokkos.tools.set_stop_profile_section_callback(stop_prof)
        kokkos.tools.set_destroy_profile_section_callback(destroy_prof)
        kokkos.tools.set_begin_deep_copy_callback(begin_deep_copy)
        kokkos.tools.set_end_deep_copy_callback(end_deep_copy)
        kokkos.tools._internal.test()
        source = kokkos.array("python_source", [10], space=kokkos.Host, dtype=kokkos.int64)
        target = kokkos.array("python_target", [10], space=kokkos.Host, dtype=kokkos.int64)
        kokkos.deep_copy(target, source)
        del source, target
        gc.collect()
        idx = kokkos.tools.create_profile_section("python_profile_section")
        kokkos.tools.start_section(idx); kokkos.tools.stop_section(idx)
        kokkos.tools.destroy_profile_section(idx)

        assert data["begin_cxx_parallel_for"] == 1 and data["end_cxx_parallel_for"] == 1, data
        assert data["begin_cxx_parallel_reduce"] == 2 and data["begin_cxx_parallel_scan"] == 3, data
        for ev in ("create", "start", "stop", "destroy"):
            assert data[f"{ev}_cxx_created_section"] == 4, data
            assert data[f"{ev}_python_profile_section"] == 5, data
        assert data["begin_cxx_target/Host/dst"] == [40, True, True], data
        assert data["begin_cxx_source/Host/src"] == [40, True, True], data
        assert data["begin_python_target/Host/dst"] == [80, True, True], data
        assert data["cxx_push_region"] == [True, True], data
        assert data["alloc_python_source"] == (80, "Host") and data["dealloc_python_target"] == (80, "Host"), data
        assert data["dealloc_cxx_source"] == (40, "Host") and data["dealloc_cxx_target"] == (40, "Host"), data
        print("seed tools test ok")
    '''))
    succeeded(r, "seed tools test ok")


def test_internal_test_needs_setup():
    r = run_python("import kokkos; kokkos.initialize(); kokkos.tools._internal.test()")
    failed(r, "call kokkos.tools._internal.setup() first", returncode=1)


def test_seed_module_attributes():
    assert kokkos.Host == kokkos.HostSpace and kokkos.Serial == kokkos.HostSpace
    assert kokkos.Cuda == kokkos.CudaSpace and kokkos.device.Cuda.name == "Cuda"
    assert kokkos.get_memory_space("Host") == kokkos.HostSpace
    assert kokkos.libpykokkos is kokkos._core
