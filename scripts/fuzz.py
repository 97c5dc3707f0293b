#!/usr/bin/env python3
"""fuzz.py: the project's fuzz campaign (the generators are tests/fuzz/).

Runs COUNT inputs of each family in batches, each batch in a child process
(tests/fuzz/child.py) with a time limit per input. A child that dies by a
signal or an abort, prints a sanitizer report, or makes no progress within
the limit is a finding; its batch is then replayed input by input in fresh
children to isolate the culprit (the input the child was running first, then
the batch's earlier inputs, newest first), and the rest of the batch runs
on. Findings of every kind are saved, one JSON file each, with the command
that replays them.

  python scripts/fuzz.py                          # every family, 2000 inputs each, -j 2
  python scripts/fuzz.py --families dlpack,index --count 50000 --seed 7 -j 2
  python scripts/fuzz.py --python build/suite/system-address/venv/bin/python    # the ASan+UBSan build
  python scripts/fuzz.py --families threads --python build/suite/system-thread/venv/bin/python --sanitizer thread
  python scripts/fuzz.py --replay dlpack:7:1234   # one input, in this process's child
  kill -TERM <pid>                                  # ends a long run early: the summary counts what ran

Under the sanitizer build (scripts/suite.py --sanitize address makes
build/suite/system-address/venv; its bin/python preloads the runtimes) the
children get that script's
ASAN_OPTIONS and UBSAN_OPTIONS with halt_on_error and abort_on_error, so an
ASan or UBSan report ends the child with SIGABRT, and reports go to the
child's stderr (not to files) where this script finds them. Leak checks are
off here (the sanitizer test run has them). Under a ThreadSanitizer build
(KOKKOS_PYTHON_SANITIZE=thread, its runtime preloaded by the interpreter
given as --python; --sanitizer thread, or a path with "-thread/" in it) the
children get TSAN_OPTIONS with halt_on_error and the suppressions of
tests/sanitizer/tsan.supp (reports that come from the uninstrumented
interpreter), so the first race report ends the child.

Exit status: 0 when no input gave a failing kind (wrong, error, crash, hang,
sanitizer, harness), 1 otherwise, 2 for bad arguments.
"""

import argparse
import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
sys.path.insert(0, str(TESTS))
import fuzz  # noqa: E402  (tests/fuzz: the family names and kinds)

SANITIZER_MARKS = (
    "ERROR: AddressSanitizer",
    "ERROR: LeakSanitizer",
    "runtime error:",
    "Sanitizer has encountered",
    "WARNING: ThreadSanitizer",
    "ERROR: ThreadSanitizer",
    "FATAL: ThreadSanitizer",
)
ASAN = (
    "detect_leaks=0:halt_on_error=1:abort_on_error=1:allocator_may_return_null=1:"
    "detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:"
    "quarantine_size_mb=16:handle_segv=1"
)
UBSAN = "print_stacktrace=1:halt_on_error=1:abort_on_error=1"
TSAN = f"halt_on_error=1:allocator_may_return_null=1:second_deadlock_stack=1:suppressions={TESTS / 'sanitizer' / 'tsan.supp'}"


def child_env(sanitized):
    """The children's environment; sanitized: False, "address" or "thread"."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["OPENBLAS_NUM_THREADS"] = "1"
    env["PYTHONFAULTHANDLER"] = "1"
    if sanitized == "address":
        env["ASAN_OPTIONS"] = ASAN
        env["UBSAN_OPTIONS"] = UBSAN
        env["KOKKOS_PYTHON_SANITIZED"] = "1"
    elif sanitized == "thread":
        env["TSAN_OPTIONS"] = TSAN
        env["KOKKOS_PYTHON_SANITIZED"] = "thread"
    if sanitized:
        env["PYTHONMALLOC"] = "malloc"
    return env


class Batch:
    """One child's run of inputs [start, start + count) of a family."""

    def __init__(self, family, seed, start, count):
        self.family, self.seed, self.start, self.count = family, seed, start, count


