"""Kokkos Tools across a whole Kokkos lifetime, in subprocesses (Kokkos
initializes once per process): a real tool library written in C
(tests/tools/logging_tool.c, built here) loaded through the environment or
kokkos.initialize(tools_libs=...), and Python callbacks for the events that
only happen at initialize and finalize."""

import pytest

import kokkos
import tools_build
from support import TOOLS_VARIABLES, run_scenario, succeeded

VERSION = kokkos.kokkos_version()
# Kokkos 3.7 added KOKKOS_TOOLS_LIBS; older versions read KOKKOS_PROFILE_LIBRARY.
TOOLS_ENV = "KOKKOS_TOOLS_LIBS" if VERSION >= (3, 7, 0) else "KOKKOS_PROFILE_LIBRARY"


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    return tools_build.build_tool_library(tmp_path_factory.mktemp("tool"))


def run(case, *args, env=None):
    """Runs a case of tests/scenarios/tools_lifetime.py in a fresh
    interpreter that loads no tool library unless env names one; asserts
    that it succeeded."""
    return succeeded(run_scenario("tools_lifetime", case, *args, env=env, unset=TOOLS_VARIABLES))


def read_log(path):
    return [line.split("\t") for line in path.read_text().splitlines()]


def python_events(log):
    """The events a Python program caused, in order: its regions, sections,
    events and metadata, allocations / deallocations / deep copies of Views
    labelled py_*, plus init and finalize."""
    kept = []
    for rec in log:
        kind = rec[0]
        if kind in ("init", "finalize"):
            kept.append((kind,))
        elif kind in ("push_region", "profile_event"):
            kept.append((kind, rec[1]))
        elif kind == "pop_region":
            kept.append((kind,))
        elif kind in ("create_profile_section",):
            kept.append((kind, rec[1], int(rec[2])))
        elif kind.endswith("_profile_section"):
            kept.append((kind, int(rec[1])))
        elif kind == "declare_metadata" and rec[1].startswith("py_"):
            kept.append((kind, rec[1], rec[2]))
        elif kind in ("allocate_data", "deallocate_data") and rec[2].startswith("py_"):
            kept.append((kind, rec[1], rec[2], int(rec[3])))
        elif kind == "begin_deep_copy" and (rec[2].startswith("py_") or rec[4].startswith("py_")):
            kept.append((kind, rec[1], rec[2], rec[3], rec[4], int(rec[5])))
        elif kind == "end_deep_copy" and kept and kept[-1][0] == "begin_deep_copy":
            kept.append((kind,))
    return kept


# What tools_lifetime.py's program case makes the tool library log.
EXPECTED = [
    ("init",),
    ("push_region", "py_region"),
    ("allocate_data", "Host", "py_a", 800),
    ("allocate_data", "Host", "py_b", 800),
    ("allocate_data", "Host", "py_c", 800),
    ("begin_deep_copy", "Host", "py_b", "Host", "py_c", 800),
    ("end_deep_copy",),
    ("deallocate_data", "Host", "py_c", 800),
    ("deallocate_data", "Host", "py_a", 800),
    ("pop_region",),
    ("create_profile_section", "py_section", 500),
    ("start_profile_section", 500),
    ("profile_event", "py_event"),
    ("stop_profile_section", 500),
    ("destroy_profile_section", 500),
    ("declare_metadata", "py_key", "py_value"),
    ("deallocate_data", "Host", "py_b", 800),
    ("finalize",),
]


def check_program_output(proc, tool):
    assert "loaded True" in proc.stdout
    assert f"native NativeCallback kokkosp_push_profile_region {tool}" in proc.stdout


def test_tool_library_from_the_environment_sees_python_events_in_order(tool, tmp_path):
    log = tmp_path / "events.log"
    proc = run("program", env={TOOLS_ENV: str(tool), "KP_TEST_TOOL_LOG": str(log)})
    check_program_output(proc, tool)
    assert python_events(read_log(log)) == EXPECTED


def test_tool_library_from_initialize_tools_libs(tool, tmp_path):
    log = tmp_path / "events.log"
    proc = run("program", tool, env={"KP_TEST_TOOL_LOG": str(log)})
    check_program_output(proc, tool)
    assert python_events(read_log(log)) == EXPECTED


def test_tools_args_reach_the_library(tool, tmp_path):
    log = tmp_path / "events.log"
    run("tools_args", tool, env={"KP_TEST_TOOL_LOG": str(log)})
    parses = [rec for rec in read_log(log) if rec[0] == "parse_args"]
    # (Kokkos 4.x hands a tool its arguments twice during initialize)
    assert parses and all(p == parses[0] for p in parses)
    parse = parses[0]
    assert parse[parse.index("-o") + 1] == "out.txt" and "--verbose" in parse
    assert int(parse[1]) == len(parse) - 2


