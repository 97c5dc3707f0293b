"""Enumerations and small value types of the kokkos package.

The original pykokkos-base exposed dtypes, memory spaces, layouts, memory
traits and execution spaces as enumerations whose members are also module
attributes (``kokkos.double``, ``kokkos.HostSpace``, ...). They are IntEnums
here, so they compare and convert like the originals' integer enums.
"""

from enum import IntEnum, IntFlag

from . import _core

# Every name below comes from the core's tables (_core._tables(): dtype.c,
# space.c); nothing here spells one again. _BUILD: what this Kokkos offers.
_TABLES = _core._tables()
_BUILD = _core._build_info()


class _Enum(IntEnum):
    """Members print as ``dtype.float64``, like the original package's enums."""

    def __str__(self):
        return f"{type(self).__name__}.{self.name}"


class _DTypeBase(_Enum):
    @property
    def dtype(self):
        """The NumPy dtype, so ``numpy.dtype(kokkos.float64)`` works."""
        import numpy

        return numpy.dtype(_DTYPE_NAMES[self.value])

    def __eq__(self, other):
        # Ints (and members) compare as the integer enum they always were;
        # every other spelling kokkos accepts for a dtype (numpy.float32,
        # numpy.dtype("<f4"), "float32", float, ...) compares equal to the
        # element type it names, as NumPy's dtypes compare.
        if isinstance(other, int):
            return int(self) == int(other)
        try:
            return int(self) == _core._dtype_index(other)
        except Exception:  # not a dtype spelling: not equal, as numpy.dtype.__eq__
            return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = int.__hash__


_DTYPE_INFO = _TABLES["dtypes"]
_DTYPE_NAMES = tuple(info[0] for info in _DTYPE_INFO)
_DTYPE_SUPPORTED = _TABLES["dtype_supported"]
_dtype_members = []
for _i, (_name, _aliases, _size, _fmt, _ts) in enumerate(_DTYPE_INFO):
    _dtype_members.append((_name, _i))
for _i, (_name, _aliases, _size, _fmt, _ts) in enumerate(_DTYPE_INFO):
    _dtype_members.extend((_alias, _i) for _alias in _aliases)

dtype = _DTypeBase("dtype", _dtype_members, module="kokkos")
dtype.__doc__ = "View element types (kokkos.float64 is also kokkos.double, ...)."

_SPACE_NAMES = tuple(_TABLES["space_names"])
# (name, backend, memory kind) per space: backend "host", "cuda", "hip", ...;
# memory kind "host", "device" (device-only), "managed" or "pinned".
_SPACE_ROWS = tuple((name, *row) for name, row in zip(_SPACE_NAMES, _TABLES["space_rows"], strict=True))
# The host's own memory space: the first row of kind "host".
_HOST_SPACE = next(i for i, (_, _, kind) in enumerate(_SPACE_ROWS) if kind == "host")
_LAYOUT_NAMES = tuple(_TABLES["layout_names"])
_EXEC_NAMES = tuple(_TABLES["exec_names"])
_TRAIT_NAMES = tuple(name for name, _flag in _TABLES["traits"])
_space_members = [(n, i) for i, n in enumerate(_SPACE_NAMES)]
if _BUILD["default_memory_space"] >= 0:
    _space_members.append(("DefaultMemorySpace", _BUILD["default_memory_space"]))
if _BUILD["default_host_memory_space"] >= 0:
    _space_members.append(("DefaultHostMemorySpace", _BUILD["default_host_memory_space"]))
# The aliases of the core's table: the original's backend names (kokkos.Host,
# kokkos.Cuda, ...: kokkos.Host is HostSpace) and Kokkos 4's SharedSpace /
# SharedHostPinnedSpace, those two only where the backend has them.
for _alias, _target in _TABLES["space_aliases"]:
    if not _alias.startswith("Shared") or _BUILD["space_available"][_target]:
        _space_members.append((_alias, _target))
# The original's HIPManagedSpace: a name (its own value) for code that lists
# the spaces; no View lives there yet (kokkos.array raises, naming it).
_space_members.append(("HIPManagedSpace", len(_SPACE_NAMES)))
memory_space = _Enum("memory_space", _space_members, module="kokkos")
memory_space.__doc__ = "Kokkos memory spaces."

layout = _Enum("layout", [(n, i) for i, n in enumerate(_LAYOUT_NAMES)], module="kokkos")
layout.__doc__ = "Kokkos array layouts."


class _TraitBase(IntFlag):
    """Kokkos memory traits; combine them with | as Kokkos::MemoryTraits."""

    def __str__(self):
        # Names on every Python (3.11 prints IntFlags as their int):
        # memory_trait.Managed, memory_trait.RandomAccess|Atomic.
        if self.value == 0:
            return f"memory_trait.{_TABLES['traits'][0][0]}"
        names = [m.name for m in type(self) if m.value and (self.value & m.value) == m.value]
        rest = self.value & ~sum(m.value for m in type(self))
        if rest:
            names.append(str(rest))
        return "memory_trait." + "|".join(names)

    def __format__(self, spec):
        return str(self) if not spec else int.__format__(int(self), spec)


memory_trait = _TraitBase("memory_trait", list(_TABLES["traits"]), module="kokkos")
memory_trait.__doc__ = _TraitBase.__doc__

_device_members = [(n, i) for i, n in enumerate(_EXEC_NAMES)]
if _BUILD["default_execution_space"] >= 0:
    _device_members.append(("DefaultExecutionSpace", _BUILD["default_execution_space"]))
if _BUILD["default_host_execution_space"] >= 0:
    _device_members.append(("DefaultHostExecutionSpace", _BUILD["default_host_execution_space"]))
device = _Enum("device", _device_members, module="kokkos")
device.__doc__ = "Kokkos execution spaces (backends)."


class Shape(tuple):
    """A View's extents: a tuple that also equals the list the original
    package returned (``view.shape == [2, 3]`` and ``== (2, 3)``), and prints
    like that list."""

    __slots__ = ()

    def __eq__(self, other):
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__

    def __repr__(self):
        return repr(list(self))


_core._register_enums(
    tuple(dtype(i) for i in range(len(_DTYPE_NAMES))),
    tuple(memory_space(i) for i in range(len(_SPACE_NAMES))),
    tuple(layout(i) for i in range(len(_LAYOUT_NAMES))),
    memory_trait,
    Shape,
    device,
)

all_dtypes = tuple(dtype(i) for i in range(len(_DTYPE_NAMES)))
"""Every dtype a View can hold: the numeric ones, then bool and float16."""
# (bool and float16 were appended to the C numbering after them)
dtypes = tuple(d for d in all_dtypes if d < dtype.bool)
"""The original package's dtypes: integers, floats and complex (code written
for it loops over them storing small integers)."""
memory_spaces = tuple(memory_space(i) for i in range(len(_SPACE_NAMES)))
layouts = tuple(layout)
memory_traits = tuple(memory_trait[name] for name in _TRAIT_NAMES)
devices = tuple(device(i) for i in range(len(_EXEC_NAMES)))
