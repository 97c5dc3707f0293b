"""Pickling Views and DynRankViews.

``kokkos.View.__reduce_ex__`` (and so ``kokkos.DynRankView``'s) calls
``_reduce_ex`` below, so Views travel through ``pickle``,
``multiprocessing``, ``concurrent.futures``, mpi4py's lowercase calls, Dask
and Ray like NumPy arrays do:

- protocol 5 hands the View's memory to pickle as a ``PickleBuffer``: with a
  ``buffer_callback`` it crosses out of band with no copy, and
  ``pickle.loads(data, buffers=...)`` makes a View over the buffer it is
  given (a ``PickleBuffer``, memoryview, NumPy array, shared memory, mmap),
  again with no copy: an Unmanaged View that keeps the buffer alive,
  read-only when the buffer is;
- a buffer that comes back as exactly ``bytes`` or ``bytearray`` (protocol 5
  in band, where pickle makes one from the stream, or a transport's own
  copy) is copied into a new View, as protocols 0 to 4 do: the unpickled
  View is the same under every protocol, with the pickled traits and memory
  of its own (wrap the object in a ``memoryview`` to share it instead);
- protocols 0 to 4 pickle the data by value (``bytes``) and unpickling
  allocates a new Managed View through Kokkos and copies into it;
- the round trip restores dtype, shape, layout, label, memory space, the
  memory traits other than Unmanaged, and whether the View is a DynRankView;
- a View the host cannot access (CudaSpace, HIPSpace, ...) is copied to a
  host mirror to be pickled, and unpickling allocates a View in that memory
  space again and copies the data there; ``restore_space(space)`` picks
  another memory space, e.g. to load on a machine without the GPU;
- a non-contiguous View (a strided subview) is pickled as a contiguous copy
  (in LayoutLeft order for LayoutLeft, else LayoutRight order) and comes back
  contiguous, with its layout.

``copy.copy`` and ``copy.deepcopy`` go through the by-value path: they give
a new Managed View with the same data.
"""

import contextlib
import contextvars

from . import _core
from ._types import _BUILD, _DTYPE_NAMES, _HOST_SPACE, _LAYOUT_NAMES, _SPACE_NAMES

__all__ = ["restore_space"]

# Version of the pickled form, first in the metadata so that a later
# version can still read what this one wrote.
_FORM = 1
_UNMANAGED = 1
_HOST = _HOST_SPACE

_restore_space = contextvars.ContextVar("kokkos_pickling_restore_space", default=None)


@contextlib.contextmanager
def restore_space(space):
    """Unpickle Views into ``space`` (a memory space or its name) instead of
    the memory space they were pickled from, within this ``with`` block::

        with kokkos.pickling.restore_space(kokkos.HostSpace):
            view = pickle.loads(blob)   # pickled from CudaSpace on a GPU node
    """
    space_id = _core._space_index(space)
    token = _restore_space.set(space_id)
    try:
        yield _SPACE_NAMES[space_id]
    finally:
        _restore_space.reset(token)


# ---- pickling -----------------------------------------------------------------------


def _compact(view, layout):
    """A contiguous host copy of a non-contiguous host View, in LayoutLeft
    order for LayoutLeft (1), else in LayoutRight order."""
    out = _core.View(
        tuple(view.shape),
        int(view.dtype),
        label=view.label,
        layout=1 if layout == 1 else 0,
        initialize=False,
    )
    _core.deep_copy(out, view)
    return out


