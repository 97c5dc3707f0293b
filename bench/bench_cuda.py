"""CUDA benchmarks against CuPy on the same buffers, measured in one run.

Needs a Kokkos with CUDA and CuPy (and PyTorch for the DLPack row). Prints
bandwidths and ratios (ours / CuPy's; higher is better for bandwidths, lower
for overheads). Run: python bench/bench_cuda.py [GROUP ...] (GROUPS below; all by default).
"""

import sys

import numpy as np
from timing import compare

import kokkos

if not kokkos.get_memory_space_available("CudaSpace"):
    print("bench_cuda: the installed Kokkos has no CUDA space; nothing to measure")
    sys.exit(0)

import cupy as cp  # noqa: E402


def gpu_compare(ours, ref, repeat=20, warmup=3):
    """Median seconds of ours and of ref, each timed with CUDA events, the
    two alternating call by call so that clock changes and other load hit
    both alike."""
    fns = (ours, ref)
    for _ in range(warmup):
        for fn in fns:
            fn()
    cp.cuda.Device().synchronize()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, t in zip(fns, times, strict=True):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fn()
            end.record()
            end.synchronize()
            t.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return [float(np.median(t)) for t in times]


def overhead(name, ours, ref, goal):
    print(f"{name:<58} {ours * 1e9:>9.0f} ns   {ref * 1e9:>9.0f} ns   {ours / ref:>6.2f}x  goal {goal}")


def show(name, ours_gbs, ref_gbs, goal):
    print(f"{name:<58} {ours_gbs:>9.1f} GB/s {ref_gbs:>9.1f} GB/s {ours_gbs / ref_gbs:>6.2f}x  goal {goal}")


def small_view_rows(g):
    """A new small CudaSpace View against cupy.zeros, and what its parts cost.

    The View's zero fill stays queued on Kokkos' stream (every consumer is
    ordered after it), so its row is compared with cupy.zeros + synchronize,
    the issue's reference, and with cupy.zeros alone (its fill queued too)."""
    rt = cp.cuda.runtime
    stream = cp.cuda.Stream(non_blocking=True)
    g = g | {"sync": cp.cuda.Device().synchronize, "rt": rt, "stream": stream.ptr}
    _, t_ours, t_ref = compare("kokkos.View((1000,), space=kokkos.CudaSpace)", "cp.zeros(1000); sync()", g)
    overhead("kokkos.View((1000,), space=CudaSpace) vs cupy.zeros + sync", t_ours, t_ref, "<= 1.5x")
    _, t_ours, t_ref = compare("kokkos.View((1000,), space=kokkos.CudaSpace)", "cp.zeros(1000)", g)
    overhead("kokkos.View((1000,), space=CudaSpace) vs cupy.zeros (no sync)", t_ours, t_ref, "(reported)")
    parts = [
        (
            "  part: View, initialize=False (Kokkos allocate + free)",
            "kokkos.View((1000,), space=kokkos.CudaSpace, initialize=False)",
        ),
        ("  part: cudaMalloc + cudaFree, 8000 bytes", "rt.free(rt.malloc(8000))"),
        (
            "  part: cudaMallocAsync + cudaFreeAsync (stream-ordered pool)",
            "rt.freeAsync(rt.mallocAsync(8000, stream), stream)",
        ),
        ("  part: kokkos.fence() with nothing queued", "kokkos.fence()"),
        ("  part: cupy.zeros(1000) + sync (CuPy's pool)", "cp.zeros(1000); sync()"),
    ]
    for name, stmt in parts:
        _, t, _ = compare(stmt, "pass", g)
        print(f"{name:<58} {t * 1e9:>9.0f} ns")
    stream.synchronize()