def run_child(cfg, family, seed, start, count):
    """Runs one child. Returns a dict: counts, reports (the @R lines), wall,
    and, if it did not finish, fate (crash / hang / sanitizer), at (the
    input running) and tail (stderr's end)."""
    cmd = [cfg.python, "-m", "fuzz.child", family, str(seed), str(start), str(count)]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=cfg.env, cwd=str(TESTS))
        out = {"counts": {}, "reports": [], "at": None, "fate": None, "done": False}
        buf = b""
        deadline = time.monotonic() + cfg.timeout + cfg.startup
        fd = p.stdout.fileno()
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                out["fate"] = "hang"
                p.send_signal(signal.SIGKILL)
                break
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.decode("utf-8", "replace")
                if text.startswith("@B "):
                    out["at"] = int(text[3:])
                    deadline = time.monotonic() + cfg.timeout
                elif text.startswith("@R "):
                    _, idx, kind, payload = text.split(" ", 3)
                    out["reports"].append((int(idx), kind, json.loads(payload)))
                elif text.startswith("@T "):
                    counts, _, _ = text[3:].rpartition(" ")
                    out["counts"] = json.loads(counts)
                    out["done"] = True
        p.stdout.close()
        rc = p.wait()
        out["wall"] = time.perf_counter() - t0
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    out["rc"] = rc
    if any(m in stderr for m in SANITIZER_MARKS):
        out["fate"] = "sanitizer"
    elif out["fate"] is None and (rc != 0 or not out["done"]):
        out["fate"] = "crash"
    if out["fate"]:
        out["tail"] = _report_tail(stderr)
    return out


def _report_tail(stderr):
    """The part of stderr that tells what happened (a sanitizer's report
    from its first line, else the end)."""
    for mark in SANITIZER_MARKS:
        i = stderr.find(mark)
        if i >= 0:
            start = stderr.rfind("\n", 0, max(0, i - 200)) + 1
            return stderr[start : start + 4000]
    return stderr[-3000:]


def describe_fate(res):
    rc = res["rc"]
    if res["fate"] == "hang":
        return "no progress within the time limit (killed)"
    if rc < 0:
        return f"killed by signal {signal.Signals(-rc).name}" if -rc in signal.valid_signals() else f"signal {-rc}"
    return f"exit status {rc} without finishing"


def input_text(family, seed, index):
    """The generated input, described (generated in this process: no kokkos call)."""
    import fuzz.child as child

    try:
        fam = fuzz.family(family)
        return fam.describe(fam.generate(child.rng_for(family, seed, index)))
    except Exception as e:  # noqa: BLE001
        return f"(could not describe: {e!r})"


class Campaign:
    def __init__(self, cfg):
        self.cfg = cfg
        self.lock = threading.Lock()
        self.stats = {f: {"inputs": 0, "seconds": 0.0, **{k: 0 for k in fuzz.KINDS}} for f in cfg.families}
        self.findings = []

    def add(self, family, counts, wall):
        with self.lock:
            s = self.stats[family]
            s["seconds"] += wall
            for k, n in counts.items():
                s[k] = s.get(k, 0) + n
                s["inputs"] += n

    def finding(self, family, seed, index, kind, detail, desc=None):
        f = {
            "family": family,
            "seed": seed,
            "index": index,
            "kind": kind,
            "detail": detail,
            "input": desc if desc is not None else input_text(family, seed, index),
            "replay": f"python scripts/fuzz.py --replay {family}:{seed}:{index}"
            + (f" --python {self.cfg.python}" if self.cfg.python != sys.executable else ""),
        }
        with self.lock:
            self.findings.append(f)
            if self.cfg.out:
                d = Path(self.cfg.out) / "findings"
                d.mkdir(parents=True, exist_ok=True)
                name = f"{family}-{seed}-{index}-{kind}.json" if index is not None else f"{family}-{seed}-{kind}.json"
                (d / name).write_text(json.dumps(f, indent=1) + "\n")
        if not self.cfg.quiet and kind in fuzz.FAILING:
            print(f"fuzz: {kind}: {family} seed {seed} input {index}: {str(detail)[:300]}", file=sys.stderr, flush=True)

    def run_batch(self, family, seed, start, count):
        end = start + count
        while start < end:
            res = run_child(self.cfg, family, seed, start, end - start)
            for idx, kind, payload in res["reports"]:
                if kind != "ok" and kind != "refused":
                    self.finding(family, seed, idx, kind, payload["detail"], payload["input"])
            if not res["fate"]:
                self.add(family, res["counts"], res["wall"])
                return
            # the child died at input res["at"]: count the inputs before it, then
            # isolate the culprit and go on after it
            at = res["at"] if res["at"] is not None else start
            counts = {"ok": at - start}
            for idx, kind, _ in res["reports"]:
                if idx < at:
                    counts["ok"] -= 1
                    counts[kind] = counts.get(kind, 0) + 1
            self.add(family, counts, res["wall"])
            self.isolate(family, seed, start, at, res)
            start = at + 1

    def isolate(self, family, seed, start, at, res):
        """Finds the input of [start, at] that fails alone; records it."""
        fate = res["fate"]
        tried = 0
        for idx in [at] + list(range(at - 1, start - 1, -1)):
            if tried >= self.cfg.max_replays:
                break
            tried += 1
            alone = run_child(self.cfg, family, seed, idx, 1)
            if alone["fate"]:
                self.add(family, {alone["fate"]: 1}, alone["wall"])
                note = "" if idx == at else f" (the batch died at input {at}; this earlier input fails alone)"
                self.finding(family, seed, idx, alone["fate"], describe_fate(alone) + note + "\n" + alone["tail"])
                if idx != at:
                    self.add(family, {"ok": 1}, 0.0)
                return
        self.add(family, {fate: 1}, 0.0)
        self.finding(
            family,
            seed,
            at,
            fate,
            f"{describe_fate(res)} in a batch from input {start}; no input of it fails alone "
            f"({tried} replayed)\n{res.get('tail', '')}",
        )


