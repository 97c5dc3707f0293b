"""The 2-D heat equation split by rows across MPI ranks, one GPU per rank.

    mpirun -n 4 python examples/heat_multigpu.py [--n N] [--steps S] [--exchange auto|nccl|torch|mpi]
                                                 [--space auto|host|device]
    python examples/heat_multigpu.py            # one rank, no mpirun needed

Solves u_t = u_xx + u_yy on the unit square with u = 0 on the boundary and
u(x, y, 0) = sin(pi x) sin(pi y) by the explicit (FTCS) five-point scheme,
r = dt / h^2 = 0.2. The N x N interior rows are split into blocks, one per
rank; each rank's field is a Kokkos View (N_rank + 2) x (N + 2) holding its
rows, one halo row above and below, and the boundary columns. The View lives
in CudaSpace when Kokkos has CUDA (and CuPy is installed: CuPy computes on
the View's memory, on Kokkos' own stream, with no copy), else in HostSpace
(NumPy computes); --space host keeps it on the host anyway. Each rank picks
its GPU with kokkos.initialize(device_id=local rank % GPUs);
kokkos.device_id() reports it. NCCL needs one GPU per rank: where ranks share
a GPU, auto picks MPI and nccl/torch on device Views stop with a message.

Every step the ranks swap halo rows:
  --exchange nccl  device to device through NCCL (cupy.cuda.nccl) on Kokkos'
                   stream, zero-copy: the NCCL calls read and write the Views;
  --exchange torch through torch.distributed (NCCL for device Views, on
                   Kokkos' stream; gloo for host Views), zero-copy through
                   torch.from_dlpack;
  --exchange mpi   through mpi4py: the Views themselves where the MPI library
                   can access their memory (host Views, or a CUDA-aware MPI:
                   kokkos.mpi.buffer), else staged through pinned host
                   mirrors (kokkos.mpi.staged), explicitly;
  --exchange auto  NCCL for device Views when CuPy has it and every rank has
                   its own GPU, else MPI.
At the end the ranks' blocks are gathered on rank 0 and checked against the
same scheme run on one NumPy array and against the exact solution; the total
heat is summed across ranks (NCCL or MPI all-reduce of one-element Views).
Prints the time per step; exit status 0 when the check passes.
"""

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

import kokkos
from kokkos import mpi as kmpi


