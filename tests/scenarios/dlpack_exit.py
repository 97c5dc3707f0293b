"""DLPack exchange across finalize and interpreter exit, one case per
process (tests/test_dlpack.py).

    dlpack_exit.py CASE
"""

import numpy as np

import kokkos
from scenario import raises, run


def alive_at_exit():
    """Capsules never consumed, Views of foreign memory and arrays of View
    memory alive at interpreter exit."""
    v = kokkos.View((100,), kokkos.float64)
    keep_capsule = v.__dlpack__(max_version=(1, 0))
    keep_legacy = v.__dlpack__()
    keep_array = np.from_dlpack(v)
    keep_view = kokkos.from_dlpack(np.arange(10.0))
    keep_view2 = kokkos.from_dlpack(keep_array)
    print("ok")
    return v, keep_capsule, keep_legacy, keep_array, keep_view, keep_view2


def numpy_array_survives_finalize():
    v = kokkos.View((50,), kokkos.int64)
    kokkos.deep_copy(v, np.arange(50))
    a = np.from_dlpack(v)
    kokkos.finalize()
    assert v.released
    # the exported memory was left allocated for its consumer
    assert a.sum() == 49 * 50 // 2, a.sum()
    a[:] = 1
    assert a.sum() == 50
    with raises(RuntimeError, "released"):
        v.__dlpack__()
    print("ok")
    return v, a


CASES = {f.__name__: f for f in (alive_at_exit, numpy_array_survives_finalize)}

if __name__ == "__main__":
    run(CASES)
