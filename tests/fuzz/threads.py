"""Fuzz family threads: Python threads running programs of View operations at
once, with the GIL switched between them every few microseconds. Each thread
makes, indexes, slices, copies, deep-copies (from Views and NumPy arrays),
mirrors, pickles and exports (DLPack, the buffer protocol) its own Views,
writes its own rows of one View all threads share, marks regions, sets and
clears Kokkos Tools callbacks (which count, raise, or make Views of their
own), and asks a Python tuner for values. One input in a hundred also
finalizes Kokkos from one thread while the others work; those run in a
fresh interpreter of their own (Kokkos finalizes once per process).

Oracle: NumPy doing the same operations on arrays of its own, one per View
(a slice or a mirror view of a View shares its parent's array, as the View
shares memory); every callback error reported, each once; nothing else
raised, but RuntimeError for a View used once finalize has begun."""

import json
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

import kokkos
import kokkos.tools as kt

NAME = "threads"

DTYPES = ("float64", "float32", "int64", "int32", "uint8", "complex128", "int16")
OPS = (
    "make",
    "make",
    "fill",
    "index",
    "slice",
    "copy",
    "from_numpy",
    "mirror",
    "pickle",
    "dlpack",
    "buffer",
    "shared",
    "region",
    "tools",
    "untools",
    "tuning",
    "drop",
    "big",
)
EVENTS = ("allocate_data", "deallocate_data", "push_region", "pop_region", "begin_deep_copy", "end_deep_copy")
# What a callback does when it runs: count, raise (reported through
# sys.unraisablehook), or make and drop a View (not from inside another
# callback of its own thread).
ACTIONS = ("count", "count", "raise", "view")
# Words of the RuntimeError a View used once finalize has begun raises.
FINALIZED = ("finaliz", "released")


class Raised(Exception):
    """What a callback raises on purpose."""


def _shape(rng):
    return [rng.randint(1, 5) for _ in range(rng.choice((1, 1, 2, 2, 3)))]


def _op(rng):
    op = rng.choice(OPS)
    return {
        "op": op,
        "shape": _shape(rng),
        "dtype": rng.choice(DTYPES),
        "layout": rng.choice(("right", "left")),
        "pick": rng.random(),
        "pick2": rng.random(),
        "value": rng.randint(-9, 9),
        "event": rng.choice(EVENTS),
        "action": rng.choice(ACTIONS),
        "seed": rng.getrandbits(31),
    }


def generate(rng):
    n = rng.randint(2, 4)
    programs = [[_op(rng) for _ in range(rng.randint(3, 14))] for _ in range(n)]
    finalize = rng.random() < 0.01
    if finalize:
        who = rng.randrange(n)
        programs[who].insert(rng.randint(0, len(programs[who])), {"op": "finalize"})
    # In a fresh interpreter (every finalizing input, and as many others):
    # Kokkos' first use is each thread's first View, at once, with a Tools
    # callback set before (or none).
    fresh = finalize or rng.random() < 0.01
    if fresh:
        for p in programs:
            p.insert(0, dict(_op(rng), op="make"))
    return {
        "threads": n,
        "programs": programs,
        "shared": [n * rng.randint(1, 3), rng.randint(1, 4)],
        "switch": rng.choice((1e-6, 1e-5, 1e-4)),
        "finalize": finalize,
        "fresh": fresh,
        "early": rng.choice(EVENTS + ("declare_metadata", "parse_args", None)) if fresh else None,
    }


def describe(case):
    ops = ["/".join(op["op"] for op in p) for p in case["programs"]]
    fresh = f" (first use, {case['early']} callback set)" if case.get("fresh") else ""
    return f"{case['threads']} threads{' + finalize' if case['finalize'] else ''}{fresh}: " + " | ".join(ops)


# ---- one thread's program


