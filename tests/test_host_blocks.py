"""Small HostSpace blocks kept for reuse (src/core/model/host_blocks.c):
reused by Views of the same size, zero-filled when the View is, never while
a Kokkos Tools callback watches allocations (the tool sees every View's
allocation and free with its label), given back to Kokkos at finalize, and
off with KOKKOS_PYTHON_HOST_BLOCKS=0."""

import gc

import numpy as np
import pytest

import kokkos
import kokkos.tools as kt
import tools_fixtures
from support import SCENARIO_LIMIT, run_python

no_callbacks_left = tools_fixtures.no_callbacks_left
held = kokkos._core._host_blocks_held


@pytest.fixture(autouse=True)
def no_blocks_kept():
    """Each test starts with no block kept (earlier tests may have filled the cache)."""
    kokkos._core._host_blocks_release()
    assert held() == 0


def data_ptr(v):
    return np.asarray(v).__array_interface__["data"][0]


def test_a_freed_small_view_block_is_reused_by_the_next_of_its_size():
    v = kokkos.View((37,), kokkos.float64)
    ptr = data_ptr(v)
    del v
    assert held() == 1
    w = kokkos.View((37,), kokkos.float64)
    assert held() == 0
    assert data_ptr(w) == ptr


def test_a_reused_block_is_zero_filled_when_the_view_is():
    v = kokkos.array([41], dtype=kokkos.int32)
    np.asarray(v)[:] = 7
    del v
    w = kokkos.array([41], dtype=kokkos.int32)
    assert not np.asarray(w).any()
    np.asarray(w)[:] = 9
    ptr = data_ptr(w)
    del w
    u = kokkos.View((41,), kokkos.int32, initialize=False)  # WithoutInitializing: the block as it was
    assert data_ptr(u) == ptr and (np.asarray(u) == 9).all()


def test_other_sizes_and_large_views_are_not_kept():
    v = kokkos.View((43,), kokkos.float64)
    del v
    before = held()
    w = kokkos.View((44,), kokkos.float64)  # another size: a new block
    assert held() == before
    del w
    big = kokkos.View((3000,), kokkos.float64)  # 24000 bytes: larger than the blocks kept
    count = held()
    del big
    assert held() == count


def test_while_a_tool_watches_every_view_goes_through_kokkos(no_callbacks_left):
    events = []
    kt.set_allocate_data_callback(lambda h, label, ptr, size: events.append(("allocate", label, size)))
    kt.set_deallocate_data_callback(lambda h, label, ptr, size: events.append(("deallocate", label, size)))
    try:
        before = held()
        for i in range(3):
            v = kokkos.array(f"watched{i}", [45], dtype=kokkos.float64)
            del v
            gc.collect()
        assert held() == before  # nothing kept, nothing taken
        assert events == [
            e for i in range(3) for e in (("allocate", f"watched{i}", 360), ("deallocate", f"watched{i}", 360))
        ]
    finally:
        kt.set_allocate_data_callback(None)
        kt.set_deallocate_data_callback(None)


def test_blocks_go_back_to_kokkos_at_finalize_and_can_be_switched_off():
    code = """
        import kokkos
        kokkos.initialize()
        for n in (5, 6, 7):
            kokkos.View((n,))
        print(kokkos._core._host_blocks_held())
        kokkos.finalize()
        print(kokkos._core._host_blocks_held())
    """
    r = run_python(code, timeout=SCENARIO_LIMIT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3", "0"]
    r = run_python(code, env={"KOKKOS_PYTHON_HOST_BLOCKS": "0"}, timeout=SCENARIO_LIMIT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "0"]


@pytest.mark.parametrize("n", [1, 16, 100])
def test_no_more_than_sixteen_blocks_are_kept(n):
    views = [kokkos.View((47 + i,)) for i in range(n)]
    del views
    assert held() <= 16


@pytest.mark.parametrize("label", ["plain", "écart", "データ", "x\U0001f600"])
def test_a_watching_tool_sees_every_label_as_given(no_callbacks_left, label):
    # ASCII labels reach Kokkos as their own bytes, others encoded to UTF-8:
    # the tool sees the label as given, on allocation and on free.
    events = []
    kt.set_allocate_data_callback(lambda h, lab, ptr, size: events.append(("allocate", lab, size)))
    kt.set_deallocate_data_callback(lambda h, lab, ptr, size: events.append(("deallocate", lab, size)))
    try:
        v = kokkos.View((46,), kokkos.float64, label=label)
        assert v.label == label
        del v
        gc.collect()
        assert events == [("allocate", label, 368), ("deallocate", label, 368)]
    finally:
        kt.set_allocate_data_callback(None)
        kt.set_deallocate_data_callback(None)


@pytest.mark.parametrize("label", ["plain", "écart", "データ"])
def test_a_kept_block_of_any_label_is_reused(label):
    v = kokkos.View((47,), kokkos.float64, label=label)
    ptr = data_ptr(v)
    del v
    assert held() == 1
    w = kokkos.View((47,), kokkos.float64, label=label + "2")
    assert data_ptr(w) == ptr and w.label == label + "2"
