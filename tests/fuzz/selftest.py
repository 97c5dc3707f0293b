"""Fuzz family selftest (not part of a campaign): inputs that crash, abort,
hang or give a wrong value at the indices KOKKOS_FUZZ_SELFTEST names
("crash:7,abort:9,hang:13,wrong:3"), so tests/test_fuzz.py can prove that
scripts/fuzz.py finds, isolates and saves each kind."""

import ctypes
import os
import time

NAME = "selftest"


def generate(rng):
    plan = dict(
        (int(i), what) for what, i in (p.split(":") for p in os.environ.get("KOKKOS_FUZZ_SELFTEST", "").split(",") if p)
    )
    return {"index": rng.fuzz_index, "action": plan.get(rng.fuzz_index, "ok")}


def run(case):
    action = case["action"]
    if action == "crash":
        ctypes.string_at(0)  # reads address 0: SIGSEGV
    elif action == "abort":
        os.abort()
    elif action == "hang":
        while True:
            time.sleep(1)
    elif action == "wrong":
        return "wrong", "selftest: a wrong value on purpose"
    return "ok", action


def describe(case):
    return repr(case)