class Program:
    """One thread's Views and their NumPy oracles, and what it saw."""

    def __init__(self, index, case, shared, log):
        self.index, self.case, self.shared, self.log = index, case, shared, log
        self.views = []  # (View, ndarray): the array is the View's oracle
        self.finalized = False

    def pick(self, fraction):
        return self.views[int(fraction * len(self.views))] if self.views else (None, None)

    def check(self, what, view, ref):
        got = np.asarray(view)
        if got.shape != ref.shape or got.dtype != ref.dtype or not np.array_equal(got, ref):
            raise AssertionError(f"{what}: the View holds {got!r}, NumPy {ref!r}")

    # The operations on a View this thread made (with none yet, one is made).
    ON_A_VIEW = frozenset(("fill", "index", "slice", "copy", "from_numpy", "mirror", "pickle", "dlpack", "buffer"))

    def run(self, op):
        name = op["op"]
        if name not in self.ON_A_VIEW:
            return getattr(self, "op_" + name)(op)
        v, ref = self.pick(op["pick"])
        if v is None:
            return self.op_make(op)
        return getattr(self, "op_" + name)(op, v, ref)

    def op_make(self, op):
        layout = kokkos.LayoutLeft if op["layout"] == "left" else kokkos.LayoutRight
        v = kokkos.View(op["shape"], getattr(kokkos, op["dtype"]), layout=layout, label=f"t{self.index}")
        ref = np.zeros(op["shape"], op["dtype"])
        self.check("a new View", v, ref)
        self.views.append((v, ref))

    def op_fill(self, op, v, ref):
        kokkos.deep_copy(v, op["value"] % 7)
        ref[...] = op["value"] % 7
        self.check("deep_copy(view, scalar)", v, ref)

    def op_index(self, op, v, ref):
        idx = tuple(int(op["pick2"] * n) for n in ref.shape)
        v[idx] = op["value"] % 5
        ref[idx] = op["value"] % 5
        got = v[idx]
        if got != ref[idx]:
            raise AssertionError(f"view[{idx}] is {got!r}, NumPy {ref[idx]!r}")

    def op_slice(self, op, v, ref):
        n = ref.shape[0]
        a = int(op["pick2"] * n)
        s, sref = v[a:], ref[a:]
        self.check("a slice", s, sref)
        self.views.append((s, sref))  # shares its parent's memory, as sref shares ref's

    def op_copy(self, op, v, ref):
        layout = kokkos.LayoutLeft if op["layout"] == "left" else kokkos.LayoutRight
        dst = kokkos.View(list(ref.shape), getattr(kokkos, str(ref.dtype)), layout=layout, label="copy")
        kokkos.deep_copy(dst, v)
        self.check("deep_copy(view, view)", dst, ref)
        self.views.append((dst, ref.copy()))

    def op_from_numpy(self, op, v, ref):
        src = (np.arange(ref.size).reshape(ref.shape) * (op["value"] or 1) % 11).astype(ref.dtype)
        kokkos.deep_copy(v, src)
        ref[...] = src
        self.check("deep_copy(view, ndarray)", v, ref)

    def op_mirror(self, op, v, ref):
        if op["value"] % 2:
            m = kokkos.create_mirror_view(v)  # a host View: the same memory
            self.views.append((m, ref))
        else:
            m = kokkos.create_mirror(v, copy=True)
            self.views.append((m, ref.copy()))
        self.check("a mirror", m, ref)

    def op_pickle(self, op, v, ref):
        w = pickle.loads(pickle.dumps(v))
        self.check("an unpickled View", w, ref)
        self.views.append((w, ref.copy()))

    def op_dlpack(self, op, v, ref):
        a = np.from_dlpack(v)
        if not np.array_equal(a, ref):
            raise AssertionError(f"numpy.from_dlpack(view) is {a!r}, NumPy {ref!r}")
        if a.flags.writeable:
            a[...] = op["value"] % 3
            ref[...] = op["value"] % 3
            self.check("a write through DLPack", v, ref)

    def op_buffer(self, op, v, ref):
        with memoryview(v) as m:
            a = np.asarray(m)
            if not np.array_equal(a, ref):
                raise AssertionError(f"memoryview(view) holds {a!r}, NumPy {ref!r}")
            a[...] = op["value"] % 4
        ref[...] = op["value"] % 4
        self.check("a write through the buffer protocol", v, ref)

    def op_shared(self, op):
        view, ref = self.shared.get()
        for r in range(self.index, ref.shape[0], self.case["threads"]):  # this thread's rows only
            view[r, :] = self.index + 1
            ref[r, :] = self.index + 1

    def op_region(self, op):
        with kt.region(f"thread {self.index}"):
            self.run(dict(op, op="fill"))

    def op_tools(self, op):
        getattr(kt, f"set_{op['event']}_callback")(self.log.callback(op["action"]))

    def op_untools(self, op):
        getattr(kt, f"set_{op['event']}_callback")(None)

    def op_tuning(self, op):
        candidates = [1, 2, 4, 8]
        var = kt.declare_output_type(f"block {self.index}", kt.VariableInfo(int, "ordinal", candidates))
        choice = candidates[op["seed"] % 4]

        def tuner(context_id, inputs, outputs):
            for out in outputs:
                out.value = choice

        kt.set_request_output_values_callback(tuner)
        out = [kt.VariableValue(var, 1)]
        kt.request_output_values(kt.get_new_context_id(), [], out)
        kt.set_request_output_values_callback(None)
        if out[0].value not in candidates:  # another thread's tuner may have answered
            raise AssertionError(f"the tuner chose {out[0].value!r}, not one of {candidates}")

    def op_big(self, op):
        """A View large enough that its allocation and copies run without the
        GIL (Kokkos work in flight, next to other threads')."""
        n = 1 << (15 + op["seed"] % 3)
        src = np.arange(n, dtype="float64") * (op["value"] or 1)
        v = kokkos.View((n,), kokkos.float64, label=f"big {self.index}")
        kokkos.deep_copy(v, src)
        w = kokkos.View((n,), kokkos.float64, label=f"big copy {self.index}")
        kokkos.deep_copy(w, v)
        self.check("a large deep_copy", w, src)
        self.views.append((w, src))

    def op_drop(self, op):
        if self.views:
            self.views.pop(int(op["pick"] * len(self.views)))

    def op_finalize(self, op):
        kokkos.finalize()
        self.finalized = True


