"""Point-to-point MPI bandwidth of a 64 MB View beside a 64 MB NumPy array.

Two ranks ping-pong the same number of bytes, first from a NumPy array, then
from a Kokkos View (both in host memory), alternating; the View's bandwidth
over NumPy's is the ratio (higher is better, goal >= 0.95x). Also times the
same message through mpi4py's pickle-based calls (in band, and out of band
with mpi4py.util.pkl5), where a View is pickled with protocol 5.

Run: .venv/bin/python bench/bench_mpi.py [megabytes]   (starts mpirun -n 2
itself), or mpirun -n 2 python bench/bench_mpi.py. Prints why and exits 0
when mpirun or mpi4py is missing.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import time
import timeit

import numpy as np

import kokkos


def under_mpirun():
    return any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))


def launch():
    mpirun = shutil.which("mpirun")
    if mpirun is None or importlib.util.find_spec("mpi4py") is None:
        print("bench_mpi: skipped: needs mpirun (openmpi-bin) and mpi4py")
        return 0
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [mpirun, "-n", "2", "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return subprocess.call(cmd + [sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env=env)


def pingpong(comm, buf, reps):
    """Seconds for reps round trips of buf between ranks 0 and 1."""
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(reps):
        if comm.rank == 0:
            comm.Send(buf, dest=1, tag=7)
            comm.Recv(buf, source=1, tag=7)
        else:
            comm.Recv(buf, source=0, tag=7)
            comm.Send(buf, dest=0, tag=7)
    return time.perf_counter() - t0


def pingpong_objects(comm, obj, reps):
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(reps):
        if comm.rank == 0:
            comm.send(obj, dest=1, tag=8)
            obj = comm.recv(source=1, tag=8)
        else:
            obj = comm.recv(source=0, tag=8)
            comm.send(obj, dest=0, tag=8)
    return time.perf_counter() - t0


def measure(comm, fn, ours, theirs, reps, trials):
    """Best seconds per round trip for ours and theirs over trials,
    alternating (the best is the least disturbed by other work)."""
    t_ours, t_theirs = [], []
    fn(comm, ours, 1)
    fn(comm, theirs, 1)
    for _ in range(trials):
        t_theirs.append(fn(comm, theirs, reps) / reps)
        t_ours.append(fn(comm, ours, reps) / reps)
    return min(t_ours), min(t_theirs)


def numpy_hugepages(on):
    """Turns NumPy's transparent-huge-page advice for new arrays on or off;
    returns the previous setting (None where NumPy lacks the switch)."""
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    try:
        return core.multiarray._set_madvise_hugepage(on)
    except AttributeError:
        return None


def advise_huge_pages(view):
    """madvise(MADV_HUGEPAGE) on the page-aligned interior of a host View's
    memory, as NumPy does for its large arrays (Linux); False if unavailable."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    except (OSError, AttributeError):
        return False
    page, madv_hugepage = os.sysconf("SC_PAGE_SIZE"), 14
    start = (view.data + page - 1) // page * page
    end = (view.data + view.nbytes) // page * page
    return end > start and libc.madvise(start, end - start, madv_hugepage) == 0