def _optional(name: str) -> Any:
    """The module, or None where it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


MPI = _optional("mpi4py.MPI")  # one rank without MPI when absent
cupy = _optional("cupy")  # NumPy on the host when absent

FloatArray = npt.NDArray[np.float64]
Exchange = Callable[[kokkos.View, int, int], None]
Allreduce = Callable[[kokkos.View, kokkos.View], None]


def exact(n: int, t: float) -> FloatArray:
    x = np.arange(1, n + 1) / (n + 1)
    u: FloatArray = np.exp(-2 * np.pi**2 * t) * np.outer(np.sin(np.pi * x), np.sin(np.pi * x))
    return u


def initial_rows(n: int, first: int, count: int) -> FloatArray:
    """Rows first-1 .. first+count (halos included) of the initial field,
    boundary columns included; rows outside the domain are the boundary (0)."""
    h = 1.0 / (n + 1)
    rows = np.arange(first - 1, first + count + 1)  # global row index, 0 = boundary
    y = np.where((rows >= 1) & (rows <= n), rows * h, 0.0)
    x = np.arange(n + 2) * h
    u = np.outer(np.sin(np.pi * y), np.sin(np.pi * x))
    u[:, 0] = u[:, -1] = 0.0
    u[(rows < 1) | (rows > n), :] = 0.0
    return u


def step(xp: Any, u: Any, u_new: Any, r: float) -> None:
    """One FTCS step on the interior of u (halo rows and boundary columns stay)."""
    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + r * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    )


def serial(n: int, steps: int, r: float) -> FloatArray:
    u = initial_rows(n, 1, n)
    u_new = u.copy()
    for _ in range(steps):
        step(np, u, u_new, r)
        u, u_new = u_new, u
    return u[1:-1, 1:-1]


def external_stream(ptr: int) -> Any:
    """A CuPy stream object for a stream CuPy did not make (Kokkos' own)."""
    from_external = getattr(cupy.cuda.Stream, "from_external", None)
    if from_external is None:  # CuPy before 14
        return cupy.cuda.ExternalStream(ptr)

    class KokkosStream:  # the CUDA stream protocol: (version, cudaStream_t)
        def __cuda_stream__(self) -> tuple[int, int]:
            return (0, ptr)

    return from_external(KokkosStream())


def _has_nccl() -> bool:
    nccl = _optional("cupy.cuda.nccl")
    return nccl is not None and bool(getattr(nccl, "available", True))


class Ranks:
    """mpi4py's COMM_WORLD, or a single rank without MPI."""

    def __init__(self) -> None:
        self.comm: Any = MPI.COMM_WORLD if MPI is not None else None
        self.rank = self.comm.Get_rank() if self.comm else 0
        self.size = self.comm.Get_size() if self.comm else 1
        self.up = self.rank - 1 if self.rank > 0 else None
        self.down = self.rank + 1 if self.rank < self.size - 1 else None


def nccl_exchange(ranks: Ranks, stream: Any) -> tuple[Exchange, Allreduce]:
    """Halo exchange and all-reduce through NCCL on `stream` (Kokkos' stream)."""
    nccl = importlib.import_module("cupy.cuda.nccl")
    uid = ranks.comm.bcast(nccl.get_unique_id() if ranks.rank == 0 else None) if ranks.comm else nccl.get_unique_id()
    comm = nccl.NcclCommunicator(ranks.size, uid, ranks.rank)

    def exchange(u: kokkos.View, n_local: int, width: int) -> None:
        row = width * 8
        nccl.groupStart()
        if ranks.up is not None:
            comm.send(u.data + row, width, nccl.NCCL_FLOAT64, ranks.up, stream.ptr)
            comm.recv(u.data, width, nccl.NCCL_FLOAT64, ranks.up, stream.ptr)
        if ranks.down is not None:
            comm.send(u.data + n_local * row, width, nccl.NCCL_FLOAT64, ranks.down, stream.ptr)
            comm.recv(u.data + (n_local + 1) * row, width, nccl.NCCL_FLOAT64, ranks.down, stream.ptr)
        nccl.groupEnd()

    def allreduce(local: kokkos.View, total: kokkos.View) -> None:
        comm.allReduce(local.data, total.data, 1, nccl.NCCL_FLOAT64, nccl.NCCL_SUM, stream.ptr)

    return exchange, allreduce


def torch_exchange(ranks: Ranks, stream: Any) -> tuple[Exchange, Allreduce]:
    """Halo exchange and all-reduce through torch.distributed: NCCL for device
    Views (on Kokkos' stream), gloo for host Views. The tensors are the Views'
    memory (torch.from_dlpack), no copies."""
    torch = importlib.import_module("torch")
    dist = importlib.import_module("torch.distributed")
    port = 0
    if ranks.rank == 0:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
    if ranks.comm:
        port = ranks.comm.bcast(port, root=0)
    backend = "nccl" if stream is not None else "gloo"
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=ranks.rank, world_size=ranks.size)
    on_stream = torch.cuda.stream(torch.cuda.ExternalStream(stream.ptr)) if stream is not None else None

    def run(ops: list[Any]) -> None:
        if not ops:
            return
        if on_stream is None:
            for req in dist.batch_isend_irecv(ops):
                req.wait()
            return
        with on_stream:
            for req in dist.batch_isend_irecv(ops):
                req.wait()

    def exchange(u: kokkos.View, n_local: int, width: int) -> None:
        t = torch.from_dlpack(u)  # (n_local + 2, width), the View's memory
        ops = []
        if ranks.up is not None:
            ops += [dist.P2POp(dist.isend, t[1], ranks.up), dist.P2POp(dist.irecv, t[0], ranks.up)]
        if ranks.down is not None:
            ops += [
                dist.P2POp(dist.isend, t[n_local], ranks.down),
                dist.P2POp(dist.irecv, t[n_local + 1], ranks.down),
            ]
        run(ops)

    def allreduce(local: kokkos.View, total: kokkos.View) -> None:
        kokkos.deep_copy(total, local)
        if on_stream is None:
            dist.all_reduce(torch.from_dlpack(total))
        else:
            with on_stream:
                dist.all_reduce(torch.from_dlpack(total))

    return exchange, allreduce


