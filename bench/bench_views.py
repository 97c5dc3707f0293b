"""Benchmarks of the View foundation against NumPy, measured in one run.

Prints one row per case: our time, NumPy's time and the ratio (ours / NumPy's
for times; for bandwidths, ours / NumPy's so that higher is better), next to
the goal. Run: .venv/bin/python bench/bench_views.py
(`import kokkos` itself: bench/bench_import.py.)
"""

import os
import timeit

import numpy as np

import kokkos


def best(stmt, number, repeat=7, setup="pass", glb=None):
    t = timeit.Timer(stmt, setup=setup, globals=glb).repeat(repeat=repeat, number=number)
    return min(t) / number


def row(name, ours, ref, goal, unit="ns", scale=1e9, higher_is_better=False):
    ratio = (ours / ref) if higher_is_better else (ours / ref)
    print(f"{name:<52} {ours * scale:>10.1f} {unit:<5} {ref * scale:>10.1f} {unit:<5} {ratio:>6.2f}x   goal {goal}")
    return ratio


def main():
    kokkos.initialize()
    print(
        f"kokkos {kokkos.__version__}, Kokkos {'.'.join(map(str, kokkos.kokkos_version()))} "
        f"{kokkos.enabled_backends()}, numpy {np.__version__}, {os.cpu_count()} cores"
    )
    print(f"{'case':<52} {'ours':>16} {'numpy':>16} {'ratio':>7}")

    v1 = kokkos.array([1000])
    a1 = np.zeros(1000)
    v2 = kokkos.array([100, 100])
    a2 = np.zeros((100, 100))
    g = dict(v1=v1, a1=a1, v2=v2, a2=a2)
    row("element read v[i] (1-D)", best("v1[517]", 200000, glb=g), best("a1[517]", 200000, glb=g), "<= 1.5x")
    row(
        "element write v[i] = x (1-D)",
        best("v1[517] = 2.5", 200000, glb=g),
        best("a1[517] = 2.5", 200000, glb=g),
        "<= 1.5x",
    )
    row("element read v[i, j] (2-D)", best("v2[51, 7]", 200000, glb=g), best("a2[51, 7]", 200000, glb=g), "<= 1.5x")
    row(
        "element write v[i, j] = x (2-D)",
        best("v2[51, 7] = 2.5", 200000, glb=g),
        best("a2[51, 7] = 2.5", 200000, glb=g),
        "<= 1.5x",
    )

    g.update(np=np)
    row(
        "np.asarray(view) vs np.asarray(memoryview(ndarray))",
        best("np.asarray(v2)", 100000, glb=g),
        best("np.asarray(memoryview(a2))", 100000, glb=g),
        "<= 1.2x",
    )

    g.update(kokkos=kokkos, View=kokkos.View)
    row(
        "zeroed 1000-element View vs np.zeros(1000)",
        best("View((1000,))", 100000, glb=g),
        best("np.zeros(1000)", 100000, glb=g),
        "<= 3x",
    )

    n = 80 * 1024 * 1024 // 8
    src = kokkos.array([n])
    dst = kokkos.array([n])
    kokkos.deep_copy(src, 1.0)
    asrc = np.ones(n)
    adst = np.empty(n)
    g.update(src=src, dst=dst, asrc=asrc, adst=adst)
    t_ours = best("kokkos.deep_copy(dst, src)", 5, glb=g)
    t_np = best("np.copyto(adst, asrc)", 5, glb=g)
    gbs = lambda t: 2 * n * 8 / t / 1e9  # read + write
    print(
        f"{'contiguous host deep_copy, 80 MB (GB/s)':<52} {gbs(t_ours):>10.2f} GB/s  {gbs(t_np):>10.2f} GB/s  "
        f"{t_np / t_ours:>6.2f}x   goal >= 0.9x (bandwidth)"
    )

    m = 4000
    r = kokkos.array([m, m])
    l = kokkos.array([m, m], layout=kokkos.LayoutLeft)
    kokkos.deep_copy(r, np.arange(m * m, dtype=np.float64).reshape(m, m))
    ar = np.asarray(r).copy()
    al = np.empty((m, m), order="F")
    g.update(r=r, l=l, ar=ar, al=al)
    t_ours = best("kokkos.deep_copy(l, r)", 3, repeat=5, glb=g)
    t_np = best("al[...] = ar", 3, repeat=5, glb=g)
    print(
        f"{'LayoutRight->LayoutLeft 4000x4000 float64 (GB/s)':<52} {gbs(t_ours) * m * m / n:>10.2f} GB/s  "
        f"{gbs(t_np) * m * m / n:>10.2f} GB/s  {t_np / t_ours:>6.2f}x   goal >= 0.8x (bandwidth)"
    )
    np.testing.assert_array_equal(np.asarray(l), ar)


if __name__ == "__main__":
    main()
