"""A profiler written in Python on kokkos.tools callbacks alone.

    python -m kokkos.tools.timer [-o REPORT] script.py [args ...]

runs script.py (with its arguments, as ``python script.py`` would) and then
prints, for everything Kokkos did meanwhile, in C++ or in Python:

* per region (kokkos.tools.region / push_region, Kokkos::Tools::pushRegion):
  calls, total and mean time, share of the run;
* per kernel (parallel_for / parallel_reduce / parallel_scan, by label):
  calls, total and mean time;
* deep copies per pair of memory spaces: calls, bytes, time;
* allocations per memory space: how many, and the high-water mark of the
  bytes allocated through Kokkos (Views from Python included).

From Python::

    from kokkos.tools.timer import Timer
    with Timer() as t:
        run_solver()
    print(t.report())

The timer sets the push/pop region, begin/end parallel_*, allocate /
deallocate and begin/end deep copy callbacks; Kokkos keeps one callback per
event, so it replaces (and on stop removes) whatever else was set for them.
A tool library loaded later, at initialize, replaces the timer in turn; the
report says so.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import runpy
import sys
import threading
import time
import traceback

from . import get_callbacks, set_callback

_EVENTS = (
    "push_region",
    "pop_region",
    "begin_parallel_for",
    "end_parallel_for",
    "begin_parallel_reduce",
    "end_parallel_reduce",
    "begin_parallel_scan",
    "end_parallel_scan",
    "allocate_data",
    "deallocate_data",
    "begin_deep_copy",
    "end_deep_copy",
)


class _Stat:
    __slots__ = ("calls", "total")

    def __init__(self) -> None:
        self.calls = 0
        self.total = 0  # ns

    def add(self, ns: int) -> None:
        self.calls += 1
        self.total += ns


class _Space:
    __slots__ = ("current", "peak", "allocations", "deallocations")

    def __init__(self) -> None:
        self.current = 0
        self.peak = 0
        self.allocations = 0
        self.deallocations = 0


class Timer:
    """Collects region, kernel, deep-copy and allocation statistics from
    Kokkos Tools callbacks between start() and stop()."""

    def __init__(self, clock=time.perf_counter_ns) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.regions: dict[str, _Stat] = {}
        self.kernels: dict[tuple[str, str], _Stat] = {}
        self.copies: dict[tuple[str, str], list] = {}  # (dst, src) -> [calls, bytes, ns]
        self.spaces: dict[str, _Space] = {}
        self.unmatched_pops = 0
        self._stacks: dict[int, list] = {}  # thread -> [(name, t0)]
        self._open_kernels: dict[int, tuple] = {}  # id -> (kind, name, t0)
        self._copy_stacks: dict[int, list] = {}  # thread -> [(key, bytes, t0)]
        self._callbacks: dict[str, object] = {}
        self._started = 0
        self._elapsed = 0
        self.replaced: list[str] = []

    # ---- callbacks (Kokkos calls them with the GIL held, from any thread) ----

    def _push_region(self, name: str) -> None:
        self._stacks.setdefault(threading.get_ident(), []).append((name, self._clock()))

    def _pop_region(self) -> None:
        now = self._clock()
        stack = self._stacks.get(threading.get_ident())
        if not stack:
            self.unmatched_pops += 1
            return
        name, t0 = stack.pop()
        stat = self.regions.get(name)
        if stat is None:
            stat = self.regions[name] = _Stat()
        stat.add(now - t0)

    def _begin(self, kind: str):
        def begin(name: str, device_id: int) -> int:
            kid = next(self._ids)
            self._open_kernels[kid] = (kind, name, self._clock())
            return kid

        return begin

    def _end(self, kernel_id: int) -> None:
        now = self._clock()
        entry = self._open_kernels.pop(kernel_id, None)
        if entry is None:
            return
        kind, name, t0 = entry
        key = (name, kind)
        stat = self.kernels.get(key)
        if stat is None:
            stat = self.kernels[key] = _Stat()
        stat.add(now - t0)

    def _allocate(self, handle, label: str, ptr: int, size: int) -> None:
        space = self.spaces.get(handle.name)
        if space is None:
            space = self.spaces[handle.name] = _Space()
        space.allocations += 1
        space.current += size
        if space.current > space.peak:
            space.peak = space.current

    def _deallocate(self, handle, label: str, ptr: int, size: int) -> None:
        space = self.spaces.get(handle.name)
        if space is None:  # allocated before the timer started
            space = self.spaces[handle.name] = _Space()
        space.deallocations += 1
        space.current -= size

    def _begin_copy(self, dst_handle, dst_label, dst_ptr, src_handle, src_label, src_ptr, size) -> None:
        key = (dst_handle.name, src_handle.name)
        self._copy_stacks.setdefault(threading.get_ident(), []).append((key, size, self._clock()))

    def _end_copy(self) -> None:
        now = self._clock()
        stack = self._copy_stacks.get(threading.get_ident())
        if not stack:
            return
        key, size, t0 = stack.pop()
        entry = self.copies.setdefault(key, [0, 0, 0])
        entry[0] += 1
        entry[1] += size
        entry[2] += now - t0

    # ---- control --------------------------------------------------------------

    def start(self) -> Timer:
        self._callbacks = {
            "push_region": self._push_region,
            "pop_region": self._pop_region,
            "begin_parallel_for": self._begin("for"),
            "end_parallel_for": self._end,
            "begin_parallel_reduce": self._begin("reduce"),
            "end_parallel_reduce": self._end,
            "begin_parallel_scan": self._begin("scan"),
            "end_parallel_scan": self._end,
            "allocate_data": self._allocate,
            "deallocate_data": self._deallocate,
            "begin_deep_copy": self._begin_copy,
            "end_deep_copy": self._end_copy,
        }
        for event, fn in self._callbacks.items():
            set_callback(event, fn)
        self._started = self._clock()
        return self

    def stop(self) -> Timer:
        """Stops timing; removes the timer's callbacks (those still set)."""
        if not self._started:
            return self
        self._elapsed += self._clock() - self._started
        self._started = 0
        now = get_callbacks()
        self.replaced = [e for e, fn in self._callbacks.items() if now.get(e) is not fn]
        for event, fn in self._callbacks.items():
            if now.get(event) is fn:
                set_callback(event, None)
        return self

    def __enter__(self) -> Timer:
        return self.start()

    def __exit__(self, *exc) -> bool:
        self.stop()
        return False

    @property
    def elapsed(self) -> float:
        """Seconds timed so far."""
        running = self._clock() - self._started if self._started else 0
        return (self._elapsed + running) / 1e9

    # ---- results ----------------------------------------------------------------

    def summary(self) -> dict:
        """The statistics as plain data (times in seconds, sizes in bytes)."""
        return {
            "elapsed": self.elapsed,
            "regions": {n: {"calls": s.calls, "total": s.total / 1e9} for n, s in self.regions.items()},
            "kernels": {
                f"{kind}:{name}": {
                    "name": name,
                    "kind": kind,
                    "calls": s.calls,
                    "total": s.total / 1e9,
                }
                for (name, kind), s in self.kernels.items()
            },
            "deep_copies": {
                f"{dst}<-{src}": {"calls": c, "bytes": b, "total": ns / 1e9}
                for (dst, src), (c, b, ns) in self.copies.items()
            },
            "memory": {
                name: {
                    "high_water": s.peak,
                    "allocations": s.allocations,
                    "deallocations": s.deallocations,
                    "live": s.current,
                }
                for name, s in self.spaces.items()
            },
            "unmatched_pops": self.unmatched_pops,
            "replaced": list(self.replaced),
        }

    def report(self, title: str = "kokkos.tools.timer") -> str:
        wall = self.elapsed
        lines = [f"{title}: {wall:.6f} s", ""]
        if self.regions:
            lines.append(f"{'Regions':<40} {'calls':>8} {'total (s)':>12} {'mean (us)':>12} {'% time':>7}")
            for name, s in sorted(self.regions.items(), key=lambda kv: -kv[1].total):
                share = 100.0 * s.total / 1e9 / wall if wall > 0 else 0.0
                lines.append(
                    f"  {_fit(name, 38):<38} {s.calls:>8} {s.total / 1e9:>12.6f} "
                    f"{s.total / 1e3 / s.calls:>12.3f} {share:>7.1f}"
                )
            lines.append("")
        if self.kernels:
            lines.append(f"{'Kernels':<40} {'kind':>7} {'calls':>8} {'total (s)':>12} {'mean (us)':>12}")
            for (name, kind), s in sorted(self.kernels.items(), key=lambda kv: -kv[1].total):
                lines.append(
                    f"  {_fit(name, 38):<38} {kind:>7} {s.calls:>8} {s.total / 1e9:>12.6f} "
                    f"{s.total / 1e3 / s.calls:>12.3f}"
                )
            lines.append("")
        if self.copies:
            lines.append(f"{'Deep copies (dst <- src)':<40} {'calls':>8} {'bytes':>14} {'total (s)':>12}")
            for (dst, src), (c, b, ns) in sorted(self.copies.items()):
                lines.append(f"  {dst + ' <- ' + src:<38} {c:>8} {b:>14} {ns / 1e9:>12.6f}")
            lines.append("")
        if self.spaces:
            lines.append(f"{'Memory spaces':<40} {'high-water':>14} {'allocations':>12} {'live at end':>14}")
            for name, s in sorted(self.spaces.items()):
                lines.append(f"  {name:<38} {_bytes(s.peak):>14} {s.allocations:>12} {_bytes(s.current):>14}")
            lines.append("")
        if self.unmatched_pops:
            lines.append(f"warning: {self.unmatched_pops} pop_region without a matching push_region")
        if self.replaced:
            lines.append(
                "warning: another tool replaced the timer's callbacks for "
                + ", ".join(self.replaced)
                + " (Kokkos keeps one callback per event; a tool library loaded at "
                "initialize replaces earlier ones)"
            )
        return "\n".join(lines).rstrip() + "\n"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kokkos.tools.timer",
        description="Run a Python script and report Kokkos regions, kernels, deep copies and "
        "memory high-water marks, measured through Kokkos Tools callbacks.",
    )
    parser.add_argument("-o", "--output", help="write the report to this file (default: stderr)")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    ns = parser.parse_args(argv)
    if not os.path.isfile(ns.script):
        parser.error(f"no such script: {ns.script}")

    sys.argv = [ns.script, *ns.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(ns.script)))
    timer = Timer()
    status = 0
    timer.start()
    try:
        runpy.run_path(ns.script, run_name="__main__")
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        gc.collect()  # the script's Views, so "live at end" means what it says
        timer.stop()
    text = timer.report(f"kokkos.tools.timer: {ns.script}")
    if ns.output:
        with open(ns.output, "w") as f:
            f.write(text)
    else:
        sys.stderr.write(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
