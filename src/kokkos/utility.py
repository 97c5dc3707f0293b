"""The original pykokkos-base helpers: array construction, mirrors, copies,
and name <-> enumeration conversions."""

from . import _core
from ._types import (
    _BUILD,
    _DTYPE_NAMES,
    _EXEC_NAMES,
    _SPACE_NAMES,
    device,
    dtype,
    layout,
    memory_space,
    memory_trait,
)

View = _core.View
DynRankView = _core.DynRankView
deep_copy = _core.deep_copy

max_concrete_rank = _core.max_rank
"""Largest rank of a View (Kokkos' maximum, 8). DynRankViews go to 7."""

_UNSET = object()


# ---- enumerations <-> names --------------------------------------------------


def _lookup(enum, canonical, value, what):
    if isinstance(value, str):
        try:
            return enum[value]
        except KeyError:
            raise ValueError(f"unknown {what} {value!r}; known: {', '.join(enum.__members__)}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be a name (str) or a kokkos {what} value, got {type(value).__name__}")
    if not 0 <= int(value) < len(canonical):
        raise ValueError(f"{int(value)} is not a valid {what} (0..{len(canonical) - 1})")
    return canonical[int(value)]


def get_dtype(value):
    """Name -> kokkos.dtype member, or member / int -> canonical name."""
    if isinstance(value, str):
        return _lookup(dtype, _DTYPE_NAMES, value, "dtype")
    return _lookup(dtype, _DTYPE_NAMES, value, "dtype")


def get_memory_space(value):
    """Name -> kokkos.memory_space member, or member / int -> name."""
    return _lookup(memory_space, _SPACE_NAMES, value, "memory space")


def get_layout(value):
    """Name -> kokkos.layout member, or member / int -> name."""
    return _lookup(layout, ("LayoutRight", "LayoutLeft", "LayoutStride"), value, "layout")


_TRAIT_NAMES = ("Managed", "Unmanaged", "RandomAccess", "Atomic", "Restrict", "Aligned")


