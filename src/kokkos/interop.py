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
from ._types import _DTYPE_NAMES, _SPACE_NAMES

__all__ = ["asarray", "from_dlpack"]

from_dlpack = _core.from_dlpack

_LAYOUT_RIGHT, _LAYOUT_LEFT, _LAYOUT_STRIDE = 0, 1, 2


def _contiguous(shape, byte_strides, itemsize, order):
    """True if the strides (bytes) are those of a contiguous array in order
    'C' (LayoutRight) or 'F' (LayoutLeft)."""
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    expect = itemsize
    for d in dims:
        if shape[d] == 0:
            return True
        if shape[d] != 1 and byte_strides[d] != expect:
            return False
        expect *= shape[d]
    return True


def _not_an_array(obj):
    """Python scalars and (nested) sequences: arrays only through NumPy."""
    return isinstance(obj, (bool, int, float, complex, list, tuple))


def asarray(obj, *, dtype=None, space=None, layout=None, copy=None, label=None):
    """A View of ``obj``, sharing its memory when it can.

    ``obj`` may be a View, anything with ``__dlpack__`` (NumPy, PyTorch, CuPy,
    JAX), ``__cuda_array_interface__`` (CuPy, Numba), ``__array_interface__``
    or the buffer protocol, a DLPack capsule, or a Python scalar or nested
    sequence (converted through NumPy).

    Without a copy, the View is an Unmanaged View of the producer's memory
    that keeps the producer alive; it is read-only when the producer is. Its
    memory space follows the producer's device (CPU -> HostSpace, CUDA ->
    CudaSpace, CUDAManaged -> CudaUVMSpace, CUDAHost -> CudaHostPinnedSpace,
    ...); strided producers give LayoutStride Views.

    A copy into a new Kokkos allocation (labelled ``label``) is made when
    ``space`` differs from the producer's, ``dtype`` differs, ``layout``
    (LayoutRight or LayoutLeft) does not describe the producer's strides, or
    ``copy=True``. ``copy=False`` raises ``ValueError`` instead of copying.
    ``layout=kokkos.LayoutStride`` accepts any strides. A View passed in with
    nothing to change is returned as is.
    """
    if dtype is None and space is None and layout is None and copy is None and not _not_an_array(obj):
        return _core._view_from_object(obj, label)  # zero-copy, nothing to check
    where = "kokkos.asarray()"
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"{where}: copy must be True, False or None, got {type(copy).__name__}")
    if label is not None and not isinstance(label, str):
        raise TypeError(f"{where}: label must be a str, got {type(label).__name__}")
    want_space = None if space is None else _core._space_index(space)
    want_dtype = None if dtype is None else _core._dtype_index(dtype)
    want_layout = None if layout is None else _core._layout_index(layout)

    if _not_an_array(obj):
        if copy is False:
            raise ValueError(
                f"{where}: a {type(obj).__name__} is not an array; making a View of it needs a copy, "
                "but copy=False"
            )
        try:
            import numpy as np
        except ImportError:  # pragma: no cover - numpy is a test dependency
            raise TypeError(
                f"{where}: converting a {type(obj).__name__} needs NumPy; install numpy or pass an array"
            ) from None
        obj = np.asarray(obj, dtype=None if want_dtype is None else _DTYPE_NAMES[want_dtype])

    src = _core._view_from_object(obj, label)

    reasons = []
    if want_space is not None and want_space != int(src.space):
        reasons.append(f"it lives in {_SPACE_NAMES[int(src.space)]}, not {_SPACE_NAMES[want_space]}")
    if want_dtype is not None and want_dtype != int(src.dtype):
        reasons.append(f"its dtype is {_DTYPE_NAMES[int(src.dtype)]}, not {_DTYPE_NAMES[want_dtype]}")
    shape, strides, itemsize = tuple(src.shape), src.strides, src.itemsize
    if want_layout == _LAYOUT_RIGHT and not _contiguous(shape, strides, itemsize, "C"):
        reasons.append("its strides are not LayoutRight's")
    elif want_layout == _LAYOUT_LEFT and not _contiguous(shape, strides, itemsize, "F"):
        reasons.append("its strides are not LayoutLeft's")
    if copy:
        reasons.append("copy=True")

    if not reasons:
        return src
    if copy is False:
        raise ValueError(f"{where}: a View of this {type(obj).__name__} needs a copy ({'; '.join(reasons)}), but copy=False")

    if want_layout in (_LAYOUT_RIGHT, _LAYOUT_LEFT):
        lay = want_layout
    else:
        f_only = _contiguous(shape, strides, itemsize, "F") and not _contiguous(shape, strides, itemsize, "C")
        lay = _LAYOUT_LEFT if f_only else _LAYOUT_RIGHT
    out = _core.View(
        shape,
        int(src.dtype) if want_dtype is None else want_dtype,
        label=label if label is not None else (src.label or "kokkos.asarray"),
        space=int(src.space) if want_space is None else want_space,
        layout=lay,
        initialize=False,
    )
    _core.deep_copy(out, src)
    return out
