"""The second process of tests/test_shared_memory.py: attaches to the
parent's shared memory segment, adds to it through a View, and checks that
the segment cannot be closed while the View exports it.

    shared_memory_child.py add_through_a_view SEGMENT_NAME
"""

import sys
from multiprocessing import resource_tracker, shared_memory

import numpy as np

import kokkos
from scenario import run


def add_through_a_view(name):
    # the parent owns the segment: this process must not unlink it at exit
    if sys.version_info >= (3, 13):
        seg = shared_memory.SharedMemory(name=name, track=False)
    else:
        seg = shared_memory.SharedMemory(name=name)
        resource_tracker.unregister(seg._name, "shared_memory")
    view = kokkos.array(seg.buf[: 256 * 8].cast("d", (16, 16)), label="child")
    np.asarray(view)[:] += np.arange(256.0).reshape(16, 16)
    try:
        seg.close()
    except BufferError as e:
        print("BufferError:", e)
    del view
    seg.close()
    print("child done")


if __name__ == "__main__":
    run({"add_through_a_view": add_through_a_view})
