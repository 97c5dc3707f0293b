"""The original package's Kokkos Tools test (its kokkos.tools._internal
test with Python callbacks on every event it makes), in a process of its
own (tests/test_seed_compat.py).

    seed_tools.py seed_tools_test
"""

import gc

import kokkos
from scenario import run

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


def seed_tools_test():
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
    kokkos.tools.start_section(idx)
    kokkos.tools.stop_section(idx)
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


if __name__ == "__main__":
    run({"seed_tools_test": seed_tools_test})
