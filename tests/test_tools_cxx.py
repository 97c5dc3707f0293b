"""Python callbacks for events raised by C++ Kokkos code in this process:
kernels, Views, copies, regions, sections, fences and dual views, from the
thread that calls in and from C++ threads that never held the GIL. The C++
module (tests/tools/cxx_events.cpp) is built at test time against the Kokkos
the kokkos package runs, and called through ctypes (which releases the GIL)."""

import ctypes
import sys
import threading

import pytest

import kokkos
import kokkos.tools as kt
import tools_build


@pytest.fixture(scope="module")
def cxx(tmp_path_factory):
    path = tools_build.build_cxx_events(tmp_path_factory.mktemp("cxx_events"))
    return tools_build.load_cxx_events(path)


@pytest.fixture(autouse=True)
def no_callbacks_left():
    kt.clear_callbacks()
    yield
    kt.clear_callbacks()


@pytest.fixture
def unraisable(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u))
    return seen


def record(events, returns=None):
    log = []

    def make(name):
        def callback(*args):
            log.append((name, *args))
            return returns(name) if callable(returns) else returns

        return callback

    for name in events:
        kt.set_callback(name, make(name))
    return log


def test_cxx_module_shares_the_kokkos_runtime():
    k = tools_build.kokkos_install()
    assert k["version"] == int("{}{:02d}{:02d}".format(*kokkos.kokkos_version()))


def test_cxx_kernels_views_copies_regions_sections_reach_python(cxx):
    ids = iter(range(100, 200))
    log = record(
        kt.EVENTS[4:26],  # every event between init/parse_args/print_help and the tool settings
        returns=lambda name: next(ids) if name.startswith("begin_") or name == "create_profile_section" else None,
    )
    assert cxx.kp_test_cxx_events() == 0
    names = [e[0] for e in log]

    def first(name, arg):
        return next(i for i, e in enumerate(log) if e[0] == name and e[1] == arg)

    kernels = {e[1]: e[-1] for e in log if e[0].startswith("begin_parallel")}
    for kind in ("for", "reduce", "scan"):
        label = f"cxx_parallel_{kind}"
        assert label in kernels
        i = first(f"begin_parallel_{kind}", label)
        # the id the Python begin callback returned comes back to the end callback
        returned = None
        for e in log[i + 1 :]:
            if e[0] == f"end_parallel_{kind}":
                returned = e[1]
                break
        assert returned is not None and 100 <= returned < 200
    allocs = [(e[1].name, e[2], e[4]) for e in log if e[0] == "allocate_data"]
    assert ("Host", "cxx_source", 80) in allocs and ("Host", "cxx_target", 80) in allocs
    frees = [(e[1].name, e[2], e[4]) for e in log if e[0] == "deallocate_data"]
    assert ("Host", "cxx_source", 80) in frees and ("Host", "cxx_target", 80) in frees
    copies = [(e[1].name, e[2], e[4].name, e[5], e[7]) for e in log if e[0] == "begin_deep_copy"]
    assert ("Host", "cxx_target", "Host", "cxx_source", 80) in copies
    assert first("push_region", "cxx_region") < first("begin_parallel_for", "cxx_parallel_for")
    assert names.index("pop_region") > first("begin_parallel_scan", "cxx_parallel_scan")
    sec = [e for e in log if "profile_section" in e[0]]
    assert [e[0] for e in sec] == [
        "create_profile_section",
        "start_profile_section",
        "stop_profile_section",
        "destroy_profile_section",
    ]
    assert sec[0][1] == "cxx_section"
    assert sec[1][1] == sec[2][1] == sec[3][1] and 100 <= sec[1][1] < 200
    assert ("profile_event", "cxx_event") in log
    assert ("declare_metadata", "cxx_key", "cxx_value") in log


def test_begin_callbacks_return_ids_to_kokkos(cxx):
    got = []
    kt.set_begin_parallel_for_callback(lambda name, dev: got.append((name, dev)) or 41)
    kt.set_begin_parallel_reduce_callback(lambda name, dev: 42)
    kt.set_begin_parallel_scan_callback(lambda name, dev: 2**64 - 1)
    kt.set_begin_fence_callback(lambda name, dev: got.append((name, dev)) or 44)
    ends = []
    for kind in ("parallel_for", "parallel_reduce", "parallel_scan", "fence"):
        kt.set_callback(f"end_{kind}", lambda i, kind=kind: ends.append((kind, i)))
    out = (ctypes.c_uint64 * 4)()
    assert cxx.kp_test_begin_end(out) == 0
    assert list(out) == [41, 42, 2**64 - 1, 44]
    # (Kokkos 4 also fences around each event for tools that require it)
    assert [g for g in got if g[0].startswith("cxx_")] == [("cxx_begin_for", 3), ("cxx_fence", 7)]
    assert [e for e in ends if e[0] != "fence"] == [
        ("parallel_for", 41),
        ("parallel_reduce", 42),
        ("parallel_scan", 2**64 - 1),
    ]
    assert ("fence", 44) in ends


