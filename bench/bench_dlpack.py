"""Benchmarks of the zero-copy exchange (DLPack, asarray), measured in one run.

Each row: our time, the reference's time (the same exchange between NumPy /
PyTorch objects), their ratio, and the goal. The last rows measure what the
DLPack 1.3 C exchange table saves on import (kokkos.from_dlpack(tensor) goes
through PyTorch's table; the reference hands the same tensor over as a capsule
from tensor.__dlpack__). PyTorch rows are left out when torch is missing.
Run: python bench/bench_dlpack.py
"""

import os
import timeit

import numpy as np

import kokkos

try:
    import torch
except ImportError:  # pragma: no cover - optional
    torch = None


def best(stmt, number, glb, repeat=7):
    return min(timeit.Timer(stmt, globals=glb).repeat(repeat=repeat, number=number)) / number


def row(name, ours, ref, goal):
    ratio = ours / ref
    print(f"{name:<58} {ours * 1e9:>9.1f} ns {ref * 1e9:>9.1f} ns {ratio:>6.2f}x   goal {goal}")
    return ratio


def main():
    kokkos.initialize()
    print(
        f"kokkos {kokkos.__version__}, Kokkos {'.'.join(map(str, kokkos.kokkos_version()))} "
        f"{kokkos.enabled_backends()}, numpy {np.__version__}"
        + (f", torch {torch.__version__}" if torch else ", no torch")
        + f", {os.cpu_count()} cores"
    )
    print(f"{'case':<58} {'ours':>12} {'reference':>12} {'ratio':>7}")
    n = 200000
    v = kokkos.View((1000,))
    a = np.zeros(1000)
    g = dict(np=np, kokkos=kokkos, v=v, a=a, torch=torch)

    row(
        "np.from_dlpack(view) vs np.from_dlpack(ndarray)",
        best("np.from_dlpack(v)", n, g),
        best("np.from_dlpack(a)", n, g),
        "<= 1.5x",
    )
    row(
        "kokkos.from_dlpack(ndarray) vs np.from_dlpack(ndarray)",
        best("kokkos.from_dlpack(a)", n, g),
        best("np.from_dlpack(a)", n, g),
        "<= 2x",
    )
    row(
        "kokkos.asarray(ndarray) vs np.asarray(ndarray)",
        best("kokkos.asarray(a)", n, g),
        best("np.asarray(a)", n, g),
        "(info)",
    )
    row(
        "view.__dlpack__(max_version=(1, 0)) vs ndarray's",
        best("v.__dlpack__(max_version=(1, 0))", n, g),
        best("a.__dlpack__(max_version=(1, 0))", n, g),
        "(info)",
    )
    if torch is not None:
        t = torch.zeros(1000, dtype=torch.float64)
        g.update(t=t)
        row(
            "torch.from_dlpack(view) vs torch.from_dlpack(ndarray)",
            best("torch.from_dlpack(v)", n // 4, g),
            best("torch.from_dlpack(a)", n // 4, g),
            "<= 1.5x",
        )
        row(
            "kokkos.from_dlpack(tensor) vs torch.from_dlpack(tensor)",
            best("kokkos.from_dlpack(t)", n, g),
            best("torch.from_dlpack(t)", n // 4, g),
            "(info)",
        )
        ours = best("kokkos.from_dlpack(t)", n, g)
        ref = best("kokkos.from_dlpack(t.__dlpack__(max_version=(1, 3)))", n // 4, g)
        ratio = row("C exchange table: from_dlpack(tensor) vs via __dlpack__", ours, ref, "(gain)")
        print(f"{'  -> the exchange table makes import':<58} {1 / ratio:>9.1f}x faster")
    ours = best("kokkos.from_dlpack(v)", n, g)
    ref = best("kokkos.from_dlpack(v.__dlpack__(max_version=(1, 3)))", n, g)
    ratio = row("C exchange table: from_dlpack(view) vs via __dlpack__", ours, ref, "(gain)")
    print(f"{'  -> the exchange table makes import':<58} {1 / ratio:>9.1f}x faster")


if __name__ == "__main__":
    main()
