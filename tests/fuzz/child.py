"""Runs a batch of one family's inputs in this process and reports on stdout,
one line per event, for scripts/fuzz.py:

    @B <index>                          about to run input <index>
    @R <index> <kind> <json detail>     its outcome, when not ok/refused
    @T <kind counts json> <seconds>     the batch is done

Usage: python -m fuzz.child FAMILY SEED START COUNT   (tests/ on sys.path)

Input <index> of (FAMILY, SEED) is generated from random.Random(
"FAMILY/SEED/<index>"), so any input is replayed alone by START=<index>
COUNT=1. A harness failure (the generator or checker raising) is reported
as kind "harness" with its traceback.
"""

import gc
import json
import os
import random
import sys
import time
import traceback
import warnings


def rng_for(name, seed, index):
    rng = random.Random(f"{name}/{seed}/{index}")
    rng.fuzz_index = index  # for the selftest family only
    return rng


def main(argv):
    name, seed, start, count = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    quiet = os.environ.get("KOKKOS_FUZZ_QUIET_OK", "1") == "1"
    warnings.simplefilter("ignore")
    import fuzz

    fam = fuzz.family(name)
    out = sys.stdout
    counts = {}
    t0 = time.perf_counter()
    for index in range(start, start + count):
        out.write(f"@B {index}\n")
        out.flush()
        try:
            case = fam.generate(rng_for(name, seed, index))
            desc = fam.describe(case)
        except Exception:  # noqa: BLE001
            kind, detail, desc = "harness", traceback.format_exc(), "(generator failed)"
        else:
            try:
                kind, detail = fam.run(case)
            except Exception:  # noqa: BLE001
                kind, detail = "harness", traceback.format_exc()
        counts[kind] = counts.get(kind, 0) + 1
        if not (quiet and kind in ("ok", "refused")):
            out.write(f"@R {index} {kind} {json.dumps({'detail': detail, 'input': desc})}\n")
        if index % 50 == 49:
            gc.collect()
    gc.collect()
    out.write(f"@T {json.dumps(counts)} {time.perf_counter() - t0:.3f}\n")
    out.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