def host_memory_rows():
    """NumPy memory in a CudaSpace View on a GPU without pageable memory
    access: what registering its pages costs against the runtime's own
    cudaHostRegister + cudaHostUnregister of the same bytes, and what a
    kernel reads from it against device memory and against copying the
    array to the device first (what a user without registration would do)."""
    import time

    rt = cp.cuda.runtime
    if rt.deviceGetAttribute(88, cp.cuda.Device().id):  # cudaDevAttrPageableMemoryAccess
        print("host-memory rows: this GPU reads pageable memory (HMM / ATS): nothing is registered, not measured")
        return
    mapped = 2  # cudaHostRegisterMapped
    for size in (4096, 1 << 20, 64 << 20):
        host = np.ones(size // 8)
        g = dict(kokkos=kokkos, host=host, rt=rt, ptr=host.ctypes.data, n=host.nbytes, flags=mapped | 1)
        _, t_ours, t_ref = compare(
            "kokkos.unmanaged_array(host, space=kokkos.CudaSpace)",
            "rt.hostRegister(ptr, n, flags); rt.hostUnregister(ptr)",
            g,
            rounds=5,
        )
        label = f"wrap + register + drop, {size // 1024} KiB NumPy array"
        print(
            f"{label:<58} {t_ours * 1e6:>9.1f} us   {t_ref * 1e6:>9.1f} us   {t_ours / t_ref:>6.2f}x"
            f"  ({t_ours * 1e6 / (size / 2**20):.0f} us/MiB; reference: cudaHostRegister + Unregister)"
        )
    n = 256 * 1024 * 1024 // 8
    host = np.ones(n)
    v = kokkos.unmanaged_array(host, space=kokkos.CudaSpace)
    d = kokkos.array([n], space=kokkos.CudaSpace)
    kokkos.deep_copy(d, 1.0)
    ch, cd = cp.asarray(v), cp.asarray(d)
    t_host, t_dev = gpu_compare(lambda: ch.sum(), lambda: cd.sum(), 5)
    show(
        "a kernel (cupy sum) reading registered host memory, 256 MB",
        n * 8 / t_host / 1e9,
        n * 8 / t_dev / 1e9,
        "(reported: vs device memory)",
    )
    del v

    def once(copy):
        t0 = time.perf_counter()
        w = kokkos.array(host, space=kokkos.CudaSpace) if copy else kokkos.unmanaged_array(host, space=kokkos.CudaSpace)
        float(cp.asarray(w).sum())
        return time.perf_counter() - t0

    t_reg = float(np.median([once(False) for _ in range(5)]))
    t_copy = float(np.median([once(True) for _ in range(5)]))
    print(
        f"{'one kernel pass over a 256 MB NumPy array: registered':<58} {t_reg * 1e3:>9.1f} ms   "
        f"{t_copy * 1e3:>9.1f} ms   {t_reg / t_copy:>6.2f}x  (reference: kokkos.array(host, space=CudaSpace) copy)"
    )


def bandwidth_rows():
    """Copies within the device and between pinned host memory and the
    device, against the same copies through CuPy and the runtime."""
    n = 256 * 1024 * 1024 // 8  # 256 MB of doubles
    a = kokkos.array([n], space=kokkos.CudaSpace)
    b = kokkos.array([n], space=kokkos.CudaSpace)
    ca, cb = cp.asarray(a), cp.asarray(b)  # the same buffers, through __cuda_array_interface__
    t_ours, t_ref = gpu_compare(lambda: kokkos.deep_copy(b, a), lambda: cp.copyto(cb, ca))
    show("device-to-device contiguous copy, 256 MB", 2 * n * 8 / t_ours / 1e9, 2 * n * 8 / t_ref / 1e9, ">= 0.9x")

    h = kokkos.array([n], space=kokkos.CudaHostPinnedSpace)
    nbytes = n * 8
    H2D, D2H = 1, 2
    rt = cp.cuda.runtime
    t_ours, t_ref = gpu_compare(lambda: kokkos.deep_copy(a, h), lambda: rt.memcpy(a.data, h.data, nbytes, H2D), 10)
    show("host (pinned) -> device, 256 MB", nbytes / t_ours / 1e9, nbytes / t_ref / 1e9, ">= 0.9x")
    t_ours, t_ref = gpu_compare(lambda: kokkos.deep_copy(h, a), lambda: rt.memcpy(h.data, a.data, nbytes, D2H), 10)
    show("device -> host (pinned), 256 MB", nbytes / t_ours / 1e9, nbytes / t_ref / 1e9, ">= 0.9x")


def transpose_rows():
    """deep_copy of a LayoutRight View into a LayoutLeft one on the device,
    against cupy.asfortranarray of the same array (what a CuPy user writes),
    and, reported, against CuPy copying into an existing Fortran-ordered
    array (no allocation, as deep_copy)."""
    m = 8192
    r = kokkos.array([m, m], space=kokkos.CudaSpace)
    l = kokkos.array([m, m], space=kokkos.CudaSpace, layout=kokkos.LayoutLeft)
    cr = cp.asarray(r)
    cr[...] = cp.arange(m * m, dtype=cp.float64).reshape(m, m)
    cl = cp.empty((m, m), order="F")
    t_ours, t_ref = gpu_compare(lambda: kokkos.deep_copy(l, r), lambda: cp.asfortranarray(cr), 10)
    name = "LayoutRight -> LayoutLeft 8192x8192 float64 (device)"
    show(name, 2 * m * m * 8 / t_ours / 1e9, 2 * m * m * 8 / t_ref / 1e9, ">= 0.95x")
    assert bool((cp.asarray(l) == cr).all())
    t_ours, t_ref = gpu_compare(lambda: kokkos.deep_copy(l, r), lambda: cp.copyto(cl, cr), 10)
    name = "the same, against cupy.copyto into a Fortran-ordered array"
    show(name, 2 * m * m * 8 / t_ours / 1e9, 2 * m * m * 8 / t_ref / 1e9, "(reported)")


def exchange_rows():
    """The cost of handing a small View to CuPy and a CuPy array to kokkos,
    against CuPy's own hand-over of the same memory."""
    small = kokkos.array([1000], space=kokkos.CudaSpace)
    csmall = cp.zeros(1000)
    # cupy.asarray of a CuPy array returns it; the fair reference is wrapping
    # a CuPy array's memory through its __cuda_array_interface__ as well
    obj = type("CAI", (), {"__cuda_array_interface__": csmall.__cuda_array_interface__})()
    g = dict(cp=cp, kokkos=kokkos, small=small, csmall=csmall, obj=obj)
    _, t_ours, t_cai = compare("cp.asarray(small)", "cp.asarray(obj)", g)
    overhead(
        "cupy.asarray(view) vs cupy.asarray(CAI holder)",
        t_ours,
        t_cai,
        "<= 1.2x (the holder carries a CuPy array's CAI dict, made once)",
    )
    _, t_ours, t_ref = compare("kokkos.asarray(csmall)", "cp.asarray(obj)", g)
    overhead("kokkos.asarray(cupy array) vs cupy.asarray(CAI holder)", t_ours, t_ref, "<= 1.2x")
    small_view_rows(g)


def torch_rows():
    """DLPack and CAI hand-overs between kokkos, CuPy and PyTorch."""
    try:
        import torch
    except ImportError:
        print("torch rows: PyTorch absent, not measured")
        return
    small = kokkos.array([1000], space=kokkos.CudaSpace)
    csmall = cp.zeros(1000)
    tsmall = torch.zeros(1000, device="cuda", dtype=torch.float64)
    g = dict(cp=cp, kokkos=kokkos, torch=torch, small=small, csmall=csmall, tsmall=tsmall)
    _, t_ours, t_ref = compare("torch.from_dlpack(small)", "torch.from_dlpack(csmall)", g)
    overhead("torch.from_dlpack(view) vs torch.from_dlpack(cupy array)", t_ours, t_ref, "<= 1.0x")
    _, t_ours, t_ref = compare("kokkos.from_dlpack(tsmall)", "cp.from_dlpack(tsmall)", g)
    overhead("kokkos.from_dlpack(tensor) vs cupy.from_dlpack(tensor)", t_ours, t_ref, "<= 1.0x")
    _, t_ours, t_ref = compare("kokkos.asarray(csmall)", "torch.as_tensor(csmall)", g)
    overhead(
        "kokkos.asarray(cupy array) vs torch.as_tensor(cupy array)", t_ours, t_ref, "<= 1.0x (both read CuPy's CAI)"
    )


# The groups of rows, in the order they run; `python bench/bench_cuda.py
# transpose` runs the named groups only (e.g. a row read again).
GROUPS = {
    "bandwidth": bandwidth_rows,
    "transpose": transpose_rows,
    "exchange": exchange_rows,
    "host_memory": host_memory_rows,
    "torch": torch_rows,
}


def main(names):
    unknown = [n for n in names if n not in GROUPS]
    if unknown:
        sys.exit(f"bench_cuda: no group named {', '.join(unknown)}; the groups: {', '.join(GROUPS)}")
    kokkos.initialize()
    props = cp.cuda.runtime.getDeviceProperties(0)
    print(f"GPU: {props['name'].decode()}, Kokkos {'.'.join(map(str, kokkos.kokkos_version()))}, CuPy {cp.__version__}")
    print(f"{'case':<58} {'ours':>14} {'CuPy':>14} {'ratio':>7}")
    for name, rows in GROUPS.items():
        if not names or name in names:
            rows()


if __name__ == "__main__":
    main(sys.argv[1:])
