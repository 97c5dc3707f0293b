"""emulator.py: the Python side of examples/embed/solver.cpp.

tendency(u, out, step) is called by the C++ solver every step with two
kokkos.View objects of the solver's own memory; it writes out = -u / 2 in
place, with NumPy for host memory and with CuPy (else PyTorch) for GPU
memory. Both read the Views without copies: NumPy through the buffer
protocol, CuPy through __cuda_array_interface__, PyTorch through DLPack,
each ordered after the kernels Kokkos queued on its stream. The C++
side reads the result on Kokkos' stream, so a GPU write is synchronized
before returning.
"""

import kokkos


def _array(view):
    if kokkos.get_host_accessible(view.space):
        import numpy

        return numpy.asarray(view)
    try:
        import cupy

        return cupy.asarray(view)
    except ImportError:
        import torch

        return torch.from_dlpack(view)


def _synchronize(array):
    module = type(array).__module__.split(".")[0]
    if module == "cupy":
        import cupy

        cupy.cuda.get_current_stream().synchronize()
    elif module == "torch":
        import torch

        torch.cuda.current_stream().synchronize()


def tendency(u, out, step):
    a, b = _array(u), _array(out)
    b[...] = -0.5 * a
    _synchronize(b)


def backend(view):
    """Which library the emulator uses for this View's memory."""
    return type(_array(view)).__module__.split(".")[0]
