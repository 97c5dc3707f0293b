"""The original pykokkos-base helpers: array construction, mirrors, copies,
and name <-> enumeration conversions."""

from . import _core
from ._types import (
    _BUILD,
    _DTYPE_NAMES,
    _EXEC_NAMES,
    _LAYOUT_NAMES,
    _SPACE_NAMES,
    _TRAIT_NAMES,
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
    return _lookup(layout, _LAYOUT_NAMES, value, "layout")


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
    if not hasattr(_module, name) and hasattr(_module, name + "_"):
        name += "_"  # NumPy before 2.0 names its bool type bool_
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
# kokkos.array, unmanaged_array and the mirror functions live in the C core
# (src/core/array.c): their signatures show in help() as the core's.

array = _core.array
unmanaged_array = _core.unmanaged_array
create_mirror = _core.create_mirror
create_mirror_view = _core.create_mirror_view
create_mirror_view_and_copy = _core.create_mirror_view_and_copy