def _reduce_ex(self, protocol):
    from pickle import PickleBuffer  # pickle is imported by whoever pickles

    if self.released:
        raise RuntimeError(
            f"cannot pickle View '{self.label}': it was released when Kokkos was finalized; "
            "copy its data out (numpy.array(view)) before kokkos.finalize()"
        )
    layout = int(self.layout)
    host = self
    if not self.host_accessible:
        host = self.create_mirror(copy=True)
    # The bytes go in the memory order of the layout: LayoutLeft in
    # LayoutLeft order, LayoutRight and LayoutStride in LayoutRight order.
    if layout == 1:
        in_order = host.is_contiguous and _f_contiguous(host)
    else:
        in_order = host.is_contiguous and _c_contiguous(host)
    if not in_order:
        host = _compact(host, layout)
    meta = (
        _FORM,
        _DTYPE_NAMES[int(self.dtype)],
        tuple(self.shape),
        _LAYOUT_NAMES[layout],
        self.label,
        _SPACE_NAMES[int(self.space)],
        self.dynamic,
        int(self.trait) & ~_UNMANAGED,
    )
    if protocol >= 5:
        return _rebuild_buffer, (PickleBuffer(host), meta)
    return _rebuild_value, (PickleBuffer(host).raw().tobytes(), meta)


def _c_contiguous(view):
    return _strides_match(view, reversed(range(view.ndim)))


def _f_contiguous(view):
    return _strides_match(view, range(view.ndim))


def _strides_match(view, dims):
    shape, strides = view.shape, view.strides
    expect = view.itemsize
    for d in dims:
        if shape[d] == 0:
            return True
        if shape[d] != 1 and strides[d] != expect:
            return False
        expect *= shape[d]
    return True


# ---- unpickling ---------------------------------------------------------------------


def _read_meta(meta):
    if not isinstance(meta, tuple) or not meta or meta[0] != _FORM:
        form = meta[0] if isinstance(meta, tuple) and meta else meta
        raise ValueError(
            f"kokkos.pickling: this View was pickled in form {form!r}, this kokkos reads form {_FORM}; "
            "unpickle it with the kokkos version that pickled it"
        )
    _, dtype, shape, layout, label, space, dynamic, traits = meta
    return dtype, shape, layout, label, space, dynamic, traits


def _target_space(space_name, label):
    override = _restore_space.get()
    if override is not None:
        return override
    space = _core._space_index(space_name)
    if not _BUILD["space_available"][space]:
        raise RuntimeError(
            f"cannot unpickle View '{label}': it was pickled from {space_name}, which this Kokkos does "
            f"not have; unpickle it inside `with kokkos.pickling.restore_space(kokkos.{_SPACE_NAMES[_HOST]}):`"
        )
    return space


def _host_view(data, dtype, shape, layout, label, dynamic, traits):
    """A host View over data's bytes, copied to aligned memory if need be."""
    view = _core._view_from_bytes(data, dtype, shape, layout, label, dynamic, traits)
    if view is None:  # memory not aligned for dtype: copy once into aligned memory
        view = _core._view_from_bytes(bytearray(data), dtype, shape, layout, label, dynamic, traits)
    return view


def _new_view(dtype, shape, layout, label, space, dynamic, traits):
    cls = _core.DynRankView if dynamic else _core.View
    return cls(shape, dtype, label=label, space=space, layout=layout, trait=traits, initialize=False)


def _rebuild_buffer(data, meta):
    """Protocol 5: a View over the buffer pickle hands back, with no copy when
    it belongs in HostSpace; a new View holding a copy when that buffer is
    exactly bytes or bytearray."""
    if type(data) is bytes or type(data) is bytearray:
        # In band pickle makes this object out of the stream: wrapping it
        # would give an Unmanaged View where protocol 4 gives the pickled
        # traits. A subclass, memoryview or any other exporter is shared.
        return _rebuild_value(data, meta)
    dtype, shape, layout, label, space_name, dynamic, traits = _read_meta(meta)
    space = _target_space(space_name, label)
    host = _host_view(data, dtype, shape, layout, label, dynamic, traits)
    if space == _HOST:
        return host
    out = _new_view(dtype, shape, layout, label, space, dynamic, traits)
    _core.deep_copy(out, host)
    return out


def _rebuild_value(data, meta):
    """Protocols 0 to 4: a new Kokkos allocation holding a copy of data."""
    dtype, shape, layout, label, space_name, dynamic, traits = _read_meta(meta)
    space = _target_space(space_name, label)
    out = _new_view(dtype, shape, layout, label, space, dynamic, traits)
    _core.deep_copy(out, _host_view(data, dtype, shape, layout, None, False, 0))
    return out
