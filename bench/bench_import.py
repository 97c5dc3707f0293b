"""What `import kokkos` costs: time, the modules it brings in, and memory.

Each measurement runs in fresh processes, many times, and prints the best
and the median (load from other processes only ever adds time):

- `python -X importtime -c "import kokkos"`: the package's cumulative
  import time as Python measures it, and the modules that take longest
  (their own time, median over the runs);
- the wall time of `python -c "import kokkos"` less that of
  `python -c pass` (interpreter start-up), the same for `import numpy`;
- the standard-library modules `import kokkos` brings in that `pass` does
  not, and whether NumPy is among them (it must not be);
- the resident memory (VmRSS) after `kokkos.initialize()`, against that of
  the bare interpreter and of `import numpy`.

Run: .venv/bin/python bench/bench_import.py [--runs N]
(the instruction count of `import kokkos`, which does not move with the
load, is bench/instructions.py's: --check guards it in CI.)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

RSS = "print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmRSS:')))"
MODULES = "import sys; before = set(sys.modules); {stmt}; print(' '.join(sorted(set(sys.modules) - before)))"


def importtime(runs):
    """Cumulative import time of kokkos (us) per run, and each module's own time."""
    totals, own = [], {}
    for _ in range(runs):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import kokkos"], capture_output=True, text=True, check=True
        ).stderr
        for line in err.splitlines():
            parts = line.removeprefix("import time:").split("|")
            if len(parts) != 3 or not parts[0].strip().isdigit():
                continue
            name = parts[2].strip()
            own.setdefault(name, []).append(int(parts[0]))
            if name == "kokkos":
                totals.append(int(parts[1]))
    return totals, own


def wall(stmt, runs):
    """Seconds of `python -c stmt` per run."""
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", stmt], check=True)
        out.append(time.perf_counter() - t)
    return out


def output(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def ms(values):
    return f"best {min(values) / 1e3:6.1f} ms, median {statistics.median(values) / 1e3:6.1f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21, help="fresh processes per measurement (21)")
    args = ap.parse_args()
    n = args.runs

    totals, own = importtime(n)
    print(f"{'import kokkos, -X importtime (cumulative)':<48} {ms(totals)}   goal < 15 ms")
    slowest = sorted(((statistics.median(v), k) for k, v in own.items() if len(v) == n), reverse=True)[:8]
    print("  own time (median):", ", ".join(f"{k} {t / 1e3:.2f} ms" for t, k in slowest))

    # interleaved, so that load hits the three alike
    runs = {"pass": [], "import kokkos": [], "import numpy": []}
    for _ in range(n):
        for stmt, got in runs.items():
            got.extend(wall(stmt, 1))
    base = min(runs["pass"])
    for stmt in ("import kokkos", "import numpy"):
        extra = [(t - base) * 1e6 for t in runs[stmt]]
        print(f"{'python -c ' + repr(stmt) + ' less python -c pass':<48} {ms(extra)}")

    brought = output(MODULES.format(stmt="import kokkos")).split()
    stdlib = [m for m in brought if not m.startswith("kokkos") and not m.startswith("_")]
    print(f"modules import kokkos brings in ({len(brought)}): " + " ".join(stdlib))
    print(f"  numpy imported: {'numpy' in brought}; re: {'re' in brought}; enum: {'enum' in brought}")

    kib = {
        "python": int(output(RSS)),
        "kokkos": int(output("import kokkos; kokkos.initialize(); " + RSS)),
        "numpy": int(output("import numpy; " + RSS)),
    }
    print(
        f"{'RSS after kokkos.initialize()':<48} {kib['kokkos'] / 1024:6.1f} MiB   goal < 20 MiB "
        f"(bare interpreter {kib['python'] / 1024:.1f} MiB, after import numpy {kib['numpy'] / 1024:.1f} MiB)"
    )
    print(f"Python {sys.version.split()[0]}, {n} fresh processes per measurement")


if __name__ == "__main__":
    main()
