"""kokkos.tools in this process: the profiling calls, Python callbacks for
Python's own Views, copies, regions and sections, the helper context
managers, error paths and lifetimes. (Kokkos is initialized once for the
session by conftest; tests that need init/finalize or a tool library run in
subprocesses: test_tools_library.py.)"""

import gc
import re
import sys
import threading

import numpy as np
import pytest

import kokkos
import kokkos.tools as kt
import tools_fixtures
from tools_fixtures import TUNING_EVENTS

# the shared fixtures, used by the tests here
no_callbacks_left = tools_fixtures.no_callbacks_left
unraisable = tools_fixtures.unraisable

SEED_FUNCTIONS = [
    "profile_library_loaded",
    "push_region",
    "pop_region",
    "create_profile_section",
    "destroy_profile_section",
    "start_section",
    "stop_section",
    "mark_event",
    "declare_metadata",
]

SEED_SETTERS = [
    "init",
    "finalize",
    "parse_args",
    "print_help",
    "begin_parallel_for",
    "end_parallel_for",
    "begin_parallel_reduce",
    "end_parallel_reduce",
    "begin_parallel_scan",
    "end_parallel_scan",
    "push_region",
    "pop_region",
    "allocate_data",
    "deallocate_data",
    "create_profile_section",
    "start_profile_section",
    "stop_profile_section",
    "destroy_profile_section",
    "profile_event",
    "begin_deep_copy",
    "end_deep_copy",
    "begin_fence",
    "end_fence",
    "dual_view_sync",
    "dual_view_modify",
    "declare_metadata",
    "request_tool_settings",
    "provide_tool_programming_interface",
]


class Recorder:
    """Sets a callback for each named event that appends (event, *args)."""

    def __init__(self, *events, returns=None):
        self.events = []
        for name in events:
            kt.set_callback(name, self._make(name, returns))

    def _make(self, name, returns):
        def callback(*args):
            self.events.append((name, *args))
            return returns

        return callback

    def of(self, name):
        return [e[1:] for e in self.events if e[0] == name]


def data_ptr(view):
    return view.__array_interface__["data"][0]


# ---- the API --------------------------------------------------------------------


def test_seed_functions_and_setters_exist():
    for name in SEED_FUNCTIONS:
        assert callable(getattr(kt, name)), name
    for name in SEED_SETTERS:
        assert callable(getattr(kt, f"set_{name}_callback")), name
    assert set(kt.EVENTS) == set(SEED_SETTERS) | set(TUNING_EVENTS)
    assert kokkos.tools is kt
    assert kt.set_push_region_callback.__name__ == "set_push_region_callback"
    assert "callback(name)" in kt.set_push_region_callback.__doc__


def test_interface_version_is_the_installed_kokkos():
    assert kt.KOKKOSP_INTERFACE_VERSION >= 20210225


def test_get_callbacks_lists_every_event_and_what_is_set():
    cbs = kt.get_callbacks()
    assert set(cbs) == set(SEED_SETTERS) | set(TUNING_EVENTS)
    assert all(v is None for v in cbs.values())
    assert not kt.profile_library_loaded()

    def on_push(name):
        pass

    kt.set_push_region_callback(on_push)
    cbs = kt.get_callbacks()
    assert cbs["push_region"] is on_push
    assert cbs["pop_region"] is None
    assert kt.profile_library_loaded()
    kt.set_push_region_callback(None)
    assert kt.get_callbacks()["push_region"] is None
    assert not kt.profile_library_loaded()


# ---- regions, sections, events, metadata -------------------------------------


def test_push_pop_region_reach_the_callbacks():
    rec = Recorder("push_region", "pop_region")
    kt.push_region("outer")
    kt.push_region("inner ünïcode")
    kt.pop_region()
    kt.pop_region()
    assert rec.events == [
        ("push_region", "outer"),
        ("push_region", "inner ünïcode"),
        ("pop_region",),
        ("pop_region",),
    ]


def test_region_context_manager_pops_even_on_error():
    rec = Recorder("push_region", "pop_region")
    with kt.region("solve") as r:
        assert r.name == "solve"
    with pytest.raises(ZeroDivisionError):
        with kt.region("fails"):
            raise ZeroDivisionError("in the region")
    assert rec.events == [
        ("push_region", "solve"),
        ("pop_region",),
        ("push_region", "fails"),
        ("pop_region",),
    ]


