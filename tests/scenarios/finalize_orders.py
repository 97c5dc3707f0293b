"""Kokkos finalize against the things that hold Kokkos memory, one case per
process (tests/test_finalize_order.py says what each must do).

    finalize_orders.py holder HOLDER ORDER   one holder (HOLDERS) in one order (ORDERS)
    finalize_orders.py CASE                  one of the other CASES
"""

import ctypes
import gc
import itertools
import threading
import time

import numpy as np

import kokkos
from scenario import raises, run


def expect_released(view, label):
    """Every use of a released View raises RuntimeError naming its label;
    its metadata stays readable."""
    assert view.released, "not released"
    uses = (
        lambda: view[0],
        lambda: np.asarray(view),
        lambda: kokkos.deep_copy(view, 1),
        lambda: view.create_mirror(),
        lambda: memoryview(view),
        lambda: view.data,
        lambda: view.__array_interface__,
    )
    for use in uses:
        with raises(RuntimeError, label):
            use()
    repr(view)
    view.shape  # noqa: B018
    view.label  # noqa: B018


def read_all(arr, expect):
    """Reads the whole array through memcpy, so a sanitizer sees a read of
    freed memory."""
    raw = ctypes.string_at(arr.ctypes.data, arr.nbytes)
    got = np.frombuffer(raw, dtype=arr.dtype).reshape(arr.shape)
    assert (got == expect).all(), (got, expect)


# ---- holders: setup() returns the names it keeps (obj is the holder), check(held) runs after finalize


def view_setup():
    obj = kokkos.View((100,), kokkos.int64, label="lbl")
    kokkos.deep_copy(obj, 5)
    return {"obj": obj}


def subview_setup():
    base = kokkos.View((10, 10), label="lbl")
    return {"obj": base[2:5, ::3]}


def mirror_setup():
    base = kokkos.View((10,), label="lbl")
    return {"obj": base.create_mirror()}


def mirror_view_setup():
    base = kokkos.View((10,), label="lbl")
    obj = kokkos.create_mirror_view(base)
    assert obj is base
    return {"obj": obj}


def dynrankview_setup():
    return {"obj": kokkos.DynRankView((4, 4), label="lbl")}


def filled_int64_view():
    v = kokkos.View((100,), kokkos.int64, label="lbl")
    kokkos.deep_copy(v, 5)
    return v


class ArrayInterfaceHolder:
    def __init__(self, v):
        self.__array_interface__ = v.__array_interface__
        self.v = v


def numpy_from_buffer_setup():
    return {"obj": np.asarray(filled_int64_view())}


def numpy_from_array_interface_setup():
    return {"obj": np.asarray(ArrayInterfaceHolder(filled_int64_view()))}


def numpy_from_dlpack_setup():
    return {"obj": np.from_dlpack(filled_int64_view())}


def memoryview_setup():
    return {"obj": memoryview(filled_int64_view())}


def unconsumed_capsule_setup():
    v = kokkos.View((100,), label="lbl")
    return {"v": v, "obj": v.__dlpack__(max_version=(1, 0))}


def capsule_consumed_after_setup():
    return {"cap": filled_int64_view().__dlpack__(max_version=(1, 0)), "obj": None}


def wrapped_numpy_setup():
    arr = np.arange(100.0)
    return {"arr": arr, "obj": kokkos.array(arr, label="lbl")}


def view_from_numpy_dlpack_setup():
    return {"obj": kokkos.from_dlpack(np.arange(100.0))}


def released(label):
    def check(held):
        expect_released(held["obj"], label)

    return check


def still_readable(held):
    obj = held["obj"]
    read_all(obj, 5)
    obj[:] = 7
    read_all(obj, 7)


def memoryview_check(held):
    obj = held["obj"]
    assert obj[99] == 5 and bytes(obj)[:8] == (5).to_bytes(8, "little")


def unconsumed_capsule_check(held):
    assert "dltensor" in repr(held["obj"])


def capsule_consumed_after_check(held):
    obj = held["obj"] = kokkos.from_dlpack(held["cap"])
    assert obj.released or int(obj[99]) == 5


def wrapped_numpy_check(held):
    obj = held["obj"]
    assert not obj.released and float(obj[99]) == 99.0
    obj[0] = 1.0
    assert held["arr"][0] == 1.0


def view_from_numpy_dlpack_check(held):
    obj = held["obj"]
    assert float(obj[99]) == 99.0
    np.testing.assert_array_equal(np.asarray(obj), np.arange(100.0))


