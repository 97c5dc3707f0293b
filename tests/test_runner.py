"""The suite runner, scripts/suite.py, and the one list of dependencies it
and every other script read (pyproject.toml's optional dependencies, through
scripts/setup.sh): its selection of tests for the time-limited parts of a
GPU-machine run, and its promise that a test past its time limit fails alone
while the run goes on to its summary."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "scripts" / "suite.py"


def _runner():
    spec = importlib.util.spec_from_file_location("kokkos_suite_runner", SUITE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _selection(*argv):
    runner = _runner()
    sys_argv, sys.argv = sys.argv, ["suite.py", *argv]
    try:
        args, rest = runner.parse()
    finally:
        sys.argv = sys_argv
    return runner.selection(args, rest)


def test_the_rest_shares_cover_every_test_file_once():
    """--part rest:I/N: N shares of the test files, every file in exactly
    one, so a time-limited GPU machine can run the suite in N calls."""
    everything = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").glob("test_*.py"))
    shares = []
    for i in (1, 2, 3):
        targets, options = _selection("--part", f"rest:{i}/3")
        assert options[:2] == ["-m", "not cuda"]
        shares.append(targets)
    assert sorted(f for share in shares for f in share) == everything
    assert all(len(share) >= len(everything) // 3 for share in shares)


def test_parts_and_paths_become_pytest_arguments():
    assert _selection() == (["tests"], [])
    assert _selection("--part", "cuda", "tests/test_views.py", "-k", "label") == (
        ["tests/test_views.py"],
        ["-m", "cuda", "-k", "label"],
    )
    targets, _ = _selection("--core")
    assert targets and all((ROOT / t).is_file() for t in targets)


@pytest.mark.parametrize("part", ["rest:0/2", "rest:3/2", "tests", "rest:1"])
def test_an_unknown_part_is_refused(part):
    res = subprocess.run(
        [sys.executable, str(SUITE), "--part", part, "--no-setup"], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 2 and "--part is all, cuda, rest or rest:I/N" in res.stderr, res.stderr


def test_a_test_past_its_limit_fails_alone_and_the_run_reaches_its_summary(tmp_path):
    """A test that hangs passes its time limit: its worker ends, that test
    is reported, the tests after it still run, and the summary comes."""
    where = ROOT / "build" / "runner-selftest"
    where.mkdir(parents=True, exist_ok=True)
    (where / "test_hang.py").write_text(
        "import time\n\n"
        "def test_before():\n    assert True\n\n"
        "def test_hangs():\n    time.sleep(600)\n\n"
        "def test_after():\n    assert True\n"
    )
    res = subprocess.run(
        [
            sys.executable,
            str(SUITE),
            "--no-setup",
            "--venv",
            sys.prefix,
            "--name",
            "runner-selftest",
            "-n",
            "1",
            "build/runner-selftest/test_hang.py",
            "--timeout",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert re.search(r"crashed \(or passed its time limit\): .*test_hang\.py::test_hangs", out), out
    summary = out.split("summary ====", 1)[1]
    assert re.search(r"1 failed, 2 passed", summary), out


def test_dependencies_are_listed_once_in_pyproject():
    """scripts/setup.sh --deps prints pyproject.toml's groups; no pip
    install in a script, CI or the Makefile names a package of them itself."""
    groups = ("test", "test-optional", "torch", "style", "wheel", "wheel-cuda")
    res = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup.sh"), "--deps", *groups],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHON=sys.executable),
    )
    assert res.returncode == 0, res.stderr
    names = {re.split(r"[<>=!]", r)[0] for r in res.stdout.split()}
    assert {"pytest-xdist", "pytest-timeout", "mypy", "auditwheel", "torch"} <= names
    for path in [*(p for p in (ROOT / "scripts").iterdir() if p.is_file()), ROOT / ".ci" / "run", ROOT / "Makefile"]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "pip" in line and "install" in line:
                spelled = [n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", line)]
                assert not spelled, f"{path.name}:{number} installs {spelled} by name: {line.strip()}"
