"""Execution-space instances, as the original package's
``KokkosExecutionSpace_<Backend>`` classes: one class per backend this Kokkos
has (``kokkos.KokkosExecutionSpace_Serial``, ``..._OpenMP``, ``..._Cuda``).

An instance stands for a ``Kokkos::Serial`` / ``Kokkos::OpenMP`` /
``Kokkos::Cuda`` / ... object: C++ functions bound with pybind11 take it as
that type (the casters in ``kokkos_python/pybind11.hpp`` build the C++
instance from it). CUDA and HIP instances may carry a stream, given as its
address (``KokkosExecutionSpace_Cuda(stream.ptr, False)`` with a CuPy stream,
as pykokkos does); Kokkos uses that stream and never destroys it.

Kokkos (5.1 and later) allows an execution-space instance only between
``initialize()`` and ``finalize()``. The Python object holds no C++ instance:
the casters build one for each call, after making sure Kokkos is initialized
(and refusing once it was finalized). The object follows the same rule:
creating one initializes Kokkos with defaults when nothing has (the
auto-initialization rule, as creating a View does), creating one after
``kokkos.finalize()`` raises RuntimeError, and one made before finalize is
``released`` afterwards: ``fence()`` and the casters refuse it with
RuntimeError.
"""

from . import _core
from ._types import _BUILD, _EXEC_NAMES

__all__ = ["ExecutionSpaceInstance"]


class ExecutionSpaceInstance:
    """Base of the ``KokkosExecutionSpace_<Backend>`` classes."""

    __slots__ = ("_stream", "_manage_stream")
    backend = None
    """The backend's name ("Serial", "Cuda", ...)."""
    _streams = False

    def __init__(self, stream=None, manage_stream=False):
        name = type(self).__name__
        if stream is not None:
            if not self._streams:
                raise TypeError(f"kokkos.{name}(): {self.backend} instances take no stream")
            if isinstance(stream, bool) or not isinstance(stream, int):
                raise TypeError(
                    f"kokkos.{name}(): stream must be the stream's address (an int), got {type(stream).__name__}"
                )
            if stream < 0:
                raise ValueError(f"kokkos.{name}(): stream must be an address >= 0, got {stream}")
            if manage_stream:
                raise ValueError(
                    f"kokkos.{name}(): manage_stream=True would let Kokkos destroy a stream it did not create; "
                    "pass False and keep the stream alive while the instance is used"
                )
        self._stream = stream
        self._manage_stream = False
        _core._runtime_ensure(f"kokkos.{name}()")

    def __reduce__(self):
        # Through the constructor, so that a copy or an unpickled instance
        # follows the rule above too.
        return type(self), (self._stream, False)

    @property
    def released(self):
        """True once Kokkos was finalized: the instance stood for a Kokkos
        instance that no longer exists, and nothing accepts it any more."""
        return _core.is_finalized()

    @property
    def stream(self):
        """The stream's address (int), or None for the backend's default stream."""
        return self._stream

    def fence(self):
        """Waits for the work queued so far (Kokkos::fence())."""
        _core._runtime_ensure(f"kokkos.{type(self).__name__}.fence()")
        _core.fence()

    def __repr__(self):
        extra = "" if self._stream is None else f"stream=0x{self._stream:x}"
        if self.released:
            extra = ", ".join(x for x in (extra, "released") if x)
        return f"kokkos.{type(self).__name__}({extra})"


ExecutionSpaceInstance.__module__ = "kokkos"


def _make(backend):
    cls = type(
        f"KokkosExecutionSpace_{backend}",
        (ExecutionSpaceInstance,),
        {
            "__slots__": (),
            "__module__": "kokkos",
            "__doc__": f"An instance of Kokkos::{backend}; C++ takes it as that type.",
            "backend": backend,
            "_streams": backend in ("Cuda", "HIP", "SYCL"),
        },
    )
    return cls


classes = {
    f"KokkosExecutionSpace_{name}": _make(name)
    for name, available in zip(_EXEC_NAMES, _BUILD["exec_available"], strict=True)
    if available
}