def mpi_exchange(ranks: Ranks) -> tuple[Exchange, Allreduce]:
    """Halo exchange and all-reduce through mpi4py (kokkos.mpi decides what
    the MPI library may be given)."""
    comm = ranks.comm
    up = ranks.up if ranks.up is not None else MPI.PROC_NULL
    down = ranks.down if ranks.down is not None else MPI.PROC_NULL

    def sendrecv(send: kokkos.View, dest: int, recv: kokkos.View, source: int) -> None:
        try:
            comm.Sendrecv(kmpi.buffer(send), dest=dest, recvbuf=kmpi.buffer(recv), source=source)
        except BufferError:  # device memory, MPI without GPU support: stage explicitly
            with kmpi.staged(send, copy_out=False) as s, kmpi.staged(recv, copy_in=False) as rv:
                comm.Sendrecv(s, dest=dest, recvbuf=rv, source=source)

    def exchange(u: kokkos.View, n_local: int, width: int) -> None:
        sendrecv(u[1:2, :], up, u[n_local + 1 : n_local + 2, :], down)
        sendrecv(u[n_local : n_local + 1, :], down, u[0:1, :], up)

    def allreduce(local: kokkos.View, total: kokkos.View) -> None:
        try:
            comm.Allreduce(kmpi.buffer(local), kmpi.buffer(total), op=MPI.SUM)
        except BufferError:
            with kmpi.staged(local, copy_out=False) as lo, kmpi.staged(total, copy_in=False) as to:
                comm.Allreduce(lo, to, op=MPI.SUM)

    return exchange, allreduce


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=512, help="interior points per side")
    parser.add_argument("--steps", type=int, default=500, help="time steps")
    parser.add_argument("--exchange", choices=("auto", "nccl", "torch", "mpi"), default="auto")
    parser.add_argument("--space", choices=("auto", "host", "device"), default="auto", help="where the field lives")
    parser.add_argument("--no-check", action="store_true", help="skip the serial reference (timing runs)")
    args = parser.parse_args(argv)

    ranks = Ranks()
    n, steps, r = args.n, args.steps, 0.2
    if n < ranks.size:
        if ranks.rank == 0:
            print(f"heat_multigpu: need at least one row per rank ({n} rows, {ranks.size} ranks)")
        return 1

    gpu = kokkos.get_memory_space_available("CudaSpace") and cupy is not None and args.space != "host"
    if args.space == "device" and not gpu:
        raise SystemExit("heat_multigpu: --space device needs a CUDA Kokkos and CuPy")
    if gpu:
        local_rank = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("MPI_LOCALRANKID", ranks.rank)))
        kokkos.initialize(device_id=local_rank % cupy.cuda.runtime.getDeviceCount())
        cupy.cuda.Device(kokkos.device_id()).use()
    else:
        kokkos.initialize()
    space = kokkos.CudaSpace if gpu else kokkos.HostSpace
    devices = ranks.comm.allgather(kokkos.device_id()) if gpu and ranks.comm else [0]
    shared = len(set(devices)) < len(devices)  # NCCL refuses two ranks on one GPU
    exchange_kind = args.exchange
    if exchange_kind == "auto":
        exchange_kind = "nccl" if gpu and _has_nccl() and not shared else "mpi"
    if exchange_kind == "nccl" and not gpu:
        raise SystemExit("heat_multigpu: --exchange nccl needs a CUDA Kokkos and CuPy with NCCL")
    if exchange_kind in ("nccl", "torch") and gpu and shared:
        raise SystemExit(
            f"heat_multigpu: NCCL needs one GPU per rank, and these ranks share GPUs (devices {devices}): "
            "use --exchange mpi, or --space host for torch.distributed over gloo"
        )

    counts = [n // ranks.size + (1 if k < n % ranks.size else 0) for k in range(ranks.size)]
    first = 1 + sum(counts[: ranks.rank])
    n_local, width = counts[ranks.rank], n + 2

    u = kokkos.View((n_local + 2, width), kokkos.float64, space=space, label=f"heat2d:u:rank{ranks.rank}")
    u_new = kokkos.View((n_local + 2, width), kokkos.float64, space=space, label=f"heat2d:u_new:rank{ranks.rank}")
    u.deep_copy(initial_rows(n, first, n_local))
    kokkos.deep_copy(u_new, u)

    if gpu:
        # CuPy works on the Views' memory on Kokkos' own stream: no copies,
        # no device-wide synchronization between Kokkos' and CuPy's work.
        stream = external_stream(u.__cuda_array_interface__["stream"])
        stream.use()
        xp, arr = cupy, cupy.asarray
    else:
        stream, xp, arr = None, np, np.asarray
    if exchange_kind == "nccl":
        exchange, allreduce = nccl_exchange(ranks, stream)
    elif exchange_kind == "torch":
        exchange, allreduce = torch_exchange(ranks, stream)
    elif ranks.comm is not None:
        exchange, allreduce = mpi_exchange(ranks)
    else:  # one rank, no MPI: nothing to exchange

        def exchange(u: kokkos.View, n_local: int, width: int) -> None:
            pass

        def allreduce(local: kokkos.View, total: kokkos.View) -> None:
            kokkos.deep_copy(total, local)

    if ranks.comm:
        ranks.comm.Barrier()
    start = time.perf_counter()
    for _ in range(steps):
        exchange(u, n_local, width)
        step(xp, arr(u), arr(u_new), r)
        u, u_new = u_new, u
    kokkos.fence()
    if stream is not None:
        stream.synchronize()
    elapsed = time.perf_counter() - start

    # Total heat: an all-reduce of one-element Views in the field's space.
    h = 1.0 / (n + 1)
    local = kokkos.View((1,), kokkos.float64, space=space, label="heat2d:local_heat")
    total = kokkos.View((1,), kokkos.float64, space=space, label="heat2d:total_heat")
    arr(local)[0] = arr(u)[1:-1, 1:-1].sum() * h * h
    allreduce(local, total)
    if stream is not None:
        stream.synchronize()
    total_heat = float(np.asarray(total.create_mirror_view(copy=True))[0])

    block = np.ascontiguousarray(np.asarray(u.create_mirror_view(copy=True))[1:-1, 1:-1])
    blocks = ranks.comm.gather(block, root=0) if ranks.comm else [block]
    times = ranks.comm.gather(elapsed, root=0) if ranks.comm else [elapsed]
    status = 0
    if ranks.rank == 0:
        got = np.vstack(blocks)
        ok, check = True, "not checked"
        if not args.no_check:
            want = serial(n, steps, r)
            diff = float(np.max(np.abs(got - want)))
            err = float(np.max(np.abs(got - exact(n, steps * r * h * h))))
            heat = float(want.sum() * h * h)
            ok = diff <= 1e-12 and err < 1e-3 and abs(total_heat - heat) <= 1e-10
            check = f"max |ranks - serial| = {diff:.3g}, max |ranks - exact| = {err:.3g}"
        where = f"GPU (device {kokkos.device_id()} on rank 0)" if gpu else "host"
        print(
            f"heat_multigpu: {ranks.size} rank(s), {n}x{n}, {steps} steps, {where}, exchange {exchange_kind}: "
            f"{max(times) / steps * 1e6:.1f} us/step; {check}; total heat {total_heat:.6f}: "
            f"{'OK' if ok else 'MISMATCH'}"
        )
        status = 0 if ok else 1
    if exchange_kind == "torch":
        importlib.import_module("torch.distributed").destroy_process_group()
    return ranks.comm.bcast(status, root=0) if ranks.comm else status


if __name__ == "__main__":
    sys.exit(main())
