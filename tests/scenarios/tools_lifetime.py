"""Kokkos Tools across a whole Kokkos lifetime, one case per process
(tests/test_tools_library.py): a tool library loaded through the
environment or kokkos.initialize(tools_libs=...), and Python callbacks for
the events that only happen at initialize and finalize; and device Views
seen by a tool library (tests/test_cuda_tools.py, where Kokkos has CUDA).

    tools_lifetime.py CASE [ARGS...]
"""

import gc
import warnings

import kokkos
import kokkos.tools as kt
from scenario import raises, run


def program(tools_libs=None):
    """Python events of every kind, in a known order; the tool library comes
    from the environment, or from tools_libs."""
    if tools_libs is None:
        kokkos.initialize()
    else:
        kokkos.initialize(tools_libs=tools_libs)
    with kt.region("py_region"):
        a = kokkos.array("py_a", [100], dtype=kokkos.float64)
        b = kokkos.array("py_b", [10, 10], dtype=kokkos.float64)
        kokkos.deep_copy(b, kokkos.array("py_c", [10, 10], dtype=kokkos.float64))
        gc.collect()
        del a
        gc.collect()
    with kt.profile_section("py_section"):
        kt.mark_event("py_event")
    kt.declare_metadata("py_key", "py_value")
    print("loaded", kt.profile_library_loaded())
    cb = kt.get_callbacks()["push_region"]
    print("native", type(cb).__name__, cb.symbol, cb.library)
    del b
    kokkos.finalize()
    return cb


def tools_args(tools_libs):
    kokkos.initialize(tools_libs=tools_libs, tools_args="-o out.txt --verbose")
    kokkos.finalize()


def first_profiling_call_initializes():
    assert not kokkos.is_initialized()
    kt.push_region("py_first")
    assert kokkos.is_initialized()
    kt.pop_region()


def python_callback_replaces_the_library():
    kokkos.initialize()
    seen = []
    kt.push_region("py_lib_sees_this")
    kt.set_push_region_callback(seen.append)
    kt.push_region("py_python_sees_this")
    kt.set_push_region_callback(None)
    kt.push_region("py_nobody_sees_this")
    for _ in range(3):
        kt.pop_region()
    cbs = kt.get_callbacks()
    print(seen, cbs["push_region"], cbs["pop_region"].symbol)
    kokkos.finalize()


def library_replaces_earlier_python_callbacks(tools_libs):
    seen = []
    kt.set_profile_event_callback(seen.append)  # the library has kokkosp_profile_event
    kt.set_dual_view_sync_callback(print)  # the library has no dual-view entry point
    kokkos.initialize(tools_libs=tools_libs)
    kt.mark_event("py_after_init")
    cbs = kt.get_callbacks()
    print(seen, cbs["profile_event"].symbol)
    kokkos.finalize()


def mark_event():
    kokkos.initialize()
    kt.mark_event("py_old_variable")
    kokkos.finalize()


def missing_library():
    """A path that does not exist is refused before Kokkos initializes; a
    library the loader cannot find is Kokkos' error on stderr and Python's
    RuntimeWarning, and Kokkos runs on without it."""
    with raises(ValueError, "'/nonexistent/libtool.so' does not exist"):
        kokkos.initialize(tools_libs="/nonexistent/libtool.so")
    assert not kokkos.is_initialized()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kokkos.initialize(tools_libs="libkp_missing_tool.so")
    assert any("could not load the Tools library" in str(w.message) for w in caught)
    kt.push_region("x")
    kt.pop_region()
    print("alive", kt.profile_library_loaded())


def lifecycle(fencing):
    """Python callbacks for initialize and finalize; the tool settings
    returned ask for global fencing if fencing is "True"."""
    log = []
    iface = []

    def on_settings(n, settings):
        log.append(("request_tool_settings", n, settings.requires_global_fencing))
        settings.requires_global_fencing = fencing == "True"

    def on_interface(n, interface):
        log.append(("interface", n))
        iface.append(interface)

    kt.set_init_callback(lambda *a: log.append(("init", *a)))
    kt.set_request_tool_settings_callback(on_settings)
    kt.set_provide_tool_programming_interface_callback(on_interface)
    kt.set_parse_args_callback(lambda argc, argv: log.append(("parse_args", argc, argv)))
    kt.set_finalize_callback(lambda: print("finalize callback", flush=True))
    kokkos.initialize(tools_args="-k v")
    fences = []
    kt.set_begin_fence_callback(lambda name, dev: fences.append(name))
    kt.set_push_region_callback(lambda name: None)
    kt.push_region("r")
    print("LOG", log)
    print("FENCES", fences)
    if iface:
        iface[0].fence()
        iface[0].fence(0)
    kokkos.finalize()
    if iface:
        with raises(RuntimeError) as r:
            iface[0].fence()
        print("after finalize:", r.value)
    with raises(RuntimeError) as r:
        kt.push_region("late")
    print("late region:", r.value)
    return log, iface, fences


def print_help():
    kt.set_print_help_callback(lambda program: print("HELP for", program, flush=True))
    kokkos.initialize(["my_program", "--kokkos-tools-help"])
    print("not reached")


def device_views():
    """CudaSpace allocations, their fills, copies both ways and the
    deallocation, each with the View's label, under the tool library the
    environment names."""
    kokkos.initialize()
    d = kokkos.array("py_dev", [1000], space=kokkos.CudaSpace)
    kokkos.deep_copy(d, 2.0)
    h = kokkos.array("py_host", [1000])
    kokkos.deep_copy(d, h)
    kokkos.deep_copy(h, d)
    del d
    kokkos.finalize()


CASES = {
    f.__name__: f
    for f in (
        program,
        tools_args,
        first_profiling_call_initializes,
        python_callback_replaces_the_library,
        library_replaces_earlier_python_callbacks,
        mark_event,
        missing_library,
        lifecycle,
        print_help,
        device_views,
    )
}

if __name__ == "__main__":
    run(CASES)
