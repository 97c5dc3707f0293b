"""Every order of Kokkos finalize against the things that hold Kokkos memory.

Holders: Views, subviews, mirrors, mirror views, DynRankViews, NumPy arrays
made from Views (buffer protocol, __array_interface__, DLPack), memoryviews,
DLPack capsules never consumed, Views over NumPy memory, Views made from
NumPy through DLPack. Orders: the holder dropped before finalize; finalize
with the holder alive, then used, then dropped; finalize with the holder
alive until the interpreter exits; no finalize at all (the atexit handler
does it); finalize twice. Plus finalize from another thread, from __del__
during garbage collection, and at exit while a daemon thread is copying.

Each scenario runs in its own interpreter (Kokkos initializes once per
process): it must exit 0, print its marker, and write nothing that looks like
a crash. What "use after finalize" must do:
- a View of Kokkos memory raises RuntimeError naming its label;
- memory exported before finalize (NumPy arrays, memoryviews, capsules)
  stays valid for its consumer;
- Views of foreign memory (NumPy, DLPack producers) are unaffected.
"""

import itertools
import textwrap

import pytest

from support import cuda, run_python, succeeded

PRELUDE = """
import gc, sys, ctypes
import numpy as np
import kokkos
kokkos.initialize()

def expect_released(view, label):
    assert view.released, "not released"
    for use in (lambda: view[0], lambda: np.asarray(view), lambda: kokkos.deep_copy(view, 1),
                lambda: view.create_mirror(), lambda: memoryview(view), lambda: view.data,
                lambda: view.__array_interface__):
        try:
            use()
        except RuntimeError as e:
            assert label in str(e), e
        else:
            raise AssertionError("a released View was usable")
    repr(view); view.shape; view.label  # metadata stays readable

def read_all(arr, expect):
    # through memcpy, so a sanitizer sees a read of freed memory
    raw = ctypes.string_at(arr.ctypes.data, arr.nbytes)
    got = np.frombuffer(raw, dtype=arr.dtype).reshape(arr.shape)
    assert (got == expect).all(), (got, expect)
"""

# name -> (setup code defining `obj`, check after finalize)
HOLDERS = {
    "view": (
        "obj = kokkos.View((100,), kokkos.int64, label='lbl'); kokkos.deep_copy(obj, 5)",
        "expect_released(obj, \"'lbl'\")",
    ),
    "subview": (
        "base = kokkos.View((10, 10), label='lbl'); obj = base[2:5, ::3]; del base",
        "expect_released(obj, \"'lbl'\")",
    ),
    "mirror": (
        "base = kokkos.View((10,), label='lbl'); obj = base.create_mirror(); del base",
        "expect_released(obj, \"'lbl_mirror'\")",
    ),
    "mirror_view": (
        "base = kokkos.View((10,), label='lbl'); obj = kokkos.create_mirror_view(base); assert obj is base; del base",
        "expect_released(obj, \"'lbl'\")",
    ),
    "dynrankview": (
        "obj = kokkos.DynRankView((4, 4), label='lbl')",
        "expect_released(obj, \"'lbl'\")",
    ),
    "numpy_from_buffer": (
        "v = kokkos.View((100,), kokkos.int64, label='lbl'); kokkos.deep_copy(v, 5); obj = np.asarray(v); del v",
        "read_all(obj, 5); obj[:] = 7; read_all(obj, 7)",
    ),
    "numpy_from_array_interface": (
        "v = kokkos.View((100,), kokkos.int64, label='lbl'); kokkos.deep_copy(v, 5)\n"
        "class Holder:\n"
        "    def __init__(self, v): self.__array_interface__ = v.__array_interface__; self.v = v\n"
        "obj = np.asarray(Holder(v)); del v",
        "read_all(obj, 5); obj[:] = 7; read_all(obj, 7)",
    ),
    "numpy_from_dlpack": (
        "v = kokkos.View((100,), kokkos.int64, label='lbl'); kokkos.deep_copy(v, 5); obj = np.from_dlpack(v); del v",
        "read_all(obj, 5); obj[:] = 7; read_all(obj, 7)",
    ),
    "memoryview": (
        "v = kokkos.View((100,), kokkos.int64, label='lbl'); kokkos.deep_copy(v, 5); obj = memoryview(v); del v",
        "assert obj[99] == 5 and bytes(obj)[:8] == (5).to_bytes(8, 'little')",
    ),
    "unconsumed_capsule": (
        "v = kokkos.View((100,), label='lbl'); obj = v.__dlpack__(max_version=(1, 0))",
        "assert 'dltensor' in repr(obj)",
    ),
    "capsule_consumed_after": (
        "v = kokkos.View((100,), kokkos.int64, label='lbl'); kokkos.deep_copy(v, 5);"
        " cap = v.__dlpack__(max_version=(1, 0)); del v; obj = None",
        "obj = kokkos.from_dlpack(cap); assert obj.released or int(obj[99]) == 5",
    ),
    "wrapped_numpy": (
        "arr = np.arange(100.0); obj = kokkos.array(arr, label='lbl')",
        "assert not obj.released and float(obj[99]) == 99.0; obj[0] = 1.0; assert arr[0] == 1.0",
    ),
    "view_from_numpy_dlpack": (
        "obj = kokkos.from_dlpack(np.arange(100.0))",
        "assert float(obj[99]) == 99.0; np.testing.assert_array_equal(np.asarray(obj), np.arange(100.0))",
    ),
}

