"""Type-checked, not run: what the stubs promise an IDE or mypy --strict
user (scripts/style.sh). assert_type fails the check when a stub
drifts to a looser or different type."""

from typing_extensions import assert_type

import kokkos
import kokkos.tools as kt

v = kokkos.array("v", [3, 2], dtype=kokkos.double, space=kokkos.HostSpace, layout=kokkos.LayoutLeft)
assert_type(v, kokkos.View)
assert_type(v.shape, kokkos.Shape)
assert_type(v.dtype, kokkos.dtype)
assert_type(v.layout, kokkos.layout)
assert_type(v.space, kokkos.memory_space)
assert_type(v.trait, kokkos.memory_trait)
assert_type(v.label, str)
assert_type(v.extent(0), int)
assert_type(v.released, bool)
m = kokkos.create_mirror_view(v, copy=True)
assert_type(m, kokkos.View)
kokkos.deep_copy(m, 1.5)
d = kokkos.DynRankView((4,), kokkos.int32, label="d")
assert_type(d, kokkos.DynRankView)
assert_type(kokkos.View("seed_order", [2, 3], dtype=kokkos.int32), kokkos.View)
assert_type(kokkos.asarray(d), kokkos.View)
assert_type(kokkos.initialize(), bool)
assert_type(kokkos.kokkos_version(), tuple[int, int, int])
assert_type(kokkos.include_dirs(), list[str])
assert_type(kokkos.get_dtype("float64"), kokkos.dtype)
assert_type(kokkos.get_dtype(kokkos.float64), str)
with kt.region("solve"):
    kt.mark_event("step")
with kt.profile_section("assemble") as section:
    assert_type(section.id, int)


@kt.region("decorated")
def work(n: int) -> int:
    return n


assert_type(work(2), int)
assert_type(kt.declare_output_type("block", kt.VariableInfo(int, "ordinal", [32, 64])), int)

# ---- issue 26: indexing, kokkos.array's first argument, Tools callbacks ----
# Integers only: a Python scalar when there is one per dimension, else a
# subview (the rank is a run-time value); a slice anywhere: a subview.
assert_type(v[0, 1], bool | int | float | complex | kokkos.View)
assert_type(v[0], bool | int | float | complex | kokkos.View)
assert_type(v[1:], kokkos.View)
assert_type(v[:, 1], kokkos.View)
assert_type(v[1, :], kokkos.View)
assert_type(v[...], kokkos.View)
assert_type(d[1:], kokkos.DynRankView)
# a shape, a label, or memory (buffer protocol, __array_interface__, DLPack, CAI)
assert_type(kokkos.array([3, 2]), kokkos.View)
assert_type(kokkos.array(memoryview(bytearray(16)).cast("d")), kokkos.View)
assert_type(kokkos.array(v), kokkos.View)
kokkos.array([3.5])  # type: ignore[list-item]  # a shape of floats: refused
# each event's callback has its event's arguments
kt.set_allocate_data_callback(lambda space, label, ptr, size: print(space.name, label, ptr, size))
kt.set_begin_parallel_for_callback(lambda name, device_id: 7)
kt.set_push_region_callback(lambda name: None)
kt.set_pop_region_callback(None)


def two_arguments(name: str, extra: str) -> None:
    pass


kt.set_push_region_callback(two_arguments)  # type: ignore[arg-type]  # wrong arity
kt.set_begin_fence_callback(lambda name, device_id: "id")  # type: ignore[arg-type, return-value]  # an id is an int
