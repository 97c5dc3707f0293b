"""Enumerations and small value types of the kokkos package.

The original pykokkos-base exposed dtypes, memory spaces, layouts, memory
traits and execution spaces as integer enumerations whose members are also
module attributes (``kokkos.double``, ``kokkos.HostSpace``, ...). Here each
is a class whose members are its instances and ints: they compare, hash and
convert as ints, have ``name`` and ``value``, print as ``dtype.float64``,
pickle and copy as themselves; the class is indexed by name
(``kokkos.dtype["double"]``), called with a value (``kokkos.dtype(9)``),
iterated in value order (aliases left out) and has ``__members__``, as the
standard library's IntEnum and IntFlag. They are written here rather than
taken from the ``enum`` module, which (with what it imports) takes longer
to import than the rest of the package.
"""

from . import _core

# Every name below comes from the core's tables (_core._tables(): dtype.c,
# space.c); nothing here spells one again. _BUILD: what this Kokkos offers.
_TABLES = _core._tables()
_BUILD = _core._build_info()

_mappingproxy = type(type.__dict__)


class _EnumType(type):
    """The type of the enumerations: access to the members by name, by
    value and in order."""

    def __call__(cls, value):
        members = cls.__dict__.get("_value2member_map_")
        if members is None:
            raise TypeError(f"{cls.__name__} has no members")
        try:
            return members[value]
        except (KeyError, TypeError):
            pass
        return cls._missing_(value)

    def __getitem__(cls, name):
        return cls._member_map_[name]

    def __iter__(cls):
        return iter(cls._member_list_)

    def __reversed__(cls):
        return reversed(cls._member_list_)

    def __len__(cls):
        return len(cls._member_list_)

    def __bool__(cls):
        return True

    def __contains__(cls, value):
        if isinstance(value, cls):
            return True
        try:  # a member's value (as Python 3.12's enums answer)
            return value in cls._value2member_map_
        except TypeError:  # unhashable: not a value of any member
            return False

    @property
    def __members__(cls):
        """Every name, aliases included, to its member (read-only)."""
        return _mappingproxy(cls._member_map_)

    def __repr__(cls):
        return f"<{cls._kind_} {cls.__name__!r}>"

    def __setattr__(cls, name, value):
        if name in cls.__dict__.get("_member_map_", ()):
            raise AttributeError(f"cannot reassign member {name!r}")
        type.__setattr__(cls, name, value)

    def __delattr__(cls, name):
        if name in cls.__dict__.get("_member_map_", ()):
            raise AttributeError(f"{cls.__name__!r} cannot delete member {name!r}.")
        type.__delattr__(cls, name)


