"""kokkos.mpi under mpirun: run by tests/test_multigpu.py as
`mpirun -n 2 python mpi_views.py`; every rank checks, rank 0 prints "OK"."""

import os
import shutil
import subprocess

import numpy as np
from mpi4py import MPI

import kokkos
from kokkos import mpi as kmpi


def ompi_info_says_cuda():
    ompi_info = shutil.which("ompi_info")
    if ompi_info is None:
        return None
    out = subprocess.run([ompi_info, "--parsable", "--all"], check=False, capture_output=True, text=True).stdout
    return ":mpi_built_with_cuda_support:value:true" in out


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    peer = (rank + 1) % size
    source = (rank - 1) % size

    # The library's own answer agrees with Open MPI's build information.
    said = ompi_info_says_cuda()
    if said is not None and "KOKKOS_MPI_GPU_AWARE" not in os.environ:
        assert kmpi.cuda_aware() == said, (kmpi.cuda_aware(), said)

    # Host Views go to MPI as they are.
    host = kokkos.View((4, 5), kokkos.float64, label="host")
    assert kmpi.buffer(host) is host
    with kmpi.staged(host) as h:
        assert h is host
    try:
        kmpi.buffer(np.zeros(3))
    except TypeError as exc:
        assert "expected a kokkos.View" in str(exc)
    else:
        raise AssertionError("a NumPy array was accepted")
    np.asarray(host)[:] = rank
    recv = kokkos.View((4, 5), kokkos.float64, label="recv")
    comm.Sendrecv(kmpi.buffer(host[1:2, :]), dest=peer, recvbuf=kmpi.buffer(recv[2:3, :]), source=source)
    assert np.all(np.asarray(recv)[2] == source) and np.all(np.asarray(recv)[[0, 1, 3]] == 0)

    if kokkos.get_memory_space_available("CudaSpace"):
        dev = kokkos.View((1000,), kokkos.float64, space=kokkos.CudaSpace, label="dev")
        dev.deep_copy(float(rank))
        dev_recv = kokkos.View((1000,), kokkos.float64, space=kokkos.CudaSpace, label="dev_recv")
        if kmpi.cuda_aware():
            assert kmpi.buffer(dev) is dev
        else:
            try:
                kmpi.buffer(dev)
            except BufferError as exc:
                assert "not CUDA-aware" in str(exc) and "kokkos.mpi.staged" in str(exc), exc
            else:
                raise AssertionError("a device View went to an MPI without CUDA support")
        # Staged explicitly through pinned host memory: correct either way.
        with kmpi.staged(dev, copy_out=False) as s, kmpi.staged(dev_recv, copy_in=False) as r:
            assert str(s.space).endswith("CudaHostPinnedSpace"), s.space
            comm.Sendrecv(s, dest=peer, recvbuf=r, source=source)
        got = np.asarray(dev_recv.create_mirror_view(copy=True))
        assert np.all(got == source), got[:4]
        assert kokkos.device_id() == 0 or kokkos.device_id() is not None

    comm.Barrier()
    if rank == 0:
        print("OK")


if __name__ == "__main__":
    main()
