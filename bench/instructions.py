"""Instructions per call, counted by valgrind's callgrind: a measure of the
work a call does that, unlike a clock, does not move with the load on the
machine (the same count run after run for the same build and environment).

How a statement is counted. The benchmark runs itself again under
`valgrind --tool=callgrind`, with collection off except inside the C
library's `qsort_r`, and a profile written each time that function returns.
The child calls `qsort` (through ctypes) on two integers with a Python
comparison that runs the statement in a loop, so each profile holds the
instructions of one loop and nothing else. Two loops per statement, of
LOW and HIGH calls: (count(HIGH) - count(LOW)) / (HIGH - LOW) is the cost of
one iteration, from which the cost of an iteration of an empty loop is
subtracted. What remains is the statement: the attribute lookups it spells,
the call, the object it returns being freed.

The environment is fixed so the counts repeat: PYTHONHASHSEED=0 (dict
layouts), one OpenMP and one OpenBLAS thread (idle threads spin).
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LOW, HIGH = 200, 1200
MARK = "qsort_r"  # the C library function whose calls are counted
CHILD_FLAG = "--callgrind-child"


def _count_file(out_dir: Path) -> int:
    """The count of the newest profile callgrind wrote in out_dir."""
    files = [(int(p.suffix[1:]), p) for p in out_dir.glob("cg.out.*") if p.suffix[1:].isdigit()]
    if not files:
        raise RuntimeError(f"no callgrind profile in {out_dir}: is this process running under valgrind?")
    text = max(files)[1].read_text()
    found = re.search(r"^summary: (\d+)", text, re.M)
    if not found:
        raise RuntimeError(f"no summary line in {max(files)[1]}")
    return int(found.group(1))


class _Counter:
    """Runs functions inside qsort_r, one profile per run (in the child)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.libc = ctypes.CDLL(None)
        self.compare_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        self.pair = (ctypes.c_int * 2)(0, 1)

    def count(self, fn) -> int:
        calls = []

        def compare(_a, _b):
            if not calls:  # qsort of two elements compares once; be sure
                calls.append(1)
                fn()
            return 0

        self.libc.qsort(self.pair, 2, ctypes.sizeof(ctypes.c_int), self.compare_type(compare))
        return _count_file(self.out_dir)

    def per_iteration(self, stmt: str, glb: dict) -> float:
        """Instructions of one iteration of `for _ in range(n): stmt`."""
        loops = {}
        for n in (LOW, HIGH):
            code = f"def _loop():\n    for _ in range({n}):\n        {stmt}\n"
            exec(compile(code, "<instructions>", "exec"), glb)
            loops[n] = glb.pop("_loop")
        loops[LOW]()  # first calls (classes, labels, caches) outside the count
        low, high = self.count(loops[LOW]), self.count(loops[HIGH])
        return (high - low) / (HIGH - LOW)


def child(pairs: list[tuple[str, str]], glb: dict) -> None:
    """In the process valgrind runs: one JSON line per pair, with the
    instructions per call of each side."""
    counter = _Counter(Path(os.environ["KOKKOS_PYTHON_CALLGRIND_DIR"]))
    empty = counter.per_iteration("pass", glb)
    for ours, ref in pairs:
        o = counter.per_iteration(ours, glb) - empty
        r = counter.per_iteration(ref, glb) - empty
        print(json.dumps({"ours": ours, "ref": ref, "ours_ir": o, "ref_ir": r}), flush=True)


def run(script: str, args: list[str]) -> list[dict]:
    """Runs `python script CHILD_FLAG args...` under callgrind and returns
    the child's rows ({ours, ref, ours_ir, ref_ir})."""
    if not shutil.which("valgrind"):
        sys.exit("--callgrind needs valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="kp-callgrind-") as tmp:
        env = dict(
            os.environ,
            PYTHONHASHSEED="0",
            OMP_NUM_THREADS="1",
            OPENBLAS_NUM_THREADS="1",
            KOKKOS_PYTHON_CALLGRIND_DIR=tmp,
        )
        cmd = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            f"--toggle-collect=*{MARK}",
            f"--dump-after=*{MARK}",
            f"--callgrind-out-file={tmp}/cg.out",
            sys.executable,
            script,
            CHILD_FLAG,
            *args,
        ]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        if proc.returncode != 0 or not rows:
            sys.exit(f"the callgrind run failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        return rows


def table(rows: list[dict], header: str) -> None:
    """Prints instructions per call and the ratio, one line per row."""
    for row in rows:
        ratio = row["ours_ir"] / row["ref_ir"] if row["ref_ir"] > 0 else float("inf")
        print(
            f"{row['ours']:<55} {row['ours_ir']:>9.0f} Ir  {row['ref']:<45} {row['ref_ir']:>9.0f} Ir  {ratio:>6.2f}x",
            flush=True,
        )
    print(f"{header}; instructions per call (callgrind), the empty loop's iteration subtracted")


def script_path() -> str:
    return str(Path(sys.argv[0]).resolve())
