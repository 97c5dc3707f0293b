"""Zero-copy exchange with other array libraries.

``kokkos.from_dlpack(x)`` makes a View of the memory of any DLPack producer
(NumPy, PyTorch, CuPy, JAX, another View, or a DLPack capsule);
``kokkos.asarray(obj)`` does the same for anything exposing ``__dlpack__``,
``__cuda_array_interface__``, ``__array_interface__`` or the buffer protocol,
and copies only when a different memory space, dtype or layout is asked for
(or ``copy=True``). The Views keep the producer's memory alive.

The export side lives on the View itself: ``view.__dlpack__()``,
``view.__dlpack_device__()``, ``View.__dlpack_c_exchange_api__`` and, for
Views in CUDA memory spaces, ``view.__cuda_array_interface__``.
"""

from . import _core

__all__ = ["asarray", "from_dlpack"]

from_dlpack = _core.from_dlpack

# kokkos.asarray lives in the C core (src/core/array.c).
asarray = _core.asarray