def test_region_as_decorator_named_and_bare():
    rec = Recorder("push_region", "pop_region")

    @kt.region("assemble")
    def assemble(x, y=1):
        """doc"""
        kt.mark_event("inside")
        return x + y

    @kt.region
    def bare():
        return 7

    assert assemble(1, y=2) == 3
    assert assemble.__name__ == "assemble" and assemble.__doc__ == "doc"
    assert bare() == 7
    assert rec.events == [
        ("push_region", "assemble"),
        ("pop_region",),
        ("push_region", "test_region_as_decorator_named_and_bare.<locals>.bare"),
        ("pop_region",),
    ]


def test_region_decorator_recursion_nests():
    rec = Recorder("push_region", "pop_region")

    @kt.region("fib")
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    assert fib(5) == 5
    pushes, pops = rec.of("push_region"), rec.of("pop_region")
    assert len(pushes) == len(pops) == 15
    depth = 0
    for e in rec.events:
        depth += 1 if e[0] == "push_region" else -1
        assert depth >= 0
    assert depth == 0


def test_sections_pass_ids_between_python_and_the_callbacks():
    ids = iter([11, 12])
    events = []
    kt.set_create_profile_section_callback(lambda name: events.append(("create", name)) or next(ids))
    kt.set_start_profile_section_callback(lambda i: events.append(("start", i)))
    kt.set_stop_profile_section_callback(lambda i: events.append(("stop", i)))
    kt.set_destroy_profile_section_callback(lambda i: events.append(("destroy", i)))
    a = kt.create_profile_section("a")
    b = kt.create_profile_section("b")
    assert (a, b) == (11, 12)
    kt.start_section(a)
    kt.stop_section(a)
    kt.destroy_profile_section(b)
    assert events == [
        ("create", "a"),
        ("create", "b"),
        ("start", 11),
        ("stop", 11),
        ("destroy", 12),
    ]


def test_section_id_without_a_callback_is_zero():
    assert kt.create_profile_section("nobody listens") == 0


def test_profiling_section_object_and_context_manager():
    rec = Recorder(
        "create_profile_section",
        "start_profile_section",
        "stop_profile_section",
        "destroy_profile_section",
        returns=7,
    )
    sec = kt.ProfilingSection("iteration")
    assert sec.id == 7 and sec.name == "iteration"
    for _ in range(2):
        with sec:
            pass
    sec.destroy()
    sec.destroy()  # once only
    with pytest.raises(RuntimeError, match="'iteration' was destroyed"):
        sec.start()
    with pytest.raises(RuntimeError, match="was destroyed"):
        with sec:
            pass
    with kt.profile_section("once") as s:
        assert isinstance(s, kt.ProfilingSection)
    with pytest.raises(KeyError):
        with kt.profile_section("raises"):
            raise KeyError("x")
    names = [e[0] for e in rec.events]
    assert names == (
        ["create_profile_section"]
        + ["start_profile_section", "stop_profile_section"] * 2
        + ["destroy_profile_section"]
        + [
            "create_profile_section",
            "start_profile_section",
            "stop_profile_section",
            "destroy_profile_section",
        ]
        * 2
    )
    assert rec.of("create_profile_section") == [("iteration",), ("once",), ("raises",)]
    assert set(rec.of("start_profile_section")) == {(7,)}
    assert "destroyed" in repr(sec)


def test_mark_event_and_declare_metadata():
    rec = Recorder("profile_event", "declare_metadata")
    kt.mark_event("checkpoint")
    kt.declare_metadata("dogs", "good")
    assert rec.events == [("profile_event", "checkpoint"), ("declare_metadata", "dogs", "good")]


# ---- Python's Views: allocations, deallocations, deep copies --------------------


@pytest.mark.parametrize("dtype", [kokkos.float64, kokkos.int32, kokkos.complex64, kokkos.bool])
def test_view_allocation_and_deallocation_carry_label_space_and_size(dtype):
    rec = Recorder("allocate_data", "deallocate_data")
    v = kokkos.array("python_view", [3, 5], dtype=dtype, space=kokkos.HostSpace)
    nbytes = 15 * np.dtype(kokkos.get_dtype(dtype)).itemsize
    [(handle, label, aptr, size)] = rec.of("allocate_data")
    assert (handle.name, label, size) == ("Host", "python_view", nbytes)
    assert isinstance(handle, kt.SpaceHandle)
    # Kokkos reports its allocation, which may start with its 128-byte
    # SharedAllocationHeader before the View's data (Kokkos 3.x does).
    assert data_ptr(v) - aptr in (0, 128)
    assert rec.of("deallocate_data") == []
    del v
    gc.collect()
    [(handle, label, dptr, size)] = rec.of("deallocate_data")
    assert (handle.name, label, dptr, size) == ("Host", "python_view", aptr, nbytes)


