"""Timing shared by the benchmarks: each call timed next to its reference,
round after round, so that load from other processes and drifts in clock
speed hit both alike. Timings are short (about 2 ms: less than a time slice
of the scheduler, so that on a loaded machine some run uninterrupted) and
many, and the best of them counts."""

import timeit


def per_call(stmt, glb, number, repeat=5):
    """Seconds per call: the best of repeat timings of `number` calls."""
    return min(timeit.Timer(stmt, globals=glb).repeat(repeat=repeat, number=number)) / number


def calibrate(stmt, glb, target=0.002):
    """Calls per timing so that one timing takes about target seconds."""
    t = timeit.Timer(stmt, globals=glb)
    n = 1
    while True:
        elapsed = t.timeit(n)
        if elapsed >= target / 10 or n >= 1 << 20:
            return max(1, int(n * target / max(elapsed, 1e-9)))
        n *= 4


def compare(ours, ref, glb, rounds=7, number=None):
    """(ours / ref, ours, ref): each the best, in seconds per call, of its
    timings over rounds, each round timing both back to back. Load from
    other processes only ever adds time, so the best of many timings is the
    closest to the call's own cost (timeit's advice). number: calls per
    timing (default: calibrated per statement)."""
    n_ours = number or calibrate(ours, glb)
    n_ref = number or calibrate(ref, glb)
    best_ours = best_ref = float("inf")
    for _ in range(rounds):
        best_ours = min(best_ours, per_call(ours, glb, n_ours))
        best_ref = min(best_ref, per_call(ref, glb, n_ref))
    return best_ours / best_ref, best_ours, best_ref
