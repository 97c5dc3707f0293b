"""The pure-Python profiler kokkos.tools.timer: as `python -m
kokkos.tools.timer script.py` (in a subprocess) and as a Timer object."""

import gc
import json

import pytest

import kokkos
import kokkos.tools as kt
import tools_build
from kokkos.tools.timer import Timer
from support import SCENARIOS, TOOLS_VARIABLES, run_module


@pytest.fixture(scope="module")
def cxx_events(tmp_path_factory):
    return tools_build.build_cxx_events(tmp_path_factory.mktemp("timer_cxx"))


def run_timer(*extra, script, args=()):
    """python -m kokkos.tools.timer [extra] script [args], in a fresh
    interpreter that loads no tool library."""
    return run_module("kokkos.tools.timer", *extra, script, *args, unset=TOOLS_VARIABLES)


def script_file(tmp_path, code):
    path = tmp_path / "script.py"
    path.write_text(code)
    return path


def host_high_water(report):
    """The Host high-water mark of a timer report, in bytes (0.1 KiB rounding);
    0 when nothing was allocated there (no line)."""
    host = next((line for line in report.splitlines() if line.strip().startswith("Host ") and "<-" not in line), None)
    if host is None:
        return 0.0
    value, unit = host.split()[1:3]
    return float(value) * {"B": 1, "KiB": 1024, "MiB": 1024**2}[unit]


def test_timer_reports_regions_kernels_copies_and_high_water_mark(cxx_events):
    proc = run_timer(script=SCENARIOS / "timer_profiled.py", args=("1000", cxx_events))
    assert proc.returncode == 0, proc.stderr
    assert "script done ['1000']" in proc.stdout
    report = proc.stderr
    lines = {line.split()[0]: line.split() for line in report.splitlines() if line.startswith("  ")}
    assert lines["solve"][1] == "1" and lines["step"][1] == "3" and lines["temporaries"][1] == "1"
    # a, b (8000 B each) live; four 8000 B temporaries on top: 48000 B peak
    # (plus s2, 4000 B, allocated after the temporaries were freed), over
    # what Kokkos itself holds from initialize on (a host backend with
    # threads, OpenMP, keeps their scratch memory: measured alone here)
    peak = host_high_water(report)
    baseline = host_high_water(run_timer(script=SCENARIOS / "timer_profiled.py", args=("initialize-only",)).stderr)
    assert abs(peak - baseline - 48000) <= 2 * 0.05 * 1024, (peak, baseline)
    assert "Host <- Host" in report
    copies = next(line for line in report.splitlines() if "Host <- Host" in line).split()
    assert int(copies[3]) >= 3 and int(copies[4]) >= 3 * 8000
    for kind in ("for", "reduce", "scan"):
        assert lines[f"cxx_parallel_{kind}"][1:3] == [kind, "1"]
    assert lines["cxx"][1] == "1" and lines["cxx_region"][1] == "1"


def test_timer_writes_to_a_file_and_passes_the_exit_status(tmp_path):
    out = tmp_path / "report.txt"
    code = "import kokkos.tools as kt\nwith kt.region('only'):\n    pass\nraise SystemExit(3)\n"
    proc = run_timer("-o", out, script=script_file(tmp_path, code))
    assert proc.returncode == 3
    text = out.read_text()
    assert "only" in text and "Regions" in text
    assert "Regions" not in proc.stderr


def test_timer_reports_even_when_the_script_raises(tmp_path):
    code = "import kokkos.tools as kt\nkt.push_region('before')\nkt.pop_region()\n1/0\n"
    proc = run_timer(script=script_file(tmp_path, code))
    assert proc.returncode == 1
    assert "ZeroDivisionError" in proc.stderr
    assert "before" in proc.stderr


def test_timer_command_line_errors(tmp_path):
    proc = run_module("kokkos.tools.timer", tmp_path / "missing.py")
    assert proc.returncode == 2 and "no such script" in proc.stderr


def test_timer_object_in_process():
    kt.clear_callbacks()
    with Timer() as t:
        with kt.region("outer"):
            v = kokkos.array("timed", [256], dtype=kokkos.float64)
            w = kokkos.array("timed2", [256], dtype=kokkos.float64)
            kokkos.deep_copy(w, v)
            del v, w
            gc.collect()
        kt.pop_region()  # unmatched
    s = t.summary()
    assert s["regions"]["outer"]["calls"] == 1
    assert 0 < s["regions"]["outer"]["total"] <= s["elapsed"]
    assert s["memory"]["Host"]["high_water"] == 2 * 256 * 8
    assert s["memory"]["Host"]["allocations"] == 2 and s["memory"]["Host"]["live"] == 0
    assert s["deep_copies"]["Host<-Host"]["bytes"] >= 256 * 8
    assert s["unmatched_pops"] == 1
    assert "1 pop_region without a matching push_region" in t.report()
    assert json.dumps(s)
    # stopping removed the timer's callbacks
    assert all(v is None for v in kt.get_callbacks().values())


def test_timer_notices_when_its_callbacks_are_replaced():
    kt.clear_callbacks()
    t = Timer().start()
    other = []
    kt.set_push_region_callback(other.append)
    kt.push_region("x")
    kt.pop_region()
    t.stop()
    assert t.replaced == ["push_region"]
    assert "replaced the timer's callbacks for push_region" in t.report()
    assert kt.get_callbacks()["push_region"] is not None  # the other callback stays
    kt.clear_callbacks()