def test_subviews_and_numpy_exports_do_not_allocate_or_free_early():
    rec = Recorder("allocate_data", "deallocate_data")
    v = kokkos.array("parent", [8], dtype=kokkos.float64)
    sub = v[2:6]
    arr = np.asarray(v)
    del v
    gc.collect()
    assert len(rec.of("allocate_data")) == 1
    assert rec.of("deallocate_data") == []
    del sub, arr
    gc.collect()
    assert [e[1] for e in rec.of("deallocate_data")] == ["parent"]


def test_deep_copy_between_views_carries_both_labels_and_spaces():
    a = kokkos.array("copy_src", [4, 4], dtype=kokkos.float64)
    b = kokkos.array("copy_dst", [4, 4], dtype=kokkos.float64)
    np.asarray(a)[:] = 3.5
    rec = Recorder("begin_deep_copy", "end_deep_copy")
    kokkos.deep_copy(b, a)
    assert (np.asarray(b) == 3.5).all()
    begins = rec.of("begin_deep_copy")
    assert len(begins) == 1
    dst_h, dst_label, dst_ptr, src_h, src_label, src_ptr, size = begins[0]
    assert (dst_h.name, dst_label, dst_ptr) == ("Host", "copy_dst", data_ptr(b))
    assert (src_h.name, src_label, src_ptr) == ("Host", "copy_src", data_ptr(a))
    assert size == 16 * 8
    assert [e[0] for e in rec.events] == ["begin_deep_copy", "end_deep_copy"]


def test_mirror_and_copy_events_in_order_inside_a_region():
    rec = Recorder(
        "push_region",
        "pop_region",
        "allocate_data",
        "deallocate_data",
        "begin_deep_copy",
        "end_deep_copy",
    )
    with kt.region("phase"):
        v = kokkos.array("field", [6], dtype=kokkos.float32)
        m = v.create_mirror(copy=False)
        kokkos.deep_copy(m, v)
        del v, m
        gc.collect()
    kinds = [e[0] for e in rec.events]
    assert kinds[0] == "push_region" and kinds[-1] == "pop_region"
    allocs = [e[2] for e in rec.events if e[0] == "allocate_data"]
    frees = [e[2] for e in rec.events if e[0] == "deallocate_data"]
    assert allocs[0] == "field" and len(allocs) == 2
    assert sorted(frees) == sorted(allocs)
    copies = [(e[2], e[5]) for e in rec.events if e[0] == "begin_deep_copy" and e[5] == "field"]
    assert copies == [(allocs[1], "field")]
    # every begin_deep_copy is closed before the next event of another kind
    for i, k in enumerate(kinds):
        if k == "begin_deep_copy":
            assert kinds[i + 1] == "end_deep_copy"


# ---- callbacks: errors, return values, removal, lifetimes ----------------------


def test_exception_in_a_callback_is_reported_not_raised(unraisable):
    def bad(name):
        raise ValueError(f"bad region {name}")

    kt.set_push_region_callback(bad)
    kt.push_region("boom")  # does not raise
    kt.pop_region()
    assert len(unraisable) == 1
    u = unraisable[0]
    assert u.exc_type is ValueError
    assert "bad region boom" in str(u.exc_value)
    # the callable is the hook's object (3.10-3.12) or in its message (3.13+)
    assert u.object is bad or repr(bad) in str(u.err_msg)
    # the event is named: in the hook's message (3.10, 3.13+) or a note (3.11, 3.12)
    notes = getattr(u.exc_value, "__notes__", [])
    assert "push_region callback" in f"{u.err_msg} {' '.join(notes)}"


def test_exception_in_allocation_callback_leaves_the_view_usable(unraisable):
    kt.set_allocate_data_callback(lambda *a: 1 / 0)
    v = kokkos.array("still_fine", [3], dtype=kokkos.int64)
    np.asarray(v)[:] = [1, 2, 3]
    assert list(np.asarray(v)) == [1, 2, 3]
    assert [u.exc_type for u in unraisable] == [ZeroDivisionError]