def test_first_profiling_call_initializes_kokkos_with_the_library(tool, tmp_path):
    """No kokkos.initialize(): the first region initializes Kokkos, so the
    library named in the environment is loaded before it."""
    log = tmp_path / "events.log"
    run("first_profiling_call_initializes", env={TOOLS_ENV: str(tool), "KP_TEST_TOOL_LOG": str(log)})
    kinds = python_events(read_log(log))
    # finalize comes from the package's atexit handler
    assert kinds == [("init",), ("push_region", "py_first"), ("pop_region",), ("finalize",)]


def test_python_callback_replaces_the_library_for_one_event(tool, tmp_path):
    log = tmp_path / "events.log"
    proc = run("python_callback_replaces_the_library", env={TOOLS_ENV: str(tool), "KP_TEST_TOOL_LOG": str(log)})
    assert "['py_python_sees_this'] None kokkosp_pop_profile_region" in proc.stdout
    events = python_events(read_log(log))
    assert events == [("init",), ("push_region", "py_lib_sees_this")] + [("pop_region",)] * 3 + [("finalize",)]


def test_a_library_loaded_at_initialize_replaces_earlier_python_callbacks(tool, tmp_path):
    log = tmp_path / "events.log"
    proc = run("library_replaces_earlier_python_callbacks", tool, env={"KP_TEST_TOOL_LOG": str(log)})
    assert "[] kokkosp_profile_event" in proc.stdout
    assert ("profile_event", "py_after_init") in python_events(read_log(log))


def test_kokkos_profile_library_variable(tool, tmp_path):
    """KOKKOS_PROFILE_LIBRARY: the variable of Kokkos 3 (deprecated but read by Kokkos 4)."""
    log = tmp_path / "events.log"
    run("mark_event", env={"KOKKOS_PROFILE_LIBRARY": str(tool), "KP_TEST_TOOL_LOG": str(log)})
    assert ("profile_event", "py_old_variable") in python_events(read_log(log))


def test_a_missing_tool_library_is_reported_and_python_goes_on(tmp_path):
    proc = run("missing_library")
    assert "alive False" in proc.stdout
    assert "libkp_missing_tool.so" in proc.stderr  # Kokkos' own message


# ---- Python callbacks for initialize and finalize ---------------------------------------


def lifecycle(fencing):
    proc = run("lifecycle", fencing)
    out = proc.stdout
    log = eval(out.split("LOG ", 1)[1].split("\n", 1)[0])
    fences = eval(out.split("FENCES ", 1)[1].split("\n", 1)[0])
    return out, log, fences


def test_init_settings_interface_parse_args_and_finalize_callbacks():
    out, log, fences = lifecycle(fencing=True)
    assert "finalize callback" in out
    parse = [e for e in log if e[0] == "parse_args"]
    assert parse and all(p == parse[0] for p in parse)  # Kokkos 4.x calls it twice
    assert "-k" in parse[0][2] and "v" in parse[0][2]
    assert parse[0][1] == len(parse[0][2])
    assert "late region: kokkos.tools.push_region(): Kokkos has been finalized" in out
    if VERSION < (3, 5, 0):
        # Kokkos 3.4 calls init, request_tool_settings and
        # provide_tool_programming_interface only when it loads a tool library
        # (which then replaces them).
        assert {e[0] for e in log} == {"parse_args"}
        return
    init = [e for e in log if e[0] == "init"]
    assert init == [("init", 0, kokkos.tools.KOKKOSP_INTERFACE_VERSION, 0, None)]
    assert ("request_tool_settings", 1, True) in log
    assert ("interface", 1) in log
    names = [e[0] for e in log]
    assert names.index("init") < names.index("request_tool_settings") < names.index("interface")
    assert "after finalize: kokkos.tools.ToolProgrammingInterface.fence(): Kokkos has been finalized" in out


@pytest.mark.skipif(VERSION < (3, 6, 0), reason="Kokkos < 3.6 reports no fence events")
def test_tool_settings_returned_by_python_reach_kokkos():
    """A tool that requires global fencing gets a fence before each region;
    one that opts out through its ToolSettings does not."""
    _, _, fences_on = lifecycle(fencing=True)
    _, log_off, fences_off = lifecycle(fencing=False)
    assert any("Profile Tool Fence" in f for f in fences_on)
    assert not any("Profile Tool Fence" in f for f in fences_off)


def test_print_help_callback_and_kokkos_tools_help():
    """--kokkos-tools-help: Kokkos asks the tool for its help, finalizes and
    exits the process (status 0) from inside initialize."""
    proc = run("print_help")
    assert "HELP for my_program" in proc.stdout
    assert "not reached" not in proc.stdout