ORDERS = {
    # dropped before finalize
    "drop_then_finalize": "{setup}\ndel obj\ngc.collect()\nkokkos.finalize()\n",
    # finalize with it alive, use it, drop it, finalize again
    "finalize_use_drop": "{setup}\nkokkos.finalize()\n{check}\ndel obj\ngc.collect()\nkokkos.finalize()\n",
    # finalize with it alive; it lives until the interpreter exits
    "finalize_keep_to_exit": "{setup}\nkokkos.finalize()\n{check}\n",
    # no finalize: the atexit handler does it, with the holder alive
    "atexit_finalize": "{setup}\n",
    # the holder in a reference cycle, collected after finalize
    "cycle_collected_after": "{setup}\ncyc = [obj]; cyc.append(cyc); del obj\nkokkos.finalize()\ndel cyc\ngc.collect()\n",
}


def _script(holder, order):
    setup, check = HOLDERS[holder]
    body = ORDERS[order].format(setup=setup, check=check)
    return PRELUDE + body + "\nprint('scenario ok', flush=True)\n"


def _ok(code):
    return succeeded(run_python(code), clean=True)


@pytest.mark.parametrize("holder,order", list(itertools.product(HOLDERS, ORDERS)))
def test_finalize_order(holder, order):
    r = _ok(_script(holder, order))
    assert "scenario ok" in r.stdout


def test_several_holders_of_one_allocation_in_every_drop_order():
    """A View, a subview, a NumPy array and a memoryview of one allocation:
    finalize in between any two drops."""
    names = ["v", "sub", "arr", "mv"]
    lines = []
    for k, perm in enumerate(itertools.permutations(names)):
        for cut in (0, 2, 4):
            lines.append(
                textwrap.dedent(
                    f"""
                    def case_{k}_{cut}():
                        v = kokkos.View((50,), kokkos.int64, label='shared')
                        kokkos.deep_copy(v, 3)
                        sub = v[10:20]; arr = np.asarray(v); mv = memoryview(sub)
                        held = dict(v=v, sub=sub, arr=arr, mv=mv)
                        del v, sub, arr, mv
                        for name in {list(perm[:cut])!r}:
                            del held[name]
                        return held
                    """
                )
            )
    # Only one finalize per process: build every holder set first, then
    # finalize, then drop the rest in order and check what is left.
    driver = textwrap.dedent(
        """
        cases = [f() for name, f in sorted(globals().items()) if name.startswith("case_")]
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
        """
    )
    r = _ok(PRELUDE + "".join(lines) + driver)
    assert "scenario ok 72" in r.stdout


