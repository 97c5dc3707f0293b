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

`import kokkos` is counted whole: the instructions of `python -c "import
kokkos"` less those of `python -c pass`, against the same for `import numpy`.

Run as a script, this is the regression guard CI runs:

    python bench/instructions.py --check [--limit 1.2] [--import-limit 0.17]

It counts every documented call of bench_calls.py (the Python rows: no C++
module is built) and `import kokkos`, prints the table, and exits 1 naming
each call whose instructions exceed --limit times its NumPy counterpart's,
and `import kokkos` when it exceeds --import-limit times `import numpy`'s.
About two minutes on two cores; needs valgrind (apt-get install valgrind).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
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


def _environment(**extra: str) -> dict[str, str]:
    """The environment every count runs in (the counts repeat in it)."""
    return dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", **extra)


def _need_valgrind() -> None:
    if not shutil.which("valgrind"):
        sys.exit("counting instructions needs valgrind (apt-get install valgrind)")


def run(script: str, args: list[str]) -> list[dict]:
    """Runs `python script CHILD_FLAG args...` under callgrind and returns
    the child's rows ({ours, ref, ours_ir, ref_ir})."""
    _need_valgrind()
    with tempfile.TemporaryDirectory(prefix="kp-callgrind-") as tmp:
        env = _environment(KOKKOS_PYTHON_CALLGRIND_DIR=tmp)
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
        if proc.returncode != 0 or (not rows and "--only" not in args):
            sys.exit(f"the callgrind run failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        return rows


def ratio(row: dict) -> float:
    return row["ours_ir"] / row["ref_ir"] if row["ref_ir"] > 0 else float("inf")


def table(rows: list[dict], header: str) -> None:
    """Prints instructions per call and the ratio, one line per row."""
    for row in rows:
        print(
            f"{row['ours']:<55} {row['ours_ir']:>9.0f} Ir  {row['ref']:<45} {row['ref_ir']:>9.0f} Ir  "
            f"{ratio(row):>6.2f}x",
            flush=True,
        )
    print(f"{header}; instructions per call (callgrind), the empty loop's iteration subtracted")


def script_path() -> str:
    return str(Path(sys.argv[0]).resolve())


# ---- import kokkos --------------------------------------------------------------------


def _program_instructions(code: str) -> int:
    """Instructions of the whole of `python -c code`, under callgrind."""
    with tempfile.TemporaryDirectory(prefix="kp-callgrind-") as tmp:
        out = Path(tmp) / "cg.out"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", code]
        proc = subprocess.run(cmd, env=_environment(), capture_output=True, text=True, check=False)
        found = re.search(r"^summary: (\d+)", out.read_text(), re.M) if out.exists() else None
        if proc.returncode != 0 or not found:
            sys.exit(f"the callgrind run of {code!r} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        return int(found.group(1))


def import_row() -> dict:
    """`import kokkos` against `import numpy`, each less `pass`: a row
    like the calls' ({ours, ref, ours_ir, ref_ir})."""
    _need_valgrind()
    for code in ("import kokkos", "import numpy"):  # compiled bytecode written before the count
        subprocess.run([sys.executable, "-c", code], env=_environment(), check=True)
    empty = _program_instructions("pass")
    return {
        "ours": "import kokkos",
        "ref": "import numpy",
        "ours_ir": _program_instructions("import kokkos") - empty,
        "ref_ir": _program_instructions("import numpy") - empty,
    }


# ---- the regression guard ----------------------------------------------------------------


def check(limit: float, import_limit: float, only: str) -> int:
    """Counts the documented calls and `import kokkos` (those whose text
    contains only); 1 when one is past its limit (each named), else 0."""
    started = time.monotonic()
    calls = Path(__file__).resolve().parent / "bench_calls.py"
    rows = run(str(calls), ["--no-cxx", *(["--only", only] if only else [])])
    failed = [
        f"{r['ours']}: {ratio(r):.2f}x {r['ref']}'s instructions (limit {limit}x)" for r in rows if ratio(r) > limit
    ]
    if rows:
        table(rows, f"limit {limit}x NumPy's instructions per call")
    if only in "import kokkos":
        imp = import_row()
        print(
            f"{'import kokkos':<55} {imp['ours_ir'] / 1e6:>8.1f}M Ir  {'import numpy':<45} "
            f"{imp['ref_ir'] / 1e6:>8.1f}M Ir  {ratio(imp):>6.3f}x  (limit {import_limit}x)"
        )
        if ratio(imp) > import_limit:
            failed.append(f"import kokkos: {ratio(imp):.3f}x import numpy's instructions (limit {import_limit}x)")
    print(f"({time.monotonic() - started:.0f} s)")
    for line in failed:
        print(f"FAIL {line}")
    if not failed:
        print(f"OK: every call within {limit}x NumPy's instructions, import kokkos within {import_limit}x")
    return 1 if failed else 0


def main() -> None:
    ap = argparse.ArgumentParser(description="Instructions per documented call against NumPy's (callgrind).")
    ap.add_argument("--check", action="store_true", help="fail (exit 1) naming each call past its limit")
    ap.add_argument("--limit", type=float, default=1.2, help="most instructions per call, times NumPy's (1.2)")
    ap.add_argument(
        "--import-limit", type=float, default=0.17, help="most instructions of import kokkos, times import numpy's"
    )
    ap.add_argument("--only", default="", help="only the calls whose text contains this")
    args = ap.parse_args()
    if not args.check:
        ap.error("say --check (the tables themselves: bench_calls.py --callgrind)")
    sys.exit(check(args.limit, args.import_limit, args.only))


if __name__ == "__main__":
    main()
