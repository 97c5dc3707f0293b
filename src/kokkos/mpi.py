"""MPI with Kokkos Views (mpi4py): which memory an MPI call may be given.

mpi4py reads a host-accessible View (HostSpace, CudaUVMSpace,
CudaHostPinnedSpace, ...) through the buffer protocol, with no copy. A View
the host cannot access (CudaSpace, HIPSpace) has no buffer export; mpi4py then
takes its memory through DLPack or ``__cuda_array_interface__`` and hands the
device address to the MPI library. That is right for a CUDA-aware MPI and a
crash (or garbage) for one that is not, and mpi4py cannot tell the two apart.
These helpers can::

    from kokkos import mpi as kmpi
    comm.Sendrecv(kmpi.buffer(send), dest=..., recvbuf=kmpi.buffer(recv), source=...)

``buffer(view)`` returns the View itself where the MPI library can read its
memory and raises BufferError (saying what to do) where it cannot;
``staged(view)`` is the explicit alternative for an MPI without GPU support:
a host mirror (pinned memory where the backend has it) that is copied from
the View on entry and back into it on exit::

    with kmpi.staged(halo) as host:
        comm.Recv(host, source=left)

``cuda_aware()`` asks the MPI library (Open MPI's MPIX_Query_cuda_support,
MPICH's MPIX_GPU_query_support); ``KOKKOS_MPI_GPU_AWARE=1`` or ``=0`` in the
environment overrides the answer for MPI libraries that cannot be asked.
"""

import contextlib
import ctypes
import ctypes.util
import functools
import os

from . import _core
from ._types import _HOST_SPACE, _SPACE_ROWS
from .utility import get_memory_space_available

__all__ = ["buffer", "cuda_aware", "staged"]


def _mpi_library():
    """The MPI library mpi4py loaded (ctypes handle), or None."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise RuntimeError("kokkos.mpi needs mpi4py (pip install mpi4py)") from exc
    if not MPI.Is_initialized():
        raise RuntimeError("kokkos.mpi: MPI is not initialized yet (import mpi4py.MPI first)")
    for name in (None, ctypes.util.find_library("mpi")):
        try:
            lib = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        if hasattr(lib, "MPI_Init") or name is not None:
            return lib
    return None


@functools.cache
def _gpu_aware(kind):
    env = os.environ.get("KOKKOS_MPI_GPU_AWARE")
    if env is not None:
        return env.strip().lower() in ("1", "true", "yes", "on")
    lib = _mpi_library()
    if lib is None:
        return False
    # Open MPI: MPIX_Query_cuda_support() / MPIX_Query_rocm_support().
    query = getattr(lib, "MPIX_Query_cuda_support" if kind == "cuda" else "MPIX_Query_rocm_support", None)
    if query is not None:
        query.restype = ctypes.c_int
        query.argtypes = []
        return bool(query())
    # MPICH 4: MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA = 0 / ZE = 1 / HIP = 2, &flag).
    query = getattr(lib, "MPIX_GPU_query_support", None)
    if query is not None:
        flag = ctypes.c_int(0)
        query.restype = ctypes.c_int
        query.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        if query(0 if kind == "cuda" else 2, ctypes.byref(flag)) == 0:
            return bool(flag.value)
    return False


def cuda_aware():
    """True if the MPI library mpi4py uses can read and write CUDA device
    memory (CudaSpace Views); needs mpi4py with MPI initialized."""
    return _gpu_aware("cuda")


def _space_row(view):
    """(name, backend, memory kind) of view's memory space."""
    if not isinstance(view, _core.View):
        raise TypeError(f"kokkos.mpi: expected a kokkos.View, got {type(view).__name__}")
    return _SPACE_ROWS[int(view.space)]


def buffer(view):
    """The View itself, for an mpi4py call, where the MPI library can access
    its memory: always for host-accessible Views, for CudaSpace / HIPSpace
    Views only with a CUDA- / ROCm-aware MPI. Otherwise BufferError: use
    ``kokkos.mpi.staged(view)`` (an explicit host copy) or a GPU-aware MPI, or
    exchange device Views with NCCL (docs/processes.md)."""
    space, backend, memory = _space_row(view)
    if view.host_accessible or memory != "device":
        return view
    kind = "rocm" if backend == "hip" else "cuda"
    if _gpu_aware(kind):
        return view
    raise BufferError(
        f"kokkos.mpi.buffer(): View '{view.label}' is in {space} and this MPI library is not "
        f"{kind.upper()}-aware, so it cannot read device memory; stage it through host memory with "
        "kokkos.mpi.staged(view), use a GPU-aware MPI, or exchange device Views with NCCL"
    )


@contextlib.contextmanager
def staged(view, *, copy_in=True, copy_out=True):
    """A host mirror of view for the body of a ``with`` block: pinned host
    memory (CudaHostPinnedSpace / HIPHostPinnedSpace) for a device View where
    the backend has it, else HostSpace; a host-accessible View is its own
    mirror. The mirror holds view's data on entry (copy_in) and is copied back
    into view on exit (copy_out, skipped if the body raised)."""
    _, backend, _ = _space_row(view)
    if view.host_accessible:
        yield view
        return
    pinned = [name for name, b, kind in _SPACE_ROWS if b == backend and kind == "pinned"]
    if pinned and get_memory_space_available(pinned[0]):
        mirror_space = pinned[0]
    else:
        mirror_space = _SPACE_ROWS[_HOST_SPACE][0]
    host = view.create_mirror(copy=copy_in, space=mirror_space)
    yield host
    if copy_out:
        _core.deep_copy(view, host)