def run_campaign(cfg):
    camp = Campaign(cfg)
    work = queue.Queue()
    items = []
    for f in cfg.families:
        for start in range(cfg.first, cfg.first + cfg.count, cfg.batch):
            items.append((start, f, min(cfg.batch, cfg.first + cfg.count - start)))
    for start, f, n in sorted(items):  # families interleaved
        work.put((f, start, n))
    t0 = time.perf_counter()

    def worker():
        while True:
            try:
                f, start, n = work.get_nowait()
            except queue.Empty:
                return
            try:
                camp.run_batch(f, cfg.seed, start, n)
            except Exception as e:  # noqa: BLE001 - the driver's own failure is a finding too
                camp.finding(f, cfg.seed, start, "harness", f"the driver failed on this batch: {e!r}", "")

    # SIGTERM or Ctrl-C ends a long run early: no new batch starts, the
    # batches under way finish, and the summary counts what ran.
    def stop(*_):
        while True:
            try:
                work.get_nowait()
            except queue.Empty:
                return

    old = signal.signal(signal.SIGTERM, stop)
    threads = [threading.Thread(target=worker) for _ in range(cfg.jobs)]
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads):
            try:
                for t in threads:
                    t.join()
            except KeyboardInterrupt:
                print("fuzz: stopping after the batches under way", file=sys.stderr)
                stop()
    finally:
        signal.signal(signal.SIGTERM, old)
    return camp, time.perf_counter() - t0


SANITIZER_NAMES = {"address": " (ASan+UBSan)", "thread": " (TSan)"}


