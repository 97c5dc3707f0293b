"""The enumerations (kokkos.dtype, memory_space, layout, device,
memory_trait) behave as the integer enumerations users had: members are
ints with a name, print as ``dtype.float64``, are found by name, by value
and in order, keep their identity through pickle and copy, and the traits
combine as flags. kokkos/_types.py writes them without the enum module."""

import copy
import pickle

import pytest

import kokkos

ENUMS = [kokkos.dtype, kokkos.memory_space, kokkos.layout, kokkos.device, kokkos.memory_trait]


@pytest.mark.parametrize("enum", ENUMS, ids=lambda e: e.__name__)
def test_members_are_named_ints(enum):
    assert enum.__module__ == "kokkos" and enum.__qualname__ == enum.__name__
    for name, member in enum.__members__.items():
        assert type(member) is enum and isinstance(member, int) and not isinstance(member, bool)
        assert enum[name] is member and getattr(enum, name) is member
        assert enum(int(member)) is member and enum(member) is member
        assert member.value == int(member) and type(member.value) is int
        assert hash(member) == hash(int(member)) and member == int(member)
        assert repr(member) == f"<{enum.__name__}.{member.name}: {int(member)}>"
        assert str(member) == f"{enum.__name__}.{member.name}" == f"{member}" == format(member, "")
        assert format(member, "d") == str(int(member)) and f"{member:>4}" == f"{int(member):>4}"
        assert type(member + 1) is int and member + 1 == int(member) + 1
        assert pickle.loads(pickle.dumps(member)) is member
        assert pickle.loads(pickle.dumps(member, 0)) is member
        assert copy.copy(member) is member and copy.deepcopy(member) is member
        assert {int(member): "found"}[member] == "found"
    # names of aliases give the first member with that value
    assert all(enum[m.name] is m for m in enum.__members__.values())


def test_aliases_iteration_and_lookups():
    assert kokkos.double is kokkos.float64 is kokkos.dtype.double is kokkos.dtype["double"]
    assert kokkos.double.name == "float64" and kokkos.int is kokkos.int32
    names = [m.name for m in kokkos.dtype]
    assert names[:2] == ["int8", "int16"] and "double" not in names and len(kokkos.dtype) == len(names)
    assert [int(m) for m in kokkos.dtype] == list(range(len(kokkos.dtype)))
    assert list(reversed(kokkos.layout)) == [kokkos.LayoutStride, kokkos.LayoutLeft, kokkos.LayoutRight]
    assert "double" in kokkos.dtype.__members__ and len(kokkos.dtype.__members__) > len(kokkos.dtype)
    with pytest.raises(TypeError):
        kokkos.dtype.__members__["x"] = kokkos.float64  # read-only
    assert kokkos.float64 in kokkos.dtype and 9 in kokkos.dtype and "x" not in kokkos.dtype
    assert [] not in kokkos.dtype
    assert repr(kokkos.dtype) == "<enum 'dtype'>" and repr(kokkos.memory_trait) == "<flag 'memory_trait'>"
    assert kokkos.dtype.__doc__ and kokkos.memory_space.__doc__
    assert kokkos.memory_space(kokkos.LayoutLeft) is kokkos.memory_space(1)  # by value, as IntEnum


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: kokkos.dtype(999), ValueError, "999 is not a valid dtype"),
        (lambda: kokkos.memory_space(-1), ValueError, "-1 is not a valid memory_space"),
        (lambda: kokkos.layout("x"), ValueError, "'x' is not a valid layout"),
        (lambda: kokkos.memory_trait("Atomic"), ValueError, "'Atomic' is not a valid memory_trait"),
        (lambda: kokkos.dtype["nope"], KeyError, "nope"),
        (lambda: setattr(kokkos.dtype, "float64", 3), AttributeError, "cannot reassign member 'float64'"),
        (lambda: delattr(kokkos.layout, "LayoutLeft"), AttributeError, "cannot delete member 'LayoutLeft'"),
        (lambda: type("Mine", (kokkos.dtype,), {}), TypeError, "kokkos.dtype has members and cannot be subclassed"),
        (lambda: setattr(kokkos.float64, "name", "x"), AttributeError, "name"),
        (lambda: setattr(kokkos.float64, "other", 1), AttributeError, "other"),
    ],
)
def test_refusals(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_traits_combine_as_flags():
    t = kokkos.memory_trait
    assert [m.name for m in t] == ["Unmanaged", "RandomAccess", "Atomic", "Restrict", "Aligned"]  # no Managed (0)
    both = t.Atomic | t.RandomAccess
    assert type(both) is t and int(both) == 6 and both is t(6) is (t.RandomAccess | 4) is (4 | t.RandomAccess)
    assert both.name == "RandomAccess|Atomic" and repr(both) == "<memory_trait.RandomAccess|Atomic: 6>"
    assert str(both) == f"{both}" == "memory_trait.RandomAccess|Atomic"
    assert list(both) == [t.RandomAccess, t.Atomic] and len(both) == 2
    assert t.Atomic in both and t.Unmanaged not in both and t.Managed in t.Atomic
    assert (t.Atomic & t.RandomAccess) is t.Managed and str(t.Managed) == "memory_trait.Managed"
    assert t.Atomic ^ t.Unmanaged is t(5) and ~t.Atomic is t(27) and t(-1) is t(31)
    assert type(t.Atomic + 1) is int
    assert repr(t(64)) == "<memory_trait: 64>" and t(64).name is None and str(t(64)) == "memory_trait.64"
    assert t(63).name == "Unmanaged|RandomAccess|Atomic|Restrict|Aligned|32"
    assert pickle.loads(pickle.dumps(both)) is both
    assert not t.Managed and t.Atomic
    with pytest.raises(TypeError, match="'in' needs a memory_trait"):
        "Atomic" in t.Atomic  # noqa: B015


def test_dtype_members_compare_with_numpy_spellings():
    np = pytest.importorskip("numpy")
    assert kokkos.float64.dtype == np.dtype("float64") and np.dtype(kokkos.float32).name == "float32"
    assert kokkos.float64 == "double" and kokkos.float64 == np.float64 and kokkos.float64 != "int32"
    assert kokkos.float64 != None and not (kokkos.float64 == object())  # noqa: E711
    assert np.zeros(2, dtype=kokkos.int16).dtype == np.int16


def test_views_report_members():
    v = kokkos.View((2,))
    assert v.dtype is kokkos.float64 and v.space is kokkos.HostSpace and v.layout is kokkos.LayoutRight
    assert v.trait is kokkos.Managed
    with pytest.raises(TypeError, match="layout must be a kokkos layout .* got kokkos.HostSpace"):
        kokkos.array([2], layout=kokkos.HostSpace)


def test_enumerations_are_not_the_enum_modules():
    # kokkos/_types.py builds them itself (importing enum and making its
    # classes cost more than the rest of the package's Python).
    for enum in ENUMS:
        assert all(c.__module__ in ("builtins", "kokkos", "kokkos._types") for c in type(enum).__mro__ + enum.__mro__)