@pytest.mark.parametrize(
    "bad, exc, match",
    [
        ("seven", TypeError, "must return a section id .* got str"),
        (-1, ValueError, "returned -1; a section id must be in \\[0, 2\\*\\*32\\)"),
        (2**32, ValueError, "returned 4294967296"),
        (1.5, TypeError, "got float"),
    ],
)
def test_wrong_section_id_is_reported_and_kokkos_gets_zero(unraisable, bad, exc, match):
    kt.set_create_profile_section_callback(lambda name: bad)
    assert kt.create_profile_section("x") == 0
    assert len(unraisable) == 1
    assert unraisable[0].exc_type is exc
    assert re.search(match, str(unraisable[0].exc_value))


def test_numpy_integer_ids_are_accepted(unraisable):
    kt.set_create_profile_section_callback(lambda name: np.uint32(99))
    assert kt.create_profile_section("x") == 99
    kt.set_create_profile_section_callback(lambda name: None)
    assert kt.create_profile_section("y") == 0
    assert unraisable == []


def test_removing_a_callback_stops_it():
    calls = []
    kt.set_profile_event_callback(calls.append)
    kt.mark_event("one")
    kt.set_profile_event_callback(None)
    kt.mark_event("two")
    assert calls == ["one"]


def test_replacing_a_callback_and_reference_counts():
    def first(name):
        pass

    def second(name):
        pass

    base1, base2 = sys.getrefcount(first), sys.getrefcount(second)
    kt.set_profile_event_callback(first)
    assert sys.getrefcount(first) == base1 + 1
    kt.set_profile_event_callback(second)
    assert sys.getrefcount(first) == base1
    assert sys.getrefcount(second) == base2 + 1
    for _ in range(1000):
        kt.mark_event("x")
    assert sys.getrefcount(second) == base2 + 1
    kt.set_profile_event_callback(None)
    assert sys.getrefcount(second) == base2


def test_a_callback_may_remove_itself_while_running():
    calls = []

    def once(name):
        calls.append(name)
        kt.set_profile_event_callback(None)

    kt.set_profile_event_callback(once)
    kt.mark_event("a")
    kt.mark_event("b")
    assert calls == ["a"]
    assert kt.get_callbacks()["profile_event"] is None


def test_callbacks_may_call_kokkos_tools_again():
    seen = []

    def on_push(name):
        seen.append(name)
        if name == "outer":
            kt.push_region("nested from callback")
            kt.pop_region()

    kt.set_push_region_callback(on_push)
    kt.push_region("outer")
    kt.pop_region()
    assert seen == ["outer", "nested from callback"]


def test_callable_objects_and_bound_methods_are_accepted():
    class Counter:
        def __init__(self):
            self.n = 0

        def __call__(self, name):
            self.n += 1

        def method(self, name):
            self.n += 10

    c = Counter()
    kt.set_profile_event_callback(c)
    kt.mark_event("x")
    kt.set_profile_event_callback(c.method)
    kt.mark_event("x")
    assert c.n == 11


def test_pause_and_resume_tools():
    calls = []
    kt.set_profile_event_callback(calls.append)
    kt.resume_tools()  # not paused: nothing happens, the callback stays
    kt.mark_event("a")
    kt.pause_tools()
    assert kt.tools_paused()
    kt.pause_tools()
    kt.mark_event("paused")
    kt.resume_tools()
    assert not kt.tools_paused()
    kt.mark_event("b")
    assert calls == ["a", "b"]


def test_python_threads_fire_callbacks_concurrently():
    counts = {}
    lock = threading.Lock()

    def on_push(name):
        with lock:
            counts[name] = counts.get(name, 0) + 1

    kt.set_push_region_callback(on_push)

    def work(i):
        for _ in range(500):
            with kt.region(f"t{i}"):
                pass

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counts == {f"t{i}": 500 for i in range(6)}


def test_make_space_handle_and_types():
    h = kt.make_space_handle("Host")
    assert h == kt.SpaceHandle("Host") and h.name == "Host"
    assert repr(h) == "SpaceHandle(name='Host')"
    h.name = "Cuda"
    assert h != kt.SpaceHandle("Host")
    assert kt.SpaceHandle().name == ""
    assert kt.SpaceHandle("x" * 63).name == "x" * 63
    d = kt.DeviceInfo(3)
    assert d.deviceID == 3 and d == kt.DeviceInfo(deviceID=3) and repr(d) == "DeviceInfo(deviceID=3)"
    with pytest.raises(AttributeError):
        d.deviceID = 4
    s = kt.ToolSettings()
    assert s.requires_global_fencing is True
    s.requires_global_fencing = False
    assert "False" in repr(s)
    assert kt.ToolSettings(requires_global_fencing=False).requires_global_fencing is False