def main():
    from mpi4py import MPI
    from mpi4py.util import pkl5

    comm = MPI.COMM_WORLD
    if comm.size != 2:
        if comm.rank == 0:
            print("bench_mpi: run with exactly 2 ranks")
        return 1
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    n = mb * 1024 * 1024 // 8
    nbytes = n * 8
    view = kokkos.View((n,), kokkos.float64, label="bench_mpi")
    array = np.zeros(n)
    kokkos.deep_copy(view, 1.0)
    array[:] = 1.0
    view_huge = kokkos.View((n,), kokkos.float64, label="bench_mpi_huge", initialize=False)
    advised = advise_huge_pages(view_huge)  # before the first touch
    kokkos.deep_copy(view_huge, 1.0)

    # NumPy asks Linux for transparent huge pages for large arrays, Kokkos'
    # allocations do not: the same comparison against a NumPy array in
    # 4 KiB pages shows what the page size alone accounts for.
    previous = numpy_hugepages(False)
    array_small_pages = np.ones(n)
    if previous is not None:
        numpy_hugepages(previous)

    t_v, t_a = measure(comm, pingpong, view, array, reps=10, trials=7)
    t_v4, t_a4 = measure(comm, pingpong, view, array_small_pages, reps=10, trials=7)
    t_vh, t_ah = measure(comm, pingpong, view_huge, array, reps=10, trials=7)
    small_v = kokkos.View((1,), kokkos.float64)
    small_a = np.zeros(1)
    s_v, s_a = measure(comm, pingpong, small_v, small_a, reps=1000, trials=15)
    # The cost mpi4py adds per call, without a second process: Sendrecv to self.
    selfcomm = MPI.COMM_SELF
    small_v2, small_a2 = kokkos.View((1,), kokkos.float64), np.zeros(1)
    o_v = min(
        timeit.repeat(
            lambda: selfcomm.Sendrecv(small_v, 0, recvbuf=small_v2, source=0),
            number=20000,
            repeat=5,
        )
    )
    o_a = min(
        timeit.repeat(
            lambda: selfcomm.Sendrecv(small_a, 0, recvbuf=small_a2, source=0),
            number=20000,
            repeat=5,
        )
    )
    t_pv, t_pa = measure(comm, pingpong_objects, view, array, reps=3, trials=5)
    pcomm = pkl5.Intracomm(comm)
    t_kv, t_ka = measure(pcomm, pingpong_objects, view, array, reps=3, trials=5)

    if comm.rank == 0:
        print(
            f"kokkos {kokkos.__version__}, Kokkos {'.'.join(map(str, kokkos.kokkos_version()))}, "
            f"numpy {np.__version__}, {MPI.Get_library_version().splitlines()[0].strip()}, 2 ranks, "
            f"{os.cpu_count()} cores"
        )
        print(f"{'case':<44} {'View':>12} {'NumPy':>12} {'ratio':>7}   goal")
        gbs = lambda t: 2 * nbytes / t / 1e9  # bytes both ways per round trip
        print(
            f"{f'Send/Recv ping-pong, {mb} MB (GB/s)':<44} {gbs(t_v):>9.2f}    {gbs(t_a):>9.2f}    "
            f"{gbs(t_v) / gbs(t_a):>6.2f}x   >= 0.95x (higher is better)"
        )
        if advised:
            print(
                f"{'  same, View advised to huge pages, as NumPy':<44} {gbs(t_vh):>9.2f}    {gbs(t_ah):>9.2f}    "
                f"{gbs(t_vh) / gbs(t_ah):>6.2f}x   (page size alone)"
            )
        if previous is not None:
            print(
                f"{'  same, NumPy array in 4 KiB pages (GB/s)':<44} {gbs(t_v4):>9.2f}    {gbs(t_a4):>9.2f}    "
                f"{gbs(t_v4) / gbs(t_a4):>6.2f}x   (page size alone)"
            )
        print(
            f"{'Send/Recv ping-pong, 8 bytes (us/round trip)':<44} {s_v * 1e6:>9.2f} us {s_a * 1e6:>9.2f} us "
            f"{s_v / s_a:>6.2f}x   (lower is better)"
        )
        print(
            f"{'Sendrecv to self, 8 bytes (us/call)':<44} {o_v / 20000 * 1e6:>9.2f} us {o_a / 20000 * 1e6:>9.2f} us "
            f"{o_v / o_a:>6.2f}x   (lower is better)"
        )
        print(
            f"{f'send/recv (pickle, in band), {mb} MB (ms)':<44} {t_pv * 1e3:>9.1f} ms {t_pa * 1e3:>9.1f} ms "
            f"{t_pv / t_pa:>6.2f}x   (lower is better)"
        )
        print(
            f"{f'pkl5 send/recv (out of band), {mb} MB (ms)':<44} {t_kv * 1e3:>9.1f} ms {t_ka * 1e3:>9.1f} ms "
            f"{t_kv / t_ka:>6.2f}x   (lower is better)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main() if under_mpirun() else launch())