def summary(camp, elapsed, cfg):
    lines = []
    cols = ["inputs", "seconds", "inputs/s"] + list(fuzz.KINDS)
    lines.append(f"{'family':22}" + "".join(f"{c:>11}" for c in cols))
    total = {c: 0 for c in cols}
    for f, s in camp.stats.items():
        rate = s["inputs"] / s["seconds"] if s["seconds"] else 0.0
        row = [s["inputs"], f"{s['seconds']:.1f}", f"{rate:.0f}"] + [s.get(k, 0) for k in fuzz.KINDS]
        lines.append(f"{f:22}" + "".join(f"{x:>11}" for x in row))
        for c, x in zip(cols, row, strict=True):
            if c not in ("seconds", "inputs/s"):
                total[c] += x
        total["seconds"] += s["seconds"]
    rate = total["inputs"] / total["seconds"] if total["seconds"] else 0.0
    row = [total["inputs"], f"{total['seconds']:.1f}", f"{rate:.0f}"] + [total[k] for k in fuzz.KINDS]
    lines.append(f"{'all':22}" + "".join(f"{x:>11}" for x in row))
    lines.append(
        f"seed {cfg.seed}, -j {cfg.jobs}, batch {cfg.batch}, {elapsed:.1f} s elapsed; "
        f"interpreter {cfg.python}{SANITIZER_NAMES.get(cfg.sanitized, '')}"
    )
    return "\n".join(lines)


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--families", default=",".join(fuzz.FAMILIES), help="comma-separated (default: all)")
    ap.add_argument("--count", type=int, default=2000, help="inputs per family (default 2000)")
    ap.add_argument("--first", type=int, default=0, help="index of the first input (default 0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=500, help="inputs per child (default 500)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="children at a time (default 2)")
    ap.add_argument("--python", default=sys.executable, help="interpreter of the children (default: this one)")
    ap.add_argument(
        "--sanitizer",
        choices=("auto", "on", "off", "address", "thread"),
        default="auto",
        help="the children's sanitizer build: address (ASan+UBSan; on is the same), thread (TSan), off, or auto "
        "(from the interpreter's path or KOKKOS_PYTHON_SANITIZED)",
    )
    ap.add_argument("--timeout", type=float, default=None, help="seconds per input (default 20, 120 sanitized)")
    ap.add_argument("--startup", type=float, default=None, help="extra seconds for a child to start")
    ap.add_argument("--max-replays", type=int, default=60, help="inputs replayed alone to isolate one finding")
    ap.add_argument("--out", default=None, help="folder for findings/*.json and summary.json")
    ap.add_argument("--replay", default=None, help="FAMILY:SEED:INDEX, run alone in a child and described")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON too")
    ap.add_argument("--quiet", action="store_true")
    cfg = ap.parse_args(argv)
    cfg.python = os.path.abspath(shutil.which(cfg.python) or cfg.python)  # children start in tests/
    cfg.families = [f for f in cfg.families.split(",") if f]
    bad = [f for f in cfg.families if f not in fuzz.MODULES]
    if bad:
        ap.error(f"unknown families {bad}; known: {', '.join(fuzz.FAMILIES)}")
    marked = os.environ.get("KOKKOS_PYTHON_SANITIZED")
    if cfg.sanitizer == "auto":
        # (scripts/suite.py's sanitizer environments: build/suite/NAME-thread, NAME-address)
        if "tsan" in cfg.python or "-thread/" in cfg.python or marked == "thread":
            cfg.sanitized = "thread"
        elif "sanitize" in cfg.python or "-address/" in cfg.python or marked == "1":
            cfg.sanitized = "address"
        else:
            cfg.sanitized = False
    else:
        cfg.sanitized = {"on": "address", "address": "address", "thread": "thread"}.get(cfg.sanitizer, False)
    if cfg.timeout is None:
        cfg.timeout = 120.0 if cfg.sanitized else 20.0
    if cfg.startup is None:
        cfg.startup = 60.0 if cfg.sanitized else 30.0
    cfg.env = child_env(cfg.sanitized)
    return cfg


def replay(cfg):
    family, seed, index = cfg.replay.split(":")
    seed, index = int(seed), int(index)
    print(f"input: {input_text(family, seed, index)}")
    res = run_child(cfg, family, seed, index, 1)
    if res["fate"]:
        print(f"{res['fate']}: {describe_fate(res)}\n{res['tail']}")
        return 1
    for _, kind, payload in res["reports"]:
        print(f"{kind}: {payload['detail']}")
        return 1 if kind in fuzz.FAILING else 0
    print(f"{next(iter(res['counts']))}")
    return 0


def main(argv=None):
    cfg = parse(argv if argv is not None else sys.argv[1:])
    if cfg.replay:
        return replay(cfg)
    camp, elapsed = run_campaign(cfg)
    text = summary(camp, elapsed, cfg)
    print(text)
    failing = [f for f in camp.findings if f["kind"] in fuzz.FAILING]
    others = [f for f in camp.findings if f["kind"] not in fuzz.FAILING]
    print(f"fuzz: {len(failing)} failing findings, {len(others)} divergences/laxities")
    for f in failing:
        print(f"  {f['kind']}: {f['family']}:{f['seed']}:{f['index']}: {str(f['detail']).splitlines()[0][:200]}")
    if cfg.out:
        Path(cfg.out).mkdir(parents=True, exist_ok=True)
        data = {"stats": camp.stats, "elapsed": elapsed, "seed": cfg.seed, "sanitized": cfg.sanitized}
        (Path(cfg.out) / "summary.json").write_text(json.dumps(data, indent=1) + "\n")
    if cfg.json:
        print(json.dumps({"stats": camp.stats, "elapsed": elapsed, "findings": camp.findings}))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
