#!/usr/bin/env python3
"""suite.py: the one way to run the test suite, on any Kokkos the project
supports, with any Python, under a sanitizer, whole or in parts.

    python3 scripts/suite.py [options] [pytest arguments]

`make test` runs it with no options; every CI leg and every GPU-machine run
goes through it. Each run: (1) the environment, made by scripts/setup.sh (a
virtual environment with pyproject.toml's test dependencies and the package
built into it; the default run uses .venv and build/setup, every other its
own under build/suite/NAME/); (2) one line saying what runs (Kokkos version,
backends, View implementation, C++ standard, Python); (3) the C++ test
modules and the seed example built once, outside every test's time limit;
(4) pytest, spread over pytest-xdist workers (a test past its time limit,
pyproject.toml's pytest-timeout, ends its worker: that test fails, a new
worker takes the rest, the run goes on to its summary); (5) the summary:
pytest's last line, the failures, the tests whose worker crashed, and for a
sanitizer run every report a process wrote. Logs: build/suite/NAME/.

Kokkos (--kokkos):
  system        the Kokkos setup.sh finds or installs (Debian's; Kokkos_ROOT)
  PREFIX        an install prefix (a folder with include/ and lib*/cmake/Kokkos)
  own[:SOURCE]  the package's own Kokkos, built from SOURCE (a source tree,
                tarball or the original's sdist; default: the one setup.sh
                fetches, or KOKKOS_PYTHON_KOKKOS_SOURCE); CUDA with a GPU
  sid           Debian sid's Kokkos 5.2.2, GCC 16, Python 3.14: the whole run
                inside the root scripts/sid_root.sh makes (root: chroot)
  debs:DIR      sid's libkokkos*.deb in DIR unpacked into / (root; a machine
                whose distribution lacks Kokkos 5, e.g. the GPU machine)
  wheel:FILE    a built wheel installed as a user installs it (nothing built)

Examples:
  python3 scripts/suite.py                          # what make test runs
  python3 scripts/suite.py --sanitize address       # ASan+UBSan, leak checks
  python3 scripts/suite.py --sanitize thread        # ThreadSanitizer over the threads and callback tests
  python3 scripts/suite.py --sanitize memcheck      # Valgrind over a subset (apt-get install valgrind)
  python3 scripts/suite.py --python 3.12 --core     # the core test files on 3.12
  python3 scripts/suite.py --kokkos sid             # Kokkos 5.2.2 in a sid root
  python3 scripts/suite.py --kokkos /opt/kokkos-4.6 tests/test_cxx.py
  python3 scripts/suite.py --kokkos own:kokkos.tar.gz --offline --part cuda --bench -n 16
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SID_VENV = "/opt/kokkos-python-venv"

# The test files whose code is version-dependent CPython API (other Pythons
# run these: 3.10 lacks PyType_GetModuleByDef and PyFloat_Pack2; 3.13 reports
# unraisable errors differently and keeps its main-thread check internal).
CORE_FILES = [
    "test_views.py",
    "test_indexing.py",
    "test_copy.py",
    "test_numpy.py",
    "test_scalar.py",
    "test_float16.py",
    "test_pickle.py",
    "test_shared_memory.py",
    "test_tools.py",
    "test_tools_tuning.py",
    "test_lifetime.py",
    "test_dlpack.py",
    "test_callback_rules.py",
]

# What the sanitizer runs need, per sanitizer: the runtimes preloaded into
# the (uninstrumented) interpreter and the build option (a sanitizer build of
# its own), or a program the tests run under (memcheck: the ordinary build);
# the environment; the tests it runs unless told otherwise (paths, options).
SANITIZERS = {
    "address": {
        "runtimes": ["libasan.so", "libubsan.so"],
        "define": "ON",
        "env": {
            "ASAN_OPTIONS": "detect_leaks=1:quarantine_size_mb=16:halt_on_error=1:allocator_may_return_null=1"
            ":detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1"
            ":log_path={logs}/asan",
            "LSAN_OPTIONS": "suppressions={root}/tests/sanitizer/lsan.supp:print_suppressions=0:leak_check_at_exit=0",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:log_path={logs}/ubsan",
        },
        # (test_internal_kokkos.py and test_recipes.py build Kokkos, wheels and
        # fresh environments of the ordinary build: they run no sanitized code;
        # test_bench_guard.py counts instructions with callgrind, which cannot
        # run code built for ASan)
        "tests": (
            ["tests"],
            [
                "--ignore=tests/test_internal_kokkos.py",
                "--ignore=tests/test_recipes.py",
                "--ignore=tests/test_bench_guard.py",
            ],
        ),
        "sanitized": "1",
    },
    # ThreadSanitizer over what runs Kokkos from several threads: the
    # threads, first-use, callback, finalize-order, Tools and label tests and
    # the concurrency campaign's batch. Its one report from outside the
    # package (glibc freeing a finished thread's TLS) is suppressed.
    "thread": {
        "runtimes": ["libtsan.so"],
        "define": "thread",
        "env": {
            "TSAN_OPTIONS": "halt_on_error=0:allocator_may_return_null=1:second_deadlock_stack=1"
            ":suppressions={root}/tests/sanitizer/tsan.supp"
            ":log_path={logs}/tsan",
        },
        "tests": (
            [
                "tests/test_threads.py",
                "tests/test_first_use.py",
                "tests/test_callback_rules.py",
                "tests/test_finalize_order.py",
                "tests/test_callback_reentry.py",
                "tests/test_tools.py",
                "tests/test_tools_tuning.py",
                "tests/test_tools_cxx.py",
                "tests/test_runtime.py",
                "tests/test_labels.py",
                "tests/test_fuzz.py",
            ],
            [],
        ),
        "sanitized": "thread",
    },
    # Valgrind's memcheck sees what ASan cannot: invalid reads, writes and
    # frees in uninstrumented code (Kokkos, NumPy's loops over View memory).
    # Leaks are ASan's job; uninitialised values are off (CPython 3.11's int
    # construction reads digits it has not written, and the warnings drown the
    # rest). Tens of times slower than a plain run: a subset, in this process
    # (subprocess scenarios would run outside Valgrind), by hand.
    "memcheck": {
        "wrap": [
            "valgrind",
            "--tool=memcheck",
            "--error-exitcode=99",
            "--leak-check=no",
            "--undef-value-errors=no",
            "--num-callers=30",
            "--suppressions={root}/tests/sanitizer/valgrind.supp",
        ],
        "env": {"PYTHONMALLOC": "malloc", "HYPOTHESIS_PROFILE": "kokkos-ci"},
        "tests": (
            [
                "tests/test_views.py",
                "tests/test_indexing.py",
                "tests/test_copy.py",
                "tests/test_numpy.py",
                "tests/test_hostile.py",
                "tests/test_properties.py",
            ],
            ["-k", "not subprocess and not finalize and not callback and not sanitizer and not million"],
        ),
    },
}


def say(name: str, text: str) -> None:
    print(f"suite[{name}]: {text}", flush=True)


def parse() -> tuple[argparse.Namespace, list[str]]:
    p = argparse.ArgumentParser(
        description=__doc__,
        epilog="Unknown arguments go to pytest.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--kokkos",
        action="append",
        help="system (default), PREFIX, own[:SOURCE], sid, debs:DIR, "
        "wheel:FILE; given more than once, one run each and a table of them at the end",
    )
    p.add_argument("--python", help="the interpreter (a path, or a version such as 3.12); default python3")
    p.add_argument(
        "--sanitize",
        choices=sorted(SANITIZERS),
        help="ASan+UBSan or TSan (a build of its own each), or Valgrind's memcheck",
    )
    p.add_argument(
        "--part", default="all", help="all, cuda (the cuda-marked tests), rest, rest:I/N (the I-th of N shares)"
    )
    p.add_argument("--core", action="store_true", help="only the core test files (CPython-version-dependent code)")
    p.add_argument(
        "-n", "--workers", type=int, default=os.cpu_count() or 2, help="pytest-xdist workers (default: cores)"
    )
    p.add_argument("--bench", action="store_true", help="after the cuda part: bench/bench_cuda.py")
    p.add_argument("--offline", action="store_true", help="no PyPI, no apt: use the interpreter's own packages")
    p.add_argument("--limit", type=int, help="a time limit in seconds for pytest as a whole")
    p.add_argument("--name", help="the run's name (its folder under build/suite/)")
    p.add_argument("--venv", help="the virtual environment to use (default: per run)")
    p.add_argument("--no-setup", action="store_true", help="use the environment as it is (no setup.sh)")
    return p.parse_known_args()


def find_python(spec: str | None) -> str:
    """An interpreter from --python: a path, a command, or a version X.Y
    looked up on PATH and under pyenv (whose shims may not run)."""
    if not spec:
        return "python3"
    if "/" in spec or not re.fullmatch(r"\d+\.\d+", spec):
        return spec
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = sorted(pyenv.glob(f"{spec}.*/bin/python{spec}"), reverse=True)
    found = shutil.which(f"python{spec}")
    for p in [*map(str, candidates), *([found] if found else [])]:
        if subprocess.run([p, "-c", "import venv"], capture_output=True).returncode == 0:
            return p
    sys.exit(f"suite: no working python{spec} on this machine")


def run_name(args: argparse.Namespace, python: str) -> str:
    if args.name:
        return args.name
    kind, _, value = args.kokkos.partition(":")
    if kind not in ("system", "own", "sid", "debs", "wheel"):
        kind = "prefix-" + Path(args.kokkos).name
    elif kind == "wheel":
        kind = "wheel-" + Path(value).name.split("-")[0]
    parts = [kind]
    if args.python:
        parts.append("py" + (args.python if re.fullmatch(r"\d+\.\d+", args.python) else Path(python).name))
    if args.sanitize:
        parts.append(args.sanitize)
    return "-".join(parts)


def sh(cmd: list[str], log: Path | None = None, env: dict | None = None, **kw) -> int:
    """Runs cmd; its output goes to log (if given) or to ours."""
    if log is None:
        return subprocess.run(cmd, env=env, **kw).returncode
    with open(log, "w") as out:
        return subprocess.run(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, **kw).returncode


def in_sid_root(args: argparse.Namespace, rest: list[str]) -> int:
    """The whole run inside the sid root: made (scripts/sid_root.sh), the
    checkout bound at /src, this script run there on the root's Kokkos."""
    if os.geteuid() != 0:
        sys.exit("suite: --kokkos sid needs root (chroot)")
    t0 = time.time()
    root = subprocess.run(["bash", str(ROOT / "scripts/sid_root.sh")], stdout=subprocess.PIPE, text=True, check=True)
    root = Path(root.stdout.strip().splitlines()[-1])
    say("sid", f"root {root} ready in {time.time() - t0:.0f} s")
    mounted: list[Path] = []

    def bind(source: str, target: str, kind: list[str] | None = None) -> None:
        where = root / target.lstrip("/")
        if subprocess.run(["mountpoint", "-q", str(where)]).returncode == 0:
            return
        where.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", *(kind or ["--bind"]), source, str(where)], check=True)
        mounted.append(where)

    try:
        bind("proc", "proc", ["-t", "proc"])
        for d in ("/dev", "/dev/pts", "/sys"):
            bind(d, d)
        bind(str(ROOT), "/src")
        git = ROOT / ".git"
        if git.is_file():  # a worktree: its repository's folder, at the same path inside
            common = subprocess.run(
                ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                cwd=ROOT,
                capture_output=True,
                text=True,
            ).stdout.strip()
            if common:
                bind(common, common)
        inner = [
            "python3",
            "/src/scripts/suite.py",
            "--kokkos",
            "system",
            "--venv",
            SID_VENV,
            "--name",
            args.name or "sid",
            "-n",
            str(args.workers),
        ]
        inner += [f"--limit={args.limit}"] if args.limit else []
        inner += ["--core"] if args.core else []
        env = [
            "env",
            "-i",
            "HOME=/root",
            "LC_ALL=C.UTF-8",
            "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        ]
        env += [
            f"{k}={v}" for k, v in os.environ.items() if k.startswith(("KOKKOS_PYTHON_", "PIP_INDEX", "HTTP", "http"))
        ]
        return subprocess.run(["chroot", str(root), *env, *inner, *rest]).returncode
    finally:
        for where in reversed(mounted):
            if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", str(where)], capture_output=True)


def unpack_debs(folder: str) -> None:
    """Debian packages of Kokkos unpacked into / (the machine's own
    distribution has no such Kokkos), and the linker's cache refreshed."""
    if os.geteuid() != 0:
        sys.exit("suite: --kokkos debs:DIR needs root (it unpacks packages into /)")
    debs = sorted(Path(folder).glob("libkokkos*.deb"))
    if not debs:
        sys.exit(f"suite: no libkokkos*.deb in {folder}")
    for deb in debs:
        subprocess.run(["dpkg", "-x", str(deb), "/"], check=True)
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    subprocess.run([ldconfig], check=True)


def make_environment(args, name: str, python: str, venv: Path, out: Path, default: bool) -> dict:
    """setup.sh's environment for this run, and the environment variables
    the run's processes get."""
    env = dict(os.environ)
    build_args = []
    kind, _, value = args.kokkos.partition(":")
    if kind == "own":
        build_args.append("-Ccmake.define.ENABLE_INTERNAL_KOKKOS=ON")
        if value:
            env["KOKKOS_PYTHON_KOKKOS_SOURCE"] = str(Path(value).resolve())
    elif kind not in ("system", "debs", "wheel", "sid"):
        prefix = Path(args.kokkos)
        if not any(prefix.glob("include/**/KokkosCore_config.h")):
            sys.exit(f"suite: {prefix} is not a Kokkos install prefix (no include/KokkosCore_config.h)")
        env["Kokkos_ROOT"] = str(prefix.resolve())
    if args.sanitize and "define" in SANITIZERS[args.sanitize]:
        build_args += [
            "-Ccmake.build-type=RelWithDebInfo",
            f"-Ccmake.define.KOKKOS_PYTHON_SANITIZE={SANITIZERS[args.sanitize]['define']}",
        ]
    # What the leg installs: the core files and the sanitizer run need pytest
    # and the build only; the default run PyTorch's CPU build (on disk where
    # make test runs) and the style tools too.
    groups = "test" if args.core or args.sanitize else "test test-optional" + (" torch style" if default else "")
    setup_env = dict(
        env,
        PYTHON=python,
        VENV=str(venv),
        DEPS=groups,
        BUILD_DIR=str(ROOT / "build/setup") if default else str(out / "build"),
        KOKKOS_PYTHON_BUILD_ARGS=" ".join(build_args),
    )
    if args.offline:
        setup_env["OFFLINE"] = "1"
    if not args.no_setup:
        t0 = time.time()
        flags = ["--test"] + (["--no-build"] if kind == "wheel" else [])
        rc = sh(["bash", str(ROOT / "scripts/setup.sh"), *flags], out / "setup.log", env=setup_env)
        if rc != 0:
            print((out / "setup.log").read_text()[-4000:])
            sys.exit(f"suite[{name}]: setup failed (log: {out / 'setup.log'})")
        if kind == "wheel":
            pip = [
                str(venv / "bin/python3"),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                "--no-deps",
                "--no-index",
                "--force-reinstall",
                str(Path(value).resolve()),
            ]
            if sh(pip, out / "wheel.log") != 0:
                sys.exit(f"suite[{name}]: the wheel did not install (log: {out / 'wheel.log'})")
        say(name, f"environment ready in {time.time() - t0:.0f} s ({venv})")
    env["PYTHONUNBUFFERED"] = "1"
    env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"  # JAX would take most of a GPU's memory
    # tests that build a wheel of the checkout (test_recipes.py) build it as this run's package
    env["KOKKOS_PYTHON_BUILD_ARGS"] = " ".join(build_args)
    env.pop("PYTHONPATH", None)
    if args.sanitize and "runtimes" in SANITIZERS[args.sanitize]:
        env.update(sanitizer_environment(args.sanitize, venv, out))
    elif args.sanitize:
        env.update({k: v.format(root=ROOT) for k, v in SANITIZERS[args.sanitize]["env"].items()})
    return env


def sanitizer_environment(which: str, venv: Path, out: Path) -> dict:
    """bin/python becomes a wrapper that preloads the sanitizer runtimes into
    the interpreter (bin/python3 stays the interpreter, for pip and setup.sh);
    a start-up hook (.pth) takes them out of the environment again, so the
    compilers and other programs the tests run are not sanitized while every
    Python child started through sys.executable is. PYTHONMALLOC=malloc sends
    Python's objects through malloc, so the sanitizer sees them too."""
    spec = SANITIZERS[which]
    cc = os.environ.get("CC", "gcc")
    libs = []
    for runtime in spec["runtimes"]:
        lib = subprocess.run([cc, f"-print-file-name={runtime}"], capture_output=True, text=True).stdout.strip()
        if not os.path.isabs(lib) or not os.path.exists(lib):
            sys.exit(f"suite: {cc} has no {runtime}; install gcc's sanitizer runtimes")
        libs.append(os.path.realpath(lib))
    wrapper = venv / "bin/python"
    wrapper.unlink(missing_ok=True)
    wrapper.write_text(
        "#!/bin/bash\n# The environment's interpreter with the sanitizer runtimes preloaded (scripts/suite.py).\n"
        f'LD_PRELOAD="{" ".join(libs)}${{LD_PRELOAD:+ $LD_PRELOAD}}" exec -a "$0" "{venv}/bin/python3" "$@"\n'
    )
    wrapper.chmod(0o755)
    site = subprocess.run(
        [str(venv / "bin/python3"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    shutil.copy(ROOT / "tests/sanitizer/kokkos_sanitize_site.py", site)
    Path(site, "kokkos_sanitize_site.pth").write_text("import kokkos_sanitize_site\n")
    logs = out / "reports"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    env = {k: v.format(logs=logs, root=ROOT) for k, v in spec["env"].items()}
    env.update(
        PYTHONMALLOC="malloc",
        KOKKOS_PYTHON_SANITIZED=spec["sanitized"],
        KOKKOS_SANITIZE_NOTES=str(logs / "notes.txt"),
        OPENBLAS_NUM_THREADS="1",
    )  # idle BLAS threads would sit in every process at the leak check
    return env


def describe(python: str, env: dict) -> str:
    """Kokkos version, backends, View implementation, C++ standard, Python."""
    code = (
        "import kokkos, sys, pathlib, re\n"
        "c = kokkos._paths.build_config()\n"
        "v = kokkos.kokkos_version()\n"
        "h = next(pathlib.Path(c['kokkos_include_dir'] or kokkos.get_include()).rglob('KokkosCore_config.h'), None)\n"
        "t = h.read_text() if h else ''\n"
        "legacy = v < (4, 6, 99) or re.search(r'^#define KOKKOS_ENABLE_IMPL_VIEW_LEGACY', t, re.M)\n"
        "print('Kokkos %s (%s), %s View, C++%d, Python %s' % ('.'.join(map(str, v)), '+'.join(kokkos.enabled_backends()),"
        " 'legacy' if legacy else 'mdspan', kokkos.cxx_standard(), sys.version.split()[0]))\n"
    )
    res = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, cwd="/")
    if res.returncode != 0:
        sys.exit(f"suite: the installed package does not import:\n{res.stdout}{res.stderr}")
    return res.stdout.strip()


def selection(args: argparse.Namespace, rest: list[str]) -> tuple[list[str], list[str]]:
    """The pytest targets and marker arguments for --part / --core."""
    paths = [a for a in rest if not a.startswith("-") and (ROOT / a.split("::")[0]).exists()]
    options = [a for a in rest if a not in paths]
    if args.core:
        # (the C++ test modules test the headers, not this Python's C API:
        # the few core-file tests that use them stay with the whole suite)
        paths = [f"tests/{f}" for f in CORE_FILES]
        options = ["-m", "not cxx_modules", *options]
    if not paths and args.sanitize:
        paths, given = SANITIZERS[args.sanitize]["tests"]
        options = given + options
    targets = paths or ["tests"]
    part = args.part
    m = re.fullmatch(r"rest:(\d+)/(\d+)", part)
    if m and 1 <= int(m[1]) <= int(m[2]):
        files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py"))
        targets = files[int(m[1]) - 1 :: int(m[2])]
        return targets, ["-m", "not cuda", *options]
    if part == "cuda":
        return targets, ["-m", "cuda", *options]
    if part == "rest":
        return targets, ["-m", "not cuda", *options]
    if part != "all":
        print(f"suite: --part is all, cuda, rest or rest:I/N (1 <= I <= N), not {part!r}", file=sys.stderr)
        sys.exit(2)
    return targets, options


def build_cxx_modules(args, name: str, python: str, env: dict, out: Path, targets: list[str]) -> None:
    """The C++ test modules and the seed example, built before the tests
    (with Kokkos 5's C++20 headers they take minutes on two cores; inside
    the first test that needs them they would spend its time limit)."""
    users = ("tests", "tests/", "test_cxx", "test_build", "test_float16", "test_import_init", "test_exchange_fields")
    if args.core or not any(t.startswith(users) or "/test_cxx" in t for t in targets):
        return
    t0 = time.time()
    code = "import cxx_build; cxx_build.test_modules(); cxx_build.examples()"
    rc = sh([python, "-c", code], out / "cxx.log", env=env, cwd=ROOT / "tests")
    what = "built" if rc == 0 else "FAILED to build (the tests that need them say why)"
    say(name, f"C++ test modules {what} in {time.time() - t0:.0f} s (log: {out / 'cxx.log'})")


def run_pytest(args, name: str, python: str, env: dict, out: Path, targets: list[str], options: list[str]) -> int:
    log = out / "pytest.log"
    wrap = [w.format(root=ROOT) for w in SANITIZERS.get(args.sanitize or "", {}).get("wrap", [])]
    if wrap and not shutil.which(wrap[0]):
        sys.exit(f"suite: {wrap[0]} is not installed (apt-get install {wrap[0]})")
    cmd = [*wrap, python, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", *targets, *options]
    # worksteal, not loadfile: loadfile sends a crashed worker's test to the
    # next worker again (pytest-xdist 3.8), so one hang ran 17 times.
    if args.workers > 0 and "-n" not in options and not wrap:
        cmd += ["-n", str(args.workers), "--dist", "worksteal", "--max-worker-restart", "16"]
    if args.sanitize and not wrap:
        cmd += ["--capture=sys"]  # a report a process writes to fd 2 reaches the log
    say(name, " ".join(shlex.quote(c) for c in cmd[len(wrap) + 1 :]))
    t0 = time.time()
    with open(log, "w") as f:
        proc = subprocess.Popen(
            cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
        )
        # --limit: the whole process group (pytest and its workers) ends there.
        timer = threading.Timer(args.limit or 0, os.killpg, (proc.pid, signal.SIGKILL)) if args.limit else None
        if timer:
            timer.start()
        for line in proc.stdout:
            f.write(line)
            sys.stdout.write(line)
        rc = proc.wait()
        if timer and not timer.is_alive() and rc == -signal.SIGKILL:
            rc = 124
            f.write(f"\nsuite: pytest stopped at its limit of {args.limit} s\n")
            print(f"suite[{name}]: pytest stopped at its limit of {args.limit} s")
        if timer:
            timer.cancel()
    say(name, f"tests ran {time.time() - t0:.0f} s")
    return rc


def summary(name: str, out: Path, rc: int, sanitize: str | None) -> int:
    text = (out / "pytest.log").read_text(errors="replace")
    lines = text.splitlines()
    crashed = sorted(set(re.findall(r"worker '[^']+' crashed while running ('[^']+'|\"[^\"]+\")", text)))
    failed = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))]
    print(f"\n==== suite[{name}] summary ====")
    for ln in failed[:80]:
        print(ln)
    for test in crashed:
        print(f"crashed (or passed its time limit): {test}")
    if sanitize and "runtimes" in SANITIZERS[sanitize]:
        reports = out / "reports"
        bad = sorted(
            p
            for p in reports.glob("*.*")
            if p.name not in ("notes.txt",)
            and re.search(
                r"(Sanitizer|ERROR): |runtime error: |Sanitizer has encountered a fatal error",
                p.read_text(errors="replace"),
            )
        )
        for p in bad:
            print(f"---- {p}\n{p.read_text(errors='replace')[:20000]}")
        if bad:
            print(f"suite[{name}]: {len(bad)} process(es) wrote sanitizer reports")
            rc = rc or 1
        elif (reports / "notes.txt").exists():
            print("notes:", (reports / "notes.txt").read_text())
        else:
            print(f"suite[{name}]: no sanitizer reports")
    print(f"suite[{name}]: {last_line(out / 'pytest.log')}")
    return rc


def main() -> int:
    args, rest = parse()
    kokkos = args.kokkos or ["system"]
    if len(kokkos) > 1 and args.name:
        sys.exit("suite: --name names one run; give one --kokkos with it")
    rows, rc = [], 0
    for spec in kokkos:
        args.kokkos = spec
        t0 = time.time()
        run_rc, row = one_run(args, rest)
        rows.append(f"{spec} | {row} | {time.time() - t0:.0f} s")
        rc = rc or run_rc
    if len(rows) > 1:
        print("\nkokkos | what ran | result | time\n--- | --- | --- | ---")
        print("\n".join(rows))
    return rc


def one_run(args: argparse.Namespace, rest: list[str]) -> tuple[int, str]:
    """One run on one Kokkos; returns its exit status and a table row."""
    python = find_python(args.python)
    name = run_name(args, python)
    if args.kokkos == "sid":
        rc = in_sid_root(args, rest)
        return rc, f"in the sid root | {last_line(ROOT / 'build/suite' / (args.name or 'sid') / 'pytest.log')}"
    targets, options = selection(args, rest)
    out = ROOT / "build/suite" / name
    out.mkdir(parents=True, exist_ok=True)
    kind, _, value = args.kokkos.partition(":")
    if kind == "debs":
        unpack_debs(value)
    # The default run (make test) is setup.sh's own environment: .venv, build/setup.
    plain = not args.sanitize or "define" not in SANITIZERS[args.sanitize]  # memcheck: the ordinary build
    default = kind == "system" and not args.python and plain and not args.venv
    venv = Path(args.venv) if args.venv else (ROOT / ".venv" if default else out / "venv")
    env = make_environment(args, name, python, venv, out, default)
    vpy = str(venv / "bin/python")
    what = describe(vpy, env)
    say(name, what)
    build_cxx_modules(args, name, vpy, env, out, targets)
    rc = run_pytest(args, name, vpy, env, out, targets, options)
    rc = summary(name, out, rc, args.sanitize)
    if args.bench and args.part in ("all", "cuda"):
        t0 = time.time()
        rc = sh([vpy, str(ROOT / "bench/bench_cuda.py")], out / "bench.log", env=env, cwd=ROOT) or rc
        print((out / "bench.log").read_text())
        say(name, f"bench_cuda ran {time.time() - t0:.0f} s")
    return rc, f"{what} | {last_line(out / 'pytest.log')}"


def last_line(log: Path) -> str:
    """pytest's summary line (the last line of its log that is not empty)."""
    try:
        lines = [ln.strip("= ") for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "no log"
    return lines[-1] if lines else "pytest printed nothing"


if __name__ == "__main__":
    sys.exit(main())
