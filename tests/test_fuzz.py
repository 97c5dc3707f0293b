"""The fuzz campaign's fixed-seed batch (scripts/fuzz.py, generators in
tests/fuzz/): every family, a few hundred inputs each, each batch in a child
process under a time limit; no crash, abort, hang, sanitizer report, wrong
value, unexpected exception or harness failure may come out. Under
scripts/suite.py --sanitize address the children run the ASan+UBSan build (sys.executable is
that venv's interpreter) with fewer inputs.

The driver's own machinery is tested first with the selftest family: a
crash, an abort, a hang and a wrong value planted at known inputs must each
be found, isolated to that input and saved, and the inputs between them run.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "scripts" / "fuzz.py"
SANITIZED = os.environ.get("KOKKOS_PYTHON_SANITIZED") in ("1", "thread")
SEED = 20261206
# Inputs per family in CI: about two minutes of the two cores in all (the
# per-family rates are in docs/hardening.md); a quarter under the sanitizers.
COUNTS = {
    "array_interface": 8000,
    "cuda_array_interface": 3000,
    "dlpack": 6000,
    "exchange_api": 2000,
    "pickle": 6000,
    "index": 8000,
    "construct": 3000,
    "overlap": 8000,
}


def _run(tmp_path, *args, env=None, timeout=900):
    cmd = [sys.executable, str(FUZZ), "--out", str(tmp_path), "--quiet", *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}, cwd=ROOT
    )


def _findings(tmp_path):
    d = tmp_path / "findings"
    return [json.loads(p.read_text()) for p in sorted(d.glob("*.json"))] if d.exists() else []


@pytest.mark.timeout(300)
def test_driver_finds_isolates_and_saves_each_kind(tmp_path):
    plan = "wrong:3,crash:7,abort:9,hang:13"
    r = _run(
        tmp_path,
        "--families",
        "selftest",
        "--count",
        "20",
        "--batch",
        "10",
        "-j",
        "2",
        "--timeout",
        "3",
        env={"KOKKOS_FUZZ_SELFTEST": plan},
    )
    assert r.returncode == 1, r.stdout + r.stderr
    # (under the sanitizers ASan reports the SEGV itself and aborts: kind "sanitizer")
    died = "sanitizer" if SANITIZED else "crash"
    found = {(f["index"], f["kind"]) for f in _findings(tmp_path)}
    assert found == {(3, "wrong"), (7, died), (9, "crash"), (13, "hang")}, r.stdout
    by_index = {f["index"]: f for f in _findings(tmp_path)}
    assert ("SEGV" if SANITIZED else "SIGSEGV") in by_index[7]["detail"] and "SIGABRT" in by_index[9]["detail"]
    assert by_index[7]["replay"].endswith("selftest:0:7") or "selftest:0:7 " in by_index[7]["replay"]
    stats = json.loads((tmp_path / "summary.json").read_text())["stats"]["selftest"]
    assert stats["inputs"] == 20, stats  # every input ran: those after each crash too
    assert stats["ok"] == 16 and stats["crash"] + stats["sanitizer"] == 2, stats
    assert stats["hang"] == 1 and stats["wrong"] == 1, stats


@pytest.mark.timeout(300)
def test_replay_runs_one_input(tmp_path):
    r = _run(tmp_path, "--replay", "selftest:0:5", env={"KOKKOS_FUZZ_SELFTEST": "abort:5"})
    assert r.returncode == 1 and "crash" in r.stdout and "SIGABRT" in r.stdout, r.stdout + r.stderr
    r = _run(tmp_path, "--replay", "overlap:1:0")
    assert "input: {" in r.stdout, r.stdout + r.stderr


# The threads family (tests/fuzz/threads.py): Python threads x View
# operations, Tools callbacks and tuning, one input in a hundred in a fresh
# interpreter (first use from every thread at once; finalize in one of
# them). About a minute of the two cores.
THREADS_COUNT = 6000


@pytest.mark.timeout(600)
def test_threads_fixed_seed_batch(tmp_path):
    scale = 4 if SANITIZED else 1
    limit = "60" if SANITIZED else "20"
    r = _run(
        tmp_path,
        *("--families", "threads", "--count", str(THREADS_COUNT // scale), "--seed", str(SEED)),
        *("-j", "2", "--timeout", limit),
    )
    assert r.returncode in (0, 1), r.stdout + r.stderr
    stats = json.loads((tmp_path / "summary.json").read_text())["stats"]["threads"]
    assert stats["inputs"] == THREADS_COUNT // scale, stats
    failing = [
        f for f in _findings(tmp_path) if f["kind"] in ("wrong", "error", "crash", "hang", "sanitizer", "harness")
    ]
    text = "\n\n".join(
        f"{f['kind']} {f['family']}:{f['seed']}:{f['index']} ({f['replay']})\n  input: {f['input'][:400]}\n"
        f"  {str(f['detail'])[:600]}"
        for f in failing[:20]
    )
    assert not failing, f"{len(failing)} failing fuzz findings:\n{text}"
    assert stats["ok"] == THREADS_COUNT // scale, stats


@pytest.mark.timeout(1500)
def test_fixed_seed_batch(tmp_path):
    scale = 4 if SANITIZED else 1
    families = ",".join(COUNTS)
    failing, stats = [], {}
    # one call per count, so each family gets its own number of inputs
    for count in sorted(set(COUNTS.values())):
        names = [f for f, n in COUNTS.items() if n == count]
        out = tmp_path / f"count{count}"
        limit = "60" if SANITIZED else "10"  # seconds per input; each takes milliseconds
        r = _run(
            out,
            *("--families", ",".join(names), "--count", str(count // scale), "--seed", str(SEED)),
            *("-j", "2", "--timeout", limit),
        )
        assert r.returncode in (0, 1), r.stdout + r.stderr
        stats.update(json.loads((out / "summary.json").read_text())["stats"])
        failing += [
            f for f in _findings(out) if f["kind"] in ("wrong", "error", "crash", "hang", "sanitizer", "harness")
        ]
    assert set(stats) == set(families.split(","))
    for f, s in stats.items():
        assert s["inputs"] == COUNTS[f] // scale, (f, s)
    text = "\n\n".join(
        f"{f['kind']} {f['family']}:{f['seed']}:{f['index']} ({f['replay']})\n  input: {f['input'][:400]}\n"
        f"  {str(f['detail'])[:600]}"
        for f in failing[:40]
    )
    assert not failing, f"{len(failing)} failing fuzz findings:\n{text}"
