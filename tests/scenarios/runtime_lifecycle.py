"""The Kokkos runtime from Python across a whole process, one case per
process (tests/test_runtime.py).

    runtime_lifecycle.py CASE
"""

import copy
import ctypes
import pickle
import sys

import numpy as np

import kokkos
from scenario import raises, run


def initialize_keyword_errors():
    bad = [
        ({"num_threads": -1}, ValueError),
        ({"num_threads": "2"}, TypeError),
        ({"tools_args": 5}, TypeError),
        ({"device_id": -3}, ValueError),
    ]
    for kw, exc in bad:
        with raises(exc) as r:
            kokkos.initialize(**kw)
        print("ok", r.value)
    assert not kokkos.is_initialized()


def initialize_finalize_cycle():
    assert not kokkos.is_initialized() and not kokkos.is_finalized()
    assert kokkos.initialize(num_threads=1, disable_warnings=True) is True
    assert kokkos.initialize() is False
    assert kokkos.is_initialized()
    kokkos.finalize()
    assert kokkos.is_finalized() and not kokkos.is_initialized()
    kokkos.finalize()  # a second finalize is harmless
    with raises(RuntimeError, "finalized"):
        kokkos.initialize()
    print("reinit refused")
    with raises(RuntimeError, "finalized"):
        kokkos.View((2,))
    print("alloc refused")


def live_views_at_finalize():
    kokkos.initialize()
    v = kokkos.array("field", [100])
    sub = v[10:20]
    m = v.create_mirror_view()
    a = np.asarray(v)
    v[5] = 3.0
    w = kokkos.array("other", [4])
    kokkos.finalize()
    for view in (w, sub, m):
        assert view.released
        with raises(RuntimeError) as r:
            view[0]
        assert "'field'" in str(r.value) or "'other'" in str(r.value), r.value
    with raises(RuntimeError, "'other'"):
        kokkos.deep_copy(w, 1.0)
    with raises(RuntimeError, "released"):
        np.asarray(w)
    assert "released" in repr(w)
    # memory exported to NumPy before finalize stays valid
    assert a[5] == 3.0
    del v, sub, m, w, a
    print("done")


def cxx_side_finalize_releases_python_views():
    """The application's C++ code finalizes Kokkos directly (not through the
    package): Kokkos' finalize hook must release the Python Views first."""
    kokkos.initialize()
    v = kokkos.array("from_python", [1000])
    with open("/proc/self/maps") as maps:
        lib = next(line.split()[-1] for line in maps if "kokkoscore" in line)
    core = ctypes.CDLL(lib)
    core._ZN6Kokkos8finalizeEv()
    assert kokkos.is_finalized()
    assert v.released
    with raises(RuntimeError, "from_python"):
        v[0]
    print("released by the C++ finalize")
    return v


def view_creation_initializes_kokkos():
    assert not kokkos.is_initialized()
    v = kokkos.View((3,))
    assert kokkos.is_initialized()
    return v


def _host_instance_class():
    from kokkos._types import _BUILD, _EXEC_NAMES

    return getattr(kokkos, "KokkosExecutionSpace_" + _EXEC_NAMES[_BUILD["default_host_execution_space"]])


def execution_space_instance_initializes_kokkos():
    """Kokkos 5.1's rule: an execution-space instance exists only between
    initialize and finalize. Creating one initializes Kokkos first."""
    cls = _host_instance_class()
    with raises(TypeError, "take no stream"):
        cls(1234)  # a bad argument initializes nothing
    assert not kokkos.is_initialized()
    inst = cls()
    assert kokkos.is_initialized() and not inst.released
    inst.fence()
    print("initialized by", type(inst).__name__)


def execution_space_instance_after_finalize():
    """One made before finalize is released with Kokkos; none can be made
    (constructed, copied or unpickled) afterwards."""
    kokkos.initialize()
    cls = _host_instance_class()
    inst = cls()
    blob = pickle.dumps(inst)
    assert type(copy.copy(inst)) is cls and type(pickle.loads(blob)) is cls
    kokkos.finalize()
    assert inst.released and "released" in repr(inst)
    with raises(RuntimeError, f"{cls.__name__}.fence(): Kokkos has been finalized"):
        inst.fence()
    for make in (cls, lambda: copy.copy(inst), lambda: pickle.loads(blob)):
        with raises(RuntimeError, f"{cls.__name__}(): Kokkos has been finalized; an execution-space instance"):
            make()
    print("refused after finalize")


def exit_with_live_views():
    """No finalize: the atexit handler finalizes with a View and a subview alive."""
    v = kokkos.array("kept", [10])
    g = v[2:]
    print("exiting")
    return v, g


def seed_style_initialize_reads_argv():
    sys.argv = ["prog", "--kokkos-disable-warnings", "--some-user-flag"]
    assert kokkos.initialize() is True
    kokkos.finalize()


def mirror_of_a_released_view():
    """Raises, uncaught: the test expects a clean RuntimeError and exit 1."""
    kokkos.initialize()
    v = kokkos.View((2,))
    kokkos.finalize()
    v.create_mirror()


def mirrors_of_a_released_view_refuse():
    """Every mirror spelling, the documented one's short path included,
    refuses a View Kokkos' finalize released, naming it."""
    kokkos.initialize()
    v = kokkos.array("gone", [2])
    kokkos.finalize()
    calls = {
        "create_mirror_view_and_copy(HostSpace, v)": lambda: kokkos.create_mirror_view_and_copy(kokkos.HostSpace, v),
        "create_mirror_view_and_copy('HostSpace', v)": lambda: kokkos.create_mirror_view_and_copy("HostSpace", v),
        "create_mirror_view(v)": lambda: kokkos.create_mirror_view(v),
        "create_mirror(v)": lambda: kokkos.create_mirror(v),
    }
    for name, call in calls.items():
        with raises(RuntimeError, "View 'gone' was released when Kokkos was finalized"):
            call()
        print("refused:", name)


CASES = {
    f.__name__: f
    for f in (
        initialize_keyword_errors,
        initialize_finalize_cycle,
        live_views_at_finalize,
        cxx_side_finalize_releases_python_views,
        view_creation_initializes_kokkos,
        execution_space_instance_initializes_kokkos,
        execution_space_instance_after_finalize,
        exit_with_live_views,
        seed_style_initialize_reads_argv,
        mirror_of_a_released_view,
        mirrors_of_a_released_view_refuse,
    )
}

if __name__ == "__main__":
    run(CASES)