class Log:
    """What the callbacks did: how many ran, how many raised (each must be
    reported once), and the reports sys.unraisablehook received."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls = 0
        self.raised = []
        self.reported = []
        self.busy = threading.local()

    def callback(self, action):
        def callback(*args):
            with self.lock:
                self.calls += 1
                n = self.calls
            if action == "raise":
                error = Raised(f"callback {n}")
                with self.lock:
                    self.raised.append(str(error))
                raise error
            if action == "view" and not getattr(self.busy, "on", False):
                self.busy.on = True
                try:
                    w = kokkos.View((3,), label="in a callback")
                    w[1] = 2.0
                    assert float(w[1]) == 2.0
                    del w  # here, or its deallocation's callback would make the next View: a chain
                except RuntimeError as e:  # Kokkos initializing or finalizing
                    if not any(word in str(e) for word in FINALIZED + ("initializ",)):
                        raise
                finally:
                    self.busy.on = False

        return callback

    def hook(self, unraisable):
        with self.lock:
            self.reported.append(unraisable.exc_value)


class Shared:
    """The View all threads write rows of, and its oracle: made by the first
    thread that needs it (in a fresh interpreter, Kokkos is not initialized
    before the threads start)."""

    def __init__(self, rows, cols):
        self.shape, self.lock, self.pair = (rows, cols), threading.Lock(), None

    def get(self):
        with self.lock:
            if self.pair is None:
                self.pair = (kokkos.View(self.shape, kokkos.int32, label="shared"), np.zeros(self.shape, "int32"))
            return self.pair


def run_here(case):
    """Runs the program in this process: (kind, detail)."""
    n = case["threads"]
    shared = Shared(*case["shared"])
    if not case.get("fresh"):
        shared.get()
    log = Log()
    if case.get("early"):
        getattr(kt, f"set_{case['early']}_callback")(log.callback("count"))
    programs = [Program(i, case, shared, log) for i in range(n)]
    failures = []
    start = threading.Barrier(n)

    def body(p, ops):
        try:
            start.wait()
            for op in ops:
                p.run(op)
        except AssertionError as e:
            failures.append(("wrong", f"thread {p.index}: {e}"))
        except RuntimeError as e:
            if not (case["finalize"] and any(word in str(e) for word in FINALIZED)):
                failures.append(("error", f"thread {p.index}: {type(e).__name__}: {e}"))
        except Exception as e:  # noqa: BLE001 - every other exception is a finding
            failures.append(("error", f"thread {p.index}: {type(e).__name__}: {e}"))

    old_hook, old_switch = sys.unraisablehook, sys.getswitchinterval()
    sys.unraisablehook = log.hook
    sys.setswitchinterval(case["switch"])
    try:
        threads = [
            threading.Thread(target=body, args=(p, ops)) for p, ops in zip(programs, case["programs"], strict=True)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
            if t.is_alive():
                return "error", "a thread still runs after 60 s"
    finally:
        sys.setswitchinterval(old_switch)
        if not kokkos.is_finalized():
            kt.clear_callbacks()
        sys.unraisablehook = old_hook
    if failures:
        return failures[0]
    if not kokkos.is_finalized():
        for p in programs:
            for v, ref in p.views:
                p.check(f"thread {p.index}'s View at the end", v, ref)
        programs[0].check("the shared View", *shared.get())
    stray = [e for e in log.reported if not isinstance(e, Raised)]
    if stray:
        return "error", f"a callback error that no callback raised: {stray[0]!r}"
    reported = sorted(str(e) for e in log.reported)
    if reported != sorted(log.raised):
        return "wrong", f"{len(log.raised)} callback errors raised, {len(reported)} reported"
    return "ok", None


def run(case):
    if not case.get("fresh"):
        return run_here(case)
    # Kokkos initializes and finalizes once per process: this input runs in
    # a fresh one.
    tests = str(Path(__file__).resolve().parent.parent)
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from fuzz import threads; "
        "print('@@', json.dumps(threads.run_here(json.loads(sys.argv[2]))))"
    )
    try:
        p = subprocess.run(
            [sys.executable, "-c", code, tests, json.dumps(case)], capture_output=True, text=True, timeout=120
        )
    except subprocess.TimeoutExpired:
        return "error", "the program in a fresh interpreter did not end within 120 s"
    for line in p.stdout.splitlines():
        if line.startswith("@@ "):
            kind, detail = json.loads(line[3:])
            return kind, detail
    return "crash" if p.returncode < 0 else "error", f"exit status {p.returncode}: {p.stderr[-2000:]}"