def test_finalize_twice_and_initialize_after():
    r = _ok(
        PRELUDE
        + textwrap.dedent(
            """
            kokkos.finalize()
            kokkos.finalize()  # a no-op
            assert kokkos.is_finalized() and not kokkos.is_initialized()
            for again in (kokkos.initialize, lambda: kokkos.View((2,)), lambda: kokkos.fence()):
                try:
                    again()
                except RuntimeError as e:
                    assert "finalized" in str(e), e
                else:
                    raise AssertionError("Kokkos used after finalize")
            # Views of foreign memory still work without Kokkos
            w = kokkos.array(np.arange(3.0))
            assert float(w[2]) == 2.0
            print("scenario ok")
            """
        )
    )
    assert "scenario ok" in r.stdout


def test_finalize_from_another_thread():
    r = _ok(
        PRELUDE
        + textwrap.dedent(
            """
            import threading
            v = kokkos.View((1000,), label='main')
            arr = np.asarray(v)
            t = threading.Thread(target=kokkos.finalize)
            t.start(); t.join()
            expect_released(v, "'main'")
            read_all(arr, 0.0)
            print("scenario ok")
            """
        )
    )
    assert "scenario ok" in r.stdout


def test_finalize_from_del_during_garbage_collection():
    r = _ok(
        PRELUDE
        + textwrap.dedent(
            """
            class FinalizesWhenCollected:
                def __del__(self):
                    kokkos.finalize()
            views = [kokkos.View((100,), label=f'v{i}') for i in range(10)]
            a = FinalizesWhenCollected(); b = FinalizesWhenCollected()
            a.other, b.other = b, a
            a.views = views[:5]
            del a, b
            gc.collect()
            assert kokkos.is_finalized()
            for i, v in enumerate(views):
                expect_released(v, f"'v{i}'")
            print("scenario ok")
            """
        )
    )
    assert "scenario ok" in r.stdout


def test_exit_while_daemon_threads_copy():
    """The interpreter exits (atexit finalize) while daemon threads keep
    copying into and out of Views: no crash at exit."""
    r = _ok(
        PRELUDE
        + textwrap.dedent(
            """
            import threading, time
            src = np.arange(200_000.0)
            started = threading.Barrier(5)
            def copier(i):
                v = kokkos.View((200_000,), label=f'busy{i}')
                m = kokkos.View((200_000,), layout=kokkos.LayoutLeft, label=f'm{i}')
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
            """
        )
    )
    assert "scenario ok" in r.stdout


def test_explicit_finalize_while_threads_copy():
    r = _ok(
        PRELUDE
        + textwrap.dedent(
            """
            import threading, time
            src = np.arange(300_000.0)
            stop = threading.Event(); errors = []
            started = threading.Barrier(4)
            def copier(i):
                v = kokkos.View((300_000,), label=f'busy{i}')
                started.wait()
                while not stop.is_set():
                    try:
                        kokkos.deep_copy(v, src)
                        kokkos.deep_copy(v, 1.5)
                    except RuntimeError as e:
                        if "released" not in str(e) and "finalized" not in str(e):
                            errors.append(e)
                        return
            threads = [threading.Thread(target=copier, args=(i,)) for i in range(3)]
            for t in threads: t.start()
            started.wait()
            time.sleep(0.1)
            kokkos.finalize()
            stop.set()
            for t in threads: t.join()
            assert not errors, errors
            print("scenario ok")
            """
        )
    )
    assert "scenario ok" in r.stdout


@cuda
def test_cuda_array_interface_address_survives_finalize():
    """CuPy keeps the View it read __cuda_array_interface__ from, not a
    release call: finalize must leave that device memory allocated."""
    pytest.importorskip("cupy")
    r = _ok(
        PRELUDE
        + textwrap.dedent(
            """
            import cupy
            v = kokkos.View((1000,), space=kokkos.CudaSpace, label='dev')
            kokkos.deep_copy(v, 5.0)
            a = cupy.asarray(v)
            kokkos.finalize()
            assert v.released
            assert float(a.sum()) == 5000.0
            a[:] = 1.0
            assert float(a.sum()) == 1000.0
            print("scenario ok")
            """
        )
    )
    assert "scenario ok" in r.stdout