# ---- error paths -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: kt.push_region(1), TypeError, r"push_region\(\): name must be a str, got int"),
        (lambda: kt.push_region(b"x"), TypeError, "got bytes"),
        (lambda: kt.push_region("a\0b"), ValueError, "must not contain NUL"),
        (lambda: kt.mark_event(None), TypeError, r"mark_event\(\): name must be a str"),
        (lambda: kt.create_profile_section(3), TypeError, "name must be a str"),
        (
            lambda: kt.start_section(-1),
            ValueError,
            r"start_section\(\): section id must be in \[0, 2\*\*32\), got -1",
        ),
        (lambda: kt.stop_section(2**32), ValueError, "must be in"),
        (lambda: kt.destroy_profile_section("1"), TypeError, "section id must be an int, got str"),
        (lambda: kt.start_section(1.0), TypeError, "got float"),
        (lambda: kt.declare_metadata("k"), TypeError, r"takes 2 arguments \(key, value\), got 1"),
        (lambda: kt.declare_metadata("k", 1), TypeError, "value must be a str"),
        (
            lambda: kt.set_push_region_callback(5),
            TypeError,
            r"set_push_region_callback\(\): the callback must be callable or None",
        ),
        (
            lambda: kt.set_callback("no_such_event", print),
            ValueError,
            "unknown event 'no_such_event'",
        ),
        (lambda: kt.region(5), TypeError, r"region\(\): name must be a str"),
        (lambda: kt.region("r")(3), TypeError, "decorates a callable"),
        (lambda: kt.ProfilingSection(1), TypeError, "name must be a str"),
        (lambda: kt.SpaceHandle("x" * 64), ValueError, "at most 63 bytes"),
        (lambda: kt.SpaceHandle(1), TypeError, "name must be a str"),
        (lambda: kt.SpaceHandle("a\0"), ValueError, "NUL"),
        (lambda: kt.make_space_handle(1), TypeError, "name must be a str"),
        (lambda: kt.DeviceInfo(-1), ValueError, r"deviceID must be in \[0, 2\*\*64\)"),
        (lambda: kt.DeviceInfo("a"), TypeError, "deviceID must be an int"),
        (lambda: kt.ToolProgrammingInterface(), TypeError, "cannot create"),
    ],
)
def test_bad_arguments_raise_clear_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_space_handle_name_assignment_errors():
    h = kt.SpaceHandle("Host")
    with pytest.raises(ValueError, match="at most 63 bytes"):
        h.name = "é" * 32  # 64 bytes in UTF-8
    with pytest.raises(TypeError, match="name must be a str"):
        h.name = 3
    with pytest.raises(AttributeError, match="cannot be deleted"):
        del h.name
    assert h.name == "Host"


# ---- device memory spaces -----------------------------------------------------------------

HAS_CUDA = kokkos.get_memory_space_available("CudaSpace")


@pytest.mark.skipif(not HAS_CUDA, reason="the installed Kokkos has no CUDA memory space")
@pytest.mark.parametrize(
    "space, name",
    [("CudaSpace", "Cuda"), ("CudaUVMSpace", "CudaUVM"), ("CudaHostPinnedSpace", "CudaHostPinned")],
)
def test_device_views_report_their_memory_space(space, name):
    rec = Recorder("allocate_data", "deallocate_data", "begin_deep_copy")
    d = kokkos.array("dev", [100], dtype=kokkos.float64, space=getattr(kokkos, space))
    h = kokkos.array("host", [100], dtype=kokkos.float64, space=kokkos.HostSpace)
    np.asarray(h)[:] = 2.0
    kokkos.deep_copy(d, h)
    kokkos.deep_copy(h, d)
    allocs = {(e[0].name, e[1], e[3]) for e in rec.of("allocate_data")}
    assert (name, "dev", 800) in allocs and ("Host", "host", 800) in allocs
    copies = [(e[0].name, e[1], e[3].name, e[4], e[6]) for e in rec.of("begin_deep_copy")]
    assert (name, "dev", "Host", "host", 800) in copies
    assert ("Host", "host", name, "dev", 800) in copies
    del d
    gc.collect()
    assert (name, "dev", 800) in {(e[0].name, e[1], e[3]) for e in rec.of("deallocate_data")}