# name -> (setup, check after finalize)
HOLDERS = {
    "view": (view_setup, released("'lbl'")),
    "subview": (subview_setup, released("'lbl'")),
    "mirror": (mirror_setup, released("'lbl_mirror'")),
    "mirror_view": (mirror_view_setup, released("'lbl'")),
    "dynrankview": (dynrankview_setup, released("'lbl'")),
    "numpy_from_buffer": (numpy_from_buffer_setup, still_readable),
    "numpy_from_array_interface": (numpy_from_array_interface_setup, still_readable),
    "numpy_from_dlpack": (numpy_from_dlpack_setup, still_readable),
    "memoryview": (memoryview_setup, memoryview_check),
    "unconsumed_capsule": (unconsumed_capsule_setup, unconsumed_capsule_check),
    "capsule_consumed_after": (capsule_consumed_after_setup, capsule_consumed_after_check),
    "wrapped_numpy": (wrapped_numpy_setup, wrapped_numpy_check),
    "view_from_numpy_dlpack": (view_from_numpy_dlpack_setup, view_from_numpy_dlpack_check),
}


# ---- orders: what happens to the held names around finalize


def drop_then_finalize(held, check):
    """dropped before finalize"""
    del held["obj"]
    gc.collect()
    kokkos.finalize()


def finalize_use_drop(held, check):
    """finalize with it alive, use it, drop it, finalize again"""
    kokkos.finalize()
    check(held)
    del held["obj"]
    gc.collect()
    kokkos.finalize()


def finalize_keep_to_exit(held, check):
    """finalize with it alive; it lives until the interpreter exits"""
    kokkos.finalize()
    check(held)


def atexit_finalize(held, check):
    """no finalize: the atexit handler does it, with the holder alive"""


def cycle_collected_after(held, check):
    """the holder in a reference cycle, collected after finalize"""
    cyc = [held.pop("obj")]
    cyc.append(cyc)
    kokkos.finalize()
    del cyc
    gc.collect()


ORDERS = {
    f.__name__: f
    for f in (drop_then_finalize, finalize_use_drop, finalize_keep_to_exit, atexit_finalize, cycle_collected_after)
}


def holder(name, order):
    setup, check = HOLDERS[name]
    held = setup()
    ORDERS[order](held, check)
    print("scenario ok", flush=True)
    return held  # alive until the interpreter exits


# ---- the other cases


def several_holders():
    """A View, a subview, a NumPy array and a memoryview of one allocation,
    dropped in every order with finalize after 0, 2 or 4 of the drops. Only
    one finalize per process: every holder set is made first, then Kokkos
    finalized, then the rest dropped in order and checked."""

    def holders(dropped):
        v = kokkos.View((50,), kokkos.int64, label="shared")
        kokkos.deep_copy(v, 3)
        sub = v[10:20]
        held = {"v": v, "sub": sub, "arr": np.asarray(v), "mv": memoryview(sub)}
        for name in dropped:
            del held[name]
        return held

    cases = [holders(perm[:cut]) for perm in itertools.permutations(["v", "sub", "arr", "mv"]) for cut in (0, 2, 4)]
    gc.collect()
    kokkos.finalize()
    for held in cases:
        for name in list(held):
            obj = held.pop(name)
            if name in ("v", "sub"):
                if hasattr(obj, "released") and obj.released:
                    expect_released(obj, "'shared'")
            elif name == "arr":
                read_all(obj, 3)
            else:
                assert obj[0] == 3
            del obj
            gc.collect()
    print("scenario ok", len(cases))


def finalize_twice():
    kokkos.finalize()
    kokkos.finalize()  # a no-op
    assert kokkos.is_finalized() and not kokkos.is_initialized()
    for again in (kokkos.initialize, lambda: kokkos.View((2,)), lambda: kokkos.fence()):
        with raises(RuntimeError, "finalized"):
            again()
    # Views of foreign memory still work without Kokkos
    w = kokkos.array(np.arange(3.0))
    assert float(w[2]) == 2.0
    print("scenario ok")


def from_another_thread():
    v = kokkos.View((1000,), label="main")
    arr = np.asarray(v)
    t = threading.Thread(target=kokkos.finalize)
    t.start()
    t.join()
    expect_released(v, "'main'")
    read_all(arr, 0.0)
    print("scenario ok")
    return v, arr


class FinalizesWhenCollected:
    def __del__(self):
        kokkos.finalize()


def from_del_during_gc():
    views = [kokkos.View((100,), label=f"v{i}") for i in range(10)]
    a = FinalizesWhenCollected()
    b = FinalizesWhenCollected()
    a.other, b.other = b, a
    a.views = views[:5]
    del a, b
    gc.collect()
    assert kokkos.is_finalized()
    for i, v in enumerate(views):
        expect_released(v, f"'v{i}'")
    print("scenario ok")
    return views


def exit_while_daemon_threads_copy():
    src = np.arange(200_000.0)
    started = threading.Barrier(5)

    def copier(i):
        v = kokkos.View((200_000,), label=f"busy{i}")
        m = kokkos.View((200_000,), layout=kokkos.LayoutLeft, label=f"m{i}")
        started.wait()
        while True:
            try:
                kokkos.deep_copy(v, src)
                kokkos.deep_copy(m, v)
                kokkos.deep_copy(v[::2], m[1::2])
                s = v[5:50:3]
                np.asarray(s).sum()
            except RuntimeError:
                time.sleep(0.001)  # released at finalize: expected from then on

    for i in range(4):
        threading.Thread(target=copier, args=(i,), daemon=True).start()
    started.wait()
    time.sleep(0.2)
    print("scenario ok", flush=True)


