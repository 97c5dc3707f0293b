"""pykokkos' pk.rand, as a pykokkos user writes it: N draws from a
Random_XorShift64_Pool made with SEED, one kernel on pykokkos' default
space (OpenMP), printed as one JSON line (how many values came out twice,
whether all lie in [0, 1), a digest of the sorted values, the libgomp files
the process maps). Run by tests/test_internal_kokkos.py in the wheel's
environment, where pykokkos is installed; no part of this repository is
imported.

    pykokkos_rand.py N SEED
"""

import hashlib
import json
import sys

import numpy as np
import pykokkos as pk


@pk.functor
class Draws:
    def __init__(self, out: pk.View1D[pk.double], seed: int):
        self.out: pk.View1D[pk.double] = out
        self.pool: pk.Random_XorShift64_Pool = pk.Random_XorShift64_Pool(seed, 4096)

    @pk.workunit
    def draw(self, i: int):
        self.out[i] = pk.rand(pk.double)


def main():
    n, seed = int(sys.argv[1]), int(sys.argv[2])
    out = pk.View([n], pk.double)
    pk.parallel_for(n, Draws(out, seed).draw)
    values = np.asarray(out)
    with open("/proc/self/maps") as maps:
        gomp = sorted({line.split()[-1] for line in maps if "libgomp" in line})
    result = {
        "n": n,
        "repeats": int(n - np.unique(values).size),
        "in_range": bool(((values >= 0) & (values < 1)).all()),
        "digest": hashlib.sha256(np.sort(values).tobytes()).hexdigest(),
        "gomp": gomp,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