@pytest.mark.parametrize(
    "value, exc, match",
    [
        ("id", TypeError, "begin_parallel_for callback must return a kernel id .* got str"),
        (-5, ValueError, "begin_parallel_for callback returned -5"),
        (2**64, ValueError, r"must be in \[0, 2\*\*64\)"),
        ([1], TypeError, "got list"),
    ],
)
def test_wrong_kernel_id_is_reported_and_kokkos_gets_zero(cxx, unraisable, value, exc, match):
    kt.set_begin_parallel_for_callback(lambda name, dev: value)
    out = (ctypes.c_uint64 * 4)()
    out[0] = 12345
    assert cxx.kp_test_begin_end(out) == 0
    assert out[0] == 0
    assert len(unraisable) == 1 and unraisable[0].exc_type is exc
    import re

    assert re.search(match, str(unraisable[0].exc_value))


def test_exceptions_from_cxx_triggered_callbacks_never_reach_cxx(cxx, unraisable):
    def bad(*args):
        raise RuntimeError("from Python")

    for name in (
        "begin_parallel_for",
        "end_parallel_for",
        "allocate_data",
        "deallocate_data",
        "push_region",
        "pop_region",
        "begin_deep_copy",
        "end_deep_copy",
        "create_profile_section",
        "profile_event",
        "declare_metadata",
    ):
        kt.set_callback(name, bad)
    assert cxx.kp_test_cxx_events() == 0  # the C++ code ran to the end
    assert len(unraisable) >= 11
    assert {u.exc_type for u in unraisable} == {RuntimeError}


def test_callbacks_from_cxx_threads_take_the_gil(cxx):
    seen = {}
    lock = threading.Lock()
    main = threading.get_ident()

    def on_event(name):
        with lock:
            seen.setdefault(name, set()).add(threading.get_ident())

    kt.set_profile_event_callback(on_event)
    pushes = []
    kt.set_push_region_callback(pushes.append)  # list.append is atomic under the GIL
    kt.set_pop_region_callback(lambda: None)
    assert cxx.kp_test_threads(8, 200) == 0
    assert sorted(seen) == [f"thread_{t}" for t in range(8)]
    idents = set().union(*seen.values())
    assert len(idents) == 8 and main not in idents
    assert len(pushes) == 8 * 200
    assert {p: pushes.count(p) for p in set(pushes)} == {f"thread_{t}": 200 for t in range(8)}


def test_cxx_threads_while_python_threads_run(cxx):
    counter = {"py": 0, "cxx": 0}
    lock = threading.Lock()

    def on_event(name):
        with lock:
            counter["cxx" if name.startswith("thread_") else "py"] += 1

    kt.set_profile_event_callback(on_event)
    stop = threading.Event()

    def python_side():
        while not stop.is_set():
            kt.mark_event("python")

    t = threading.Thread(target=python_side)
    t.start()
    try:
        assert cxx.kp_test_threads(4, 300) == 0
    finally:
        stop.set()
        t.join()
    assert counter["cxx"] == 4 * 300
    assert counter["py"] > 0


def test_dual_view_sync_and_modify(cxx):
    log = record(["dual_view_sync", "dual_view_modify"])
    assert cxx.kp_test_dual_view_events() == 0
    assert [(e[0], e[1], e[3]) for e in log] == [
        ("dual_view_sync", "cxx_dual_view", True),
        ("dual_view_modify", "cxx_dual_view", False),
    ]
    assert log[0][2] == log[1][2] and log[0][2] != 0


def test_removed_callback_is_not_called_from_cxx(cxx):
    log = record(["allocate_data", "deallocate_data"])
    assert cxx.kp_test_allocate(16) == 0
    assert [(e[0], e[2], e[4]) for e in log] == [
        ("allocate_data", "cxx_probe", 128),
        ("deallocate_data", "cxx_probe", 128),
    ]
    kt.set_allocate_data_callback(None)
    assert cxx.kp_test_allocate(8) == 0
    assert [(e[0], e[2], e[4]) for e in log[2:]] == [("deallocate_data", "cxx_probe", 64)]
    kt.set_deallocate_data_callback(None)
    assert cxx.kp_test_allocate(8) == 0
    assert len(log) == 3


@pytest.mark.skipif(kokkos.kokkos_version() < (3, 6, 0), reason="Kokkos < 3.6 reports no fence events")
def test_kokkos_fence_reports_begin_and_end_fence():
    log = record(["begin_fence", "end_fence"], returns=lambda name: 77 if name == "begin_fence" else None)
    kokkos.fence("python fence")
    begins = [e for e in log if e[0] == "begin_fence"]
    assert any(e[1] == "python fence" for e in begins)
    assert ("end_fence", 77) in log


def test_keyboard_interrupt_in_a_cxx_thread_goes_to_the_main_thread(cxx, unraisable):
    """A C++ thread has no Python program to raise it in: its callback's
    KeyboardInterrupt reaches the main thread as a Ctrl-C would."""
    raised = []

    def on_event(name):
        if not raised:
            raised.append(name)
            raise KeyboardInterrupt(name)

    kt.set_profile_event_callback(on_event)
    with pytest.raises(KeyboardInterrupt):
        assert cxx.kp_test_threads(2, 5) == 0
        for _ in range(100000):  # the main thread's next checks
            pass
    assert len(raised) == 1 and not unraisable, unraisable


def test_system_exit_in_a_cxx_thread_is_reported(cxx, unraisable):
    kt.set_profile_event_callback(lambda name: sys.exit(3))
    assert cxx.kp_test_threads(1, 2) == 0
    assert [u.exc_type for u in unraisable] == [SystemExit, SystemExit]
