"""The instruction-count guard CI runs (bench/instructions.py --check):
a call past its limit fails the run and is named; the calls within it are
not. Instruction counts do not move with the load, so the test can hold
the guard to a limit between two calls' ratios."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GUARD = Path(__file__).resolve().parent.parent / "bench" / "instructions.py"


@pytest.mark.skipif(not shutil.which("valgrind"), reason="valgrind (apt-get install valgrind) counts the instructions")
def test_the_guard_names_each_call_past_its_limit_and_only_those():
    # `kokkos.View((1000,), initialize=False)` has two rows: against np.empty
    # (about 0.9x) and against a zero-filled View (about 0.2x, the fill of
    # 8000 bytes): a limit of 0.5x fails the first alone.
    r = subprocess.run(
        [sys.executable, str(GUARD), "--check", "--only", "initialize=False", "--limit", "0.5"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    fails = [line for line in r.stdout.splitlines() if line.startswith("FAIL ")]
    assert r.returncode == 1, r.stdout + r.stderr
    assert fails == [fails[0]] and fails[0].startswith("FAIL kokkos.View((1000,), initialize=False): ")
    assert "np.empty(1000)'s instructions (limit 0.5x)" in fails[0]
    assert "import kokkos" not in r.stdout  # --only left the import out
    rows = [line for line in r.stdout.splitlines() if line.startswith("kokkos.View((1000,), initialize=False)")]
    assert len(rows) == 2 and all(line.rstrip().endswith("x") for line in rows)