def finalize_while_threads_copy():
    src = np.arange(300_000.0)
    stop = threading.Event()
    errors = []
    started = threading.Barrier(4)

    def copier(i):
        v = kokkos.View((300_000,), label=f"busy{i}")
        started.wait()
        while not stop.is_set():
            try:
                kokkos.deep_copy(v, src)
                kokkos.deep_copy(v, 1.5)
                kokkos.fence()
                kokkos.View((100_000,), label=f"new{i}")
            except RuntimeError as e:
                if "released" not in str(e) and "finalized" not in str(e):
                    errors.append(e)
                return

    threads = [threading.Thread(target=copier, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    started.wait()
    time.sleep(0.1)
    kokkos.finalize()
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors
    print("scenario ok")


def finalize_while_a_thread_allocates():
    # A 1 GiB View is allocated and zero-filled without the GIL; finalize
    # starts meanwhile and waits for it, so the new View is released with
    # the others (not left alive over a finalized Kokkos); a third thread's
    # finalize while the first one waits does nothing.
    got = {}

    def allocate():
        got["view"] = kokkos.View((1 << 27,), label="big")

    def finalize_too():
        got["second"] = kokkos.finalize()

    allocating = threading.Thread(target=allocate)
    allocating.start()
    time.sleep(0.02)
    second = threading.Timer(0.03, finalize_too)
    second.start()
    kokkos.finalize()
    allocating.join()
    second.join()
    assert kokkos.is_finalized()
    assert got["view"].released, "a View allocated while finalize waited for it outlived Kokkos"
    assert got["second"] is None
    with raises(RuntimeError, "finalized"):
        kokkos.View((1 << 20,))
    print("scenario ok")


def finalize_waits_for_work_in_flight():
    # The allocate callback holds a View's allocation inside Kokkos (the
    # GIL released) until the main thread has seen what finalize does
    # meanwhile, in another thread: new work is refused, a finalize() of a
    # third thread returns at once, and the held allocation, once it ends,
    # is released with the others.
    entered, release = threading.Event(), threading.Event()
    got = {}

    def hold(space, label, ptr, size):
        if label == "held":
            entered.set()
            release.wait(30)

    kokkos.tools.set_allocate_data_callback(hold)
    allocating = threading.Thread(target=lambda: got.update(view=kokkos.View((1 << 17,), label="held")))
    allocating.start()
    assert entered.wait(30), "the allocate callback never ran"
    finalizing = threading.Thread(target=kokkos.finalize)
    finalizing.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            kokkos.fence()
        except RuntimeError as e:
            assert "kokkos.fence(): Kokkos is being finalized" in str(e), e
            break
        time.sleep(0.001)
    else:
        raise AssertionError("work was never refused while finalize waited")
    try:  # an allocation too (one large enough to be made without the GIL)
        kokkos.View((1 << 17,), label="late")
    except RuntimeError as e:
        assert "kokkos.View: Kokkos is being finalized" in str(e), e
    else:
        raise AssertionError("an allocation was not refused while finalize waited")
    assert kokkos.finalize() is None
    assert finalizing.is_alive(), "the other thread's finalize should still be waiting"
    release.set()
    allocating.join()
    finalizing.join()
    assert kokkos.is_finalized()
    assert got["view"].released, "the View allocated while finalize waited for it outlived Kokkos"
    # finalize is over: no longer "being finalized" but finalized
    for work in (kokkos.fence, lambda: kokkos.View((4,))):
        try:
            work()
        except RuntimeError as e:
            assert "has been finalized" in str(e), e
        else:
            raise AssertionError("work after finalize was not refused")
    print("scenario ok")


def cuda_array_interface_survives():
    import cupy

    v = kokkos.View((1000,), space=kokkos.CudaSpace, label="dev")
    kokkos.deep_copy(v, 5.0)
    a = cupy.asarray(v)
    kokkos.finalize()
    assert v.released
    assert float(a.sum()) == 5000.0
    a[:] = 1.0
    assert float(a.sum()) == 1000.0
    print("scenario ok")
    return v, a


CASES = {
    f.__name__: f
    for f in (
        holder,
        several_holders,
        finalize_twice,
        from_another_thread,
        from_del_during_gc,
        exit_while_daemon_threads_copy,
        finalize_while_threads_copy,
        finalize_while_a_thread_allocates,
        finalize_waits_for_work_in_flight,
        cuda_array_interface_survives,
    )
}

if __name__ == "__main__":
    kokkos.initialize()
    run(CASES)