def get_memory_trait(value):
    """Name -> kokkos.memory_trait member, or member / int -> name."""
    if isinstance(value, str):
        try:
            return memory_trait[value]
        except KeyError:
            raise ValueError(f"unknown memory trait {value!r}; known: {', '.join(_TRAIT_NAMES)}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"memory trait must be a name or a kokkos.memory_trait, got {type(value).__name__}")
    flags = int(value)
    if flags < 0 or flags & ~int(sum(memory_trait)):
        raise ValueError(f"{flags} is not a valid memory trait (a combination of {', '.join(_TRAIT_NAMES[1:])})")
    trait = memory_trait(flags)
    return trait.name or str(trait)


def get_execution_space(value):
    """Name -> kokkos.device member, or member / int -> name."""
    return _lookup(device, _EXEC_NAMES, value, "execution space")


def get_memory_space_available(space):
    """True if the installed Kokkos has this memory space."""
    return bool(_BUILD["space_available"][int(get_memory_space(space)) if isinstance(space, str) else int(space)])


def get_host_accessible(space):
    """True if host code can access memory of this space."""
    return bool(_BUILD["space_host_accessible"][int(get_memory_space(space)) if isinstance(space, str) else int(space)])


def get_execution_space_available(space):
    """True if the installed Kokkos has this execution space (backend)."""
    return bool(_BUILD["exec_available"][int(get_execution_space(space)) if isinstance(space, str) else int(space)])


get_device_available = get_execution_space_available


def get_layout_available(value):
    """Every layout is always available (they are runtime values here)."""
    get_layout(value)
    return True


def get_memory_trait_available(value):
    """Every memory trait is always available (they are runtime values here)."""
    get_memory_trait(value)
    return True


def convert_dtype(_dtype, _module=None):
    """kokkos dtype -> the array module's scalar type (numpy.float64, ...)."""
    name = _DTYPE_NAMES[int(get_dtype(_dtype))] if isinstance(_dtype, str) else get_dtype(_dtype)
    if _module is None:
        import numpy as _module
    if name == "bool" and not hasattr(_module, "bool"):
        name = "bool_"
    return getattr(_module, name)


def read_dtype(_dtype):
    """A dtype from anything (numpy dtype, scalar type, name) -> kokkos dtype;
    returns the input unchanged when it names no kokkos dtype."""
    try:
        return dtype(_dtype_index(_dtype))
    except (TypeError, ValueError):
        return _dtype


def _dtype_index(obj):
    # The core parses every accepted spelling; a throwaway rank-0 check is
    # cheaper than duplicating its table here.
    return _core._dtype_index(obj)


# ---- construction ---------------------------------------------------------------


def _default_label(kind, dt, ndim, lay, space):
    return f"{kind}<{_DTYPE_NAMES[dt]}{'*' * ndim}, {get_layout(lay)}, {get_memory_space(space)}>"


def array(
    shape_label_or_array,
    shape=None,
    label=None,
    array=None,
    dtype=_UNSET,
    space=_UNSET,
    layout=_UNSET,
    trait=memory_trait.Managed,
    dynamic=False,
    order=None,
    copy=False,
):
    """Create a View, as pykokkos-base's ``kokkos.array``.

    The first argument is a label (str), a shape (list or tuple) or an array
    (anything with the buffer protocol or ``__array_interface__``, or a View).
    Arrays (buffer protocol, ``__array_interface__``, DLPack or
    ``__cuda_array_interface__``) are wrapped without copying (an Unmanaged
    View that keeps the array alive, in the array's memory space) unless
    ``copy=True`` or a different dtype, layout or ``space`` is asked for;
    then the data is copied into a new Kokkos allocation. Views from a shape
    default to HostSpace.
    """
    if isinstance(shape_label_or_array, str) and label is None:
        label = shape_label_or_array
    elif isinstance(shape_label_or_array, (list, tuple)) and shape is None:
        shape = list(shape_label_or_array)
        if any(isinstance(e, (list, tuple)) for e in shape):
            # A list is a shape, as in pykokkos-base; nested lists are data.
            raise TypeError(
                "kokkos.array(): a list or tuple is the View's shape (as in pykokkos-base), and this one holds "
                "sequences; to make a View holding this data use kokkos.array(numpy.array(data)), or "
                "kokkos.deep_copy(view, data) into a View of that shape"
            )
    elif array is None and not isinstance(shape_label_or_array, (str, list, tuple)):
        array = shape_label_or_array

    if order is not None:
        if not isinstance(order, str) or order.upper() not in ("C", "F"):
            raise ValueError(f"kokkos.array(): order must be 'C' or 'F', got {order!r}")
        if layout is _UNSET:
            layout = "LayoutRight" if order.upper() == "C" else "LayoutLeft"

    space_id = None if space is _UNSET else _core._space_index(space)
    traits = _core._trait_value(trait)

    if array is not None:
        return _from_array(array, label, dtype, space_id, layout, traits, dynamic, copy)

    if shape is None:
        raise TypeError("kokkos.array(): give a shape (list or tuple), a label and shape=, or an array")
    if traits & memory_trait.Unmanaged:
        raise ValueError(
            "kokkos.array(): an Unmanaged View wraps existing memory; pass the array "
            "(kokkos.array(ndarray, trait=kokkos.Unmanaged))"
        )
    dt = _dtype_index(float if dtype is _UNSET else dtype)
    if space_id is None:
        space_id = int(memory_space.HostSpace)
    lay = 0 if layout is _UNSET else _core._layout_index(layout)
    if label is None:
        ndim = 1 if isinstance(shape, int) else len(shape)
        label = _default_label("KokkosDynRankView" if dynamic else "KokkosView", dt, ndim, lay, space_id)
    cls = DynRankView if dynamic else View
    return cls(shape, dt, label=label, space=space_id, layout=lay, trait=traits)


def _has_buffer(obj):
    try:
        memoryview(obj).release()
        return True
    except TypeError:
        return False
    except Exception:
        return True


def _from_array(obj, label, dtype_arg, space_id, layout_arg, traits, dynamic, copy):
    try:
        wrapped = _core._wrap(obj, False, label, dynamic, traits | memory_trait.Unmanaged)
    except TypeError:
        # DLPack and __cuda_array_interface__ producers (PyTorch, CuPy, JAX);
        # host buffers keep the buffer protocol's answer.
        if _has_buffer(obj) or not (hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__")):
            raise
        shared = _core._view_from_object(obj, label)
        wrapped = _core._wrap(shared, False, label, dynamic, traits | memory_trait.Unmanaged)
    want_dt = wrapped.dtype if dtype_arg is _UNSET else _dtype_index(dtype_arg)
    want_layout = None if layout_arg is _UNSET else _core._layout_index(layout_arg)
    needs_copy = (
        copy
        or int(want_dt) != int(wrapped.dtype)
        or (space_id is not None and space_id != int(wrapped.space))
        or (want_layout is not None and want_layout != 2 and wrapped.ndim > 1 and want_layout != int(wrapped.layout))
    )
    if not needs_copy:
        return wrapped
    if space_id is None:
        space_id = int(wrapped.space)
    lay = want_layout if want_layout in (0, 1) else (1 if int(wrapped.layout) == 1 else 0)
    cls = DynRankView if dynamic else View
    if label is None:
        label = _default_label("KokkosDynRankView" if dynamic else "KokkosView", int(want_dt), wrapped.ndim, lay, space_id)
    out = cls(
        tuple(wrapped.shape),
        int(want_dt),
        label=label,
        space=space_id,
        layout=lay,
        trait=traits & ~memory_trait.Unmanaged,
        initialize=False,
    )
    deep_copy(out, wrapped if int(want_dt) == int(wrapped.dtype) else obj)
    return out


def unmanaged_array(*args, **kwargs):
    """Kept for compatibility: the same as kokkos.array (arrays are wrapped
    without copying and kept alive)."""
    return array(*args, **kwargs)


def create_mirror(src, copy=False, space=None):
    """Kokkos::create_mirror: a new host (or ``space``) View shaped like src."""
    return src.create_mirror(copy=copy, space=space)


def create_mirror_view(src, copy=False, space=None):
    """Kokkos::create_mirror_view: src itself when the host (or ``space``) can
    access it, else a new mirror."""
    return src.create_mirror_view(copy=copy, space=space)


def create_mirror_view_and_copy(space, src):
    """Kokkos::create_mirror_view_and_copy(space, src)."""
    return src.create_mirror_view(copy=True, space=space)


# dtype names with underscores (complex_float32_dtype, long_long, ...), longest first
_CLASS_DTYPES = {n: dtype[n].name for n in sorted(dtype.__members__, key=len, reverse=True) if "_" in n}


def _view_class_by_name(name):
    """The View class a name like KokkosView_float64_HostSpace_LayoutRight[_RandomAccess]_2 or
    KokkosDynRankView_int32_HostSpace_LayoutRight names, or None."""
    for prefix, dynamic in (("KokkosView_", False), ("KokkosDynRankView_", True)):
        if name.startswith(prefix):
            break
    else:
        return None
    rest = name[len(prefix) :]
    for long_name, short in _CLASS_DTYPES.items():
        if rest.startswith(long_name + "_"):
            rest = short + rest[len(long_name) :]
    parts = rest.split("_")
    rank = 0
    if not dynamic:
        if not parts or not parts[-1].isdigit():
            return None
        rank = int(parts.pop())
    if len(parts) < 3:
        return None
    dt, space, lay, *trait_names = parts
    try:
        traits = 0
        for t in trait_names:
            if t in ("Managed", "Unmanaged"):
                return None
            traits |= int(memory_trait[t])
        return _core._view_class(dynamic, dt, space, lay, traits, rank)
    except (KeyError, ValueError, TypeError, RuntimeError):
        return None