class _Enum(int, metaclass=_EnumType):
    """Members print as ``dtype.float64``, like the original package's enums.
    A member is an int and nothing more (no __dict__): its name is its
    class's, by value."""

    __slots__ = ()
    _kind_ = "enum"

    def __init_subclass__(cls, **kwargs):
        for base in cls.__mro__[1:]:
            if base.__dict__.get("_member_map_"):
                raise TypeError(f"kokkos.{base.__name__} has members and cannot be subclassed")
        super().__init_subclass__(**kwargs)

    @property
    def name(self):
        """The member's name (an alias's member gives its canonical name)."""
        return type(self)._names_[int(self)]

    @property
    def value(self):
        """The member's integer value."""
        return int(self)

    @classmethod
    def _missing_(cls, value):
        raise ValueError(f"{value!r} is not a valid {cls.__name__}")

    def __repr__(self):
        name = self.name
        if name is None:
            return f"<{type(self).__name__}: {int(self)}>"
        return f"<{type(self).__name__}.{name}: {int(self)}>"

    def __str__(self):
        return f"{type(self).__name__}.{self.name}"

    def __format__(self, spec):
        return str(self) if not spec else int.__format__(int(self), spec)

    def __reduce_ex__(self, protocol):
        return type(self), (int(self),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _member(cls, name, value):
    cls._names_[value] = name
    return int.__new__(cls, value)


def _enumeration(name, base, members, doc):
    """A new enumeration class named name (module kokkos) with members, a
    list of (name, value) in order: a value seen before makes the name an
    alias of the first member with that value."""
    namespace = {"__module__": "kokkos", "__qualname__": name, "__doc__": doc, "__slots__": (), "_names_": {}}
    cls = _EnumType(name, (base,), namespace)
    by_name, by_value, canonical = {}, {}, []
    for member_name, value in members:
        member = by_value.get(value)
        if member is None:
            member = by_value[value] = _member(cls, member_name, value)
            canonical.append(member)
        by_name[member_name] = member
    for attr, value in (("_member_map_", by_name), ("_value2member_map_", by_value)):
        type.__setattr__(cls, attr, value)
    type.__setattr__(cls, "_member_list_", tuple(cls._list_members_(canonical)))
    for member_name, member in by_name.items():
        type.__setattr__(cls, member_name, member)
    return cls


_Enum._list_members_ = classmethod(lambda cls, canonical: canonical)


class _DTypeBase(_Enum):
    __slots__ = ()

    @property
    def dtype(self):
        """The NumPy dtype, so ``numpy.dtype(kokkos.float64)`` works."""
        import numpy

        return numpy.dtype(_DTYPE_NAMES[int(self)])

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

dtype = _enumeration(
    "dtype", _DTypeBase, _dtype_members, "View element types (kokkos.float64 is also kokkos.double, ...)."
)

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
memory_space = _enumeration("memory_space", _Enum, _space_members, "Kokkos memory spaces.")

layout = _enumeration("layout", _Enum, [(n, i) for i, n in enumerate(_LAYOUT_NAMES)], "Kokkos array layouts.")


class _TraitBase(_Enum):
    """Kokkos memory traits; combine them with | as Kokkos::MemoryTraits."""

    __slots__ = ()
    _kind_ = "flag"

    @classmethod
    def _list_members_(cls, canonical):
        # Iteration gives the single-bit members, as IntFlag's does.
        return [m for m in canonical if int(m) and not int(m) & (int(m) - 1)]

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{value!r} is not a valid {cls.__name__}")
        value = int(value)
        if value < 0:  # a complement: within the traits' bits, as IntFlag keeps it
            value &= cls._all_bits_
        member = cls._value2member_map_.get(value)
        if member is None:
            names = [m.name for m in cls._member_list_ if value & int(m)]
            rest = value & ~cls._all_bits_
            if rest and names:
                names.append(str(rest))
            member = _member(cls, "|".join(names) if names else None, value)
            cls._value2member_map_[value] = member
        return member

    def __str__(self):
        # memory_trait.Managed, memory_trait.RandomAccess|Atomic.
        if int(self) == 0:
            return f"memory_trait.{_TABLES['traits'][0][0]}"
        names = [m.name for m in type(self) if int(self) & int(m)]
        rest = int(self) & ~type(self)._all_bits_
        if rest:
            names.append(str(rest))
        return "memory_trait." + "|".join(names)

    def __or__(self, other):
        return type(self)(int(self) | int(other)) if isinstance(other, int) else NotImplemented

    def __and__(self, other):
        return type(self)(int(self) & int(other)) if isinstance(other, int) else NotImplemented

    def __xor__(self, other):
        return type(self)(int(self) ^ int(other)) if isinstance(other, int) else NotImplemented

    __ror__, __rand__, __rxor__ = __or__, __and__, __xor__

    def __invert__(self):
        return type(self)(int(self) ^ type(self)._all_bits_)

    def __contains__(self, other):
        """Whether every trait of other is one of these."""
        if not isinstance(other, int):
            raise TypeError(f"'in' needs a memory_trait, got {type(other).__name__}")
        return int(self) & int(other) == int(other)

    def __iter__(self):
        """The single traits combined here, in value order."""
        return (m for m in type(self) if int(self) & int(m))

    def __len__(self):
        return sum(1 for _ in self)


memory_trait = _enumeration("memory_trait", _TraitBase, list(_TABLES["traits"]), _TraitBase.__doc__)
type.__setattr__(memory_trait, "_all_bits_", sum(int(m) for m in memory_trait))

_device_members = [(n, i) for i, n in enumerate(_EXEC_NAMES)]
if _BUILD["default_execution_space"] >= 0:
    _device_members.append(("DefaultExecutionSpace", _BUILD["default_execution_space"]))
if _BUILD["default_host_execution_space"] >= 0:
    _device_members.append(("DefaultHostExecutionSpace", _BUILD["default_host_execution_space"]))
device = _enumeration("device", _Enum, _device_members, "Kokkos execution spaces (backends).")


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
