"""The 1-D heat equation split across MPI ranks, each rank's field a Kokkos View.

    mpirun -n 4 python examples/heat_mpi.py [--points N] [--steps S]

(add --oversubscribe on a machine with fewer than 4 cores, and
OMP_NUM_THREADS=1 with an OpenMP Kokkos, so ranks do not fight for cores)

Solves u_t = u_xx on [0, 1] with u = 0 at both ends and
u(x, 0) = sin(pi x) + 0.5 sin(3 pi x), by the explicit (FTCS) scheme

    u_new[i] = u[i] + r * (u[i-1] - 2 u[i] + u[i+1]),   r = dt / dx^2 = 0.4.

The N interior points are split into contiguous blocks, one per rank. Each
rank's field is a Kokkos View of its block with one halo cell at each end.
Every step the ranks swap halo values with ``comm.Sendrecv`` on one-element
subviews of their Views (mpi4py reads and writes the Views' memory through
the buffer protocol, no copies), then update their interior through a NumPy
array that shares the View's memory. At the end ``comm.Gatherv`` collects the
blocks into a View on rank 0, which checks it against the same scheme run
serially on one NumPy array (the arithmetic is the same, so they agree to
the last bit) and against the exact solution. ``comm.Allreduce`` of
one-element Views sums the heat across ranks. Also runs on one rank,
without mpirun. Exit status 0 when the check passes, 1 otherwise.
"""

import argparse
import sys

import numpy as np
import numpy.typing as npt
from mpi4py import MPI

import kokkos

FloatArray = npt.NDArray[np.float64]


def initial(x: FloatArray) -> FloatArray:
    return np.sin(np.pi * x) + 0.5 * np.sin(3 * np.pi * x)


def exact(x: FloatArray, t: float) -> FloatArray:
    decay1, decay3 = float(np.exp(-(np.pi**2) * t)), float(np.exp(-9 * np.pi**2 * t))
    return decay1 * np.sin(np.pi * x) + 0.5 * decay3 * np.sin(3 * np.pi * x)


def step(u: FloatArray, u_new: FloatArray, r: float) -> None:
    """One FTCS step on the interior of u (halos / boundaries at both ends)."""
    u_new[1:-1] = u[1:-1] + r * (u[:-2] - 2.0 * u[1:-1] + u[2:])


def serial(n: int, steps: int, r: float) -> FloatArray:
    """The whole domain on one NumPy array: the reference."""
    x = np.linspace(0.0, 1.0, n + 2)
    u = initial(x)
    u[0] = u[-1] = 0.0
    u_new = u.copy()
    for _ in range(steps):
        step(u, u_new, r)
        u, u_new = u_new, u
    return u[1:-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=256, help="interior grid points (all ranks)")
    parser.add_argument("--steps", type=int, default=20000, help="time steps")
    args = parser.parse_args(argv)

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n_global, steps, r = args.points, args.steps, 0.4
    if n_global < size:
        if rank == 0:
            print(f"heat_mpi: need at least one point per rank ({n_global} points, {size} ranks)")
        return 1
    dx = 1.0 / (n_global + 1)
    dt = r * dx * dx

    # This rank's block of interior points: [first, first + n).
    counts = [n_global // size + (1 if k < n_global % size else 0) for k in range(size)]
    first = sum(counts[:rank])
    n = counts[rank]
    left = rank - 1 if rank > 0 else MPI.PROC_NULL
    right = rank + 1 if rank < size - 1 else MPI.PROC_NULL

    # The field: a Kokkos View with a halo cell at each end, and its twin
    # for the next step. NumPy arrays of the same memory do the arithmetic.
    u = kokkos.View((n + 2,), kokkos.float64, label=f"heat:u:rank{rank}")
    u_new = kokkos.View((n + 2,), kokkos.float64, label=f"heat:u_new:rank{rank}")
    x = (first + np.arange(n + 2)) * dx  # halo cells included
    np.asarray(u)[:] = initial(x)
    if rank == 0:
        np.asarray(u)[0] = 0.0  # u(0) = 0
    if rank == size - 1:
        np.asarray(u)[-1] = 0.0  # u(1) = 0
    kokkos.deep_copy(u_new, u)

    for _ in range(steps):
        # Halo exchange on subviews: the first / last interior cell goes to
        # the neighbour's halo. PROC_NULL leaves the boundary values alone.
        comm.Sendrecv(sendbuf=u[1:2], dest=left, recvbuf=u[n + 1 : n + 2], source=right)
        comm.Sendrecv(sendbuf=u[n : n + 1], dest=right, recvbuf=u[0:1], source=left)
        step(np.asarray(u), np.asarray(u_new), r)
        u, u_new = u_new, u

    # Total heat (a diagnostic) through Allreduce of one-element Views.
    local = kokkos.View((1,), kokkos.float64, label="heat:local_sum")
    total = kokkos.View((1,), kokkos.float64, label="heat:total_sum")
    local[0] = float(np.asarray(u)[1 : n + 1].sum() * dx)
    comm.Allreduce(local, total, op=MPI.SUM)

    # Gather the interior blocks into one View on rank 0.
    result = kokkos.View((n_global,), kokkos.float64, label="heat:result") if rank == 0 else None
    comm.Gatherv(sendbuf=u[1 : n + 1], recvbuf=(result, counts) if rank == 0 else None, root=0)

    status = 0
    if rank == 0:
        got = np.asarray(result)
        want = serial(n_global, steps, r)
        diff = float(np.max(np.abs(got - want)))
        xs = np.arange(1, n_global + 1) * dx
        err = float(np.max(np.abs(got - exact(xs, steps * dt))))
        ok = diff <= 1e-12 and err < 1e-3 and abs(total[0] - want.sum() * dx) <= 1e-10
        print(
            f"heat_mpi: {size} rank(s), {n_global} points, {steps} steps (t = {steps * dt:.4g}): "
            f"max |MPI - serial NumPy| = {diff:.3g}, max |MPI - exact| = {err:.3g}, "
            f"total heat = {total[0]:.6f}: {'OK' if ok else 'MISMATCH'}"
        )
        status = 0 if ok else 1
    return int(comm.bcast(status, root=0))


if __name__ == "__main__":
    sys.exit(main())
