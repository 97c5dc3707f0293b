"""One rule for every name Kokkos sees (docs/hardening.md): a View's label,
from whichever constructor it comes, and the names of regions, sections,
events, metadata, fences, space handles and tuning variables, must be a str
that UTF-8 encodes (no lone surrogate) and holds no NUL character (Kokkos
reads C strings: it would see the label cut). What one refuses, all refuse,
with ValueError; what one accepts, all accept, and a View copies, mirrors
and pickles whatever label it was made with."""

import copy
import pickle

import numpy as np
import pytest

import kokkos
import kokkos.tools as kt
import tools_fixtures
from support import run_python, succeeded

unraisable = tools_fixtures.unraisable

DATA = np.arange(4.0)

# Every way to make a View that takes a label.
CONSTRUCTORS = {
    "View": lambda label: kokkos.View((4,), label=label),
    "DynRankView": lambda label: kokkos.DynRankView((4,), label=label),
    "array": lambda label: kokkos.array(DATA, label=label),
    "array(copy=True)": lambda label: kokkos.array(DATA, label=label, copy=True),
    "array(label, shape)": lambda label: kokkos.array(label, shape=[4]),
    "unmanaged_array": lambda label: kokkos.unmanaged_array(DATA, label=label),
    "asarray": lambda label: kokkos.asarray(DATA, label=label),
    "asarray(copy=True)": lambda label: kokkos.asarray(DATA, label=label, copy=True),
    "from_dlpack": lambda label: kokkos.from_dlpack(DATA, label=label),
    "from_dlpack(copy=True)": lambda label: kokkos.from_dlpack(DATA, label=label, copy=True),
}

BAD = {
    "a\x00b": "must not contain NUL characters",
    "\x00": "must not contain NUL characters",
    "tail\x00": "must not contain NUL characters",
    "\ud800": "lone surrogate",
    "ok\udfffok": "lone surrogate",
}

GOOD = ["", "plain", "é ü ß", "日本語", "emoji \U0001f600", "L" * 5000, "with spaces\tand\ttabs"]

# Every name of Kokkos Tools and the runtime, each a call taking the name.
NAMES = {
    "fence": lambda name: kokkos.fence(name),
    "push_region": lambda name: kt.push_region(name),
    "region": lambda name: kt.region(name),
    "create_profile_section": lambda name: kt.create_profile_section(name),
    "mark_event": lambda name: kt.mark_event(name),
    "declare_metadata key": lambda name: kt.declare_metadata(name, "v"),
    "declare_metadata value": lambda name: kt.declare_metadata("k", name),
    "make_space_handle": lambda name: kt.make_space_handle(name),
    "SpaceHandle": lambda name: kt.SpaceHandle(name),
    "declare_output_type": lambda name: kt.declare_output_type(name, kt.VariableInfo(int, "ordinal", [1])),
    "tuning string": lambda name: kt.VariableInfo(str, "categorical", [name]),
    "initialize tools_args": lambda name: kokkos.initialize(tools_args=name),
}


@pytest.mark.parametrize("bad", list(BAD), ids=ascii)
@pytest.mark.parametrize("ctor", list(CONSTRUCTORS))
def test_every_constructor_refuses_the_same_labels(ctor, bad):
    with pytest.raises(ValueError, match=BAD[bad]):
        CONSTRUCTORS[ctor](bad)


@pytest.mark.parametrize("label", GOOD, ids=lambda s: ascii(s)[:20])
@pytest.mark.parametrize("ctor", list(CONSTRUCTORS))
def test_a_view_copies_mirrors_and_pickles_its_label(ctor, label):
    v = CONSTRUCTORS[ctor](label)
    assert v.label == label
    for other in (copy.copy(v), copy.deepcopy(v), pickle.loads(pickle.dumps(v))):
        assert other.label == label and np.array_equal(np.asarray(other), np.asarray(v))
    assert kokkos.create_mirror(v).label.startswith(label)
    assert v[1:].label == label


@pytest.mark.parametrize("bad", list(BAD), ids=ascii)
@pytest.mark.parametrize("call", list(NAMES))
def test_every_name_follows_the_same_rule(call, bad):
    with pytest.raises(ValueError, match=BAD[bad]):
        NAMES[call](bad)


@pytest.mark.parametrize("call", [c for c in NAMES if c != "initialize tools_args"])
def test_every_name_takes_any_text(call):
    NAMES[call]("é 日本 \U0001f600")


@pytest.mark.parametrize("bad", ["a\x00b", "\ud800"], ids=ascii)
def test_unpickling_a_forged_label_is_refused(bad):
    blob = pickle.dumps(kokkos.View((2,), label="abc"))
    assert blob.count(b"abc") == 1
    forged = blob.replace(b"abc", bad.encode("utf-8", "surrogatepass"))
    if len(bad.encode("utf-8", "surrogatepass")) != 3:
        pytest.skip("the forged label must keep the length the pickle records")
    with pytest.raises((ValueError, pickle.UnpicklingError)):
        pickle.loads(forged)


def test_kokkos_and_the_tools_see_the_whole_label(unraisable):
    seen = []
    kt.set_allocate_data_callback(lambda space, label, ptr, size: seen.append(label))
    try:
        label = "é 日本 \U0001f600 end"
        v = kokkos.View((1 << 10,), label=label)
        w = kokkos.asarray(np.zeros(3), label=label, copy=True)
    finally:
        kt.set_allocate_data_callback(None)
    assert seen == [label, label] and v.label == w.label == label
    assert not unraisable


def test_initialize_argv_follows_the_rule():
    code = """
        import kokkos
        for argv in (["prog", "a\\x00b"], ["prog", "\\ud800"]):
            try:
                kokkos.initialize(argv=argv)
            except ValueError as e:
                assert "argv[1]" in str(e), e
            else:
                raise AssertionError("accepted")
        assert not kokkos.is_initialized()
        print("done")
    """
    succeeded(run_python(code), "done", clean=True)


@pytest.mark.parametrize("length", [1, 7, 8, 9, 16, 31, 32, 33, 40])
def test_a_nul_anywhere_in_a_label_is_refused(length):
    """Labels are scanned for NUL a word at a time (up to 32 characters) or
    by memchr: a NUL at every position of every length is found."""
    for at in range(length):
        label = "x" * at + "\x00" + "y" * (length - at - 1)
        with pytest.raises(ValueError, match="NUL"):
            kokkos.View((2,), label=label)


def test_the_label_that_last_passed_lets_no_other_through():
    """The last label that passed is remembered (a loop's label passes on
    sight): a bad label after it, or a str subclass, is still read."""

    class Text(str):
        pass

    good = "".join(["lab", "el"])  # a str made at run time, not a constant
    for _ in range(3):
        assert kokkos.View((2,), label=good).label == good
    for bad in ("lab\x00el", Text("lab\x00el")):
        with pytest.raises(ValueError, match="NUL"):
            kokkos.View((2,), label=bad)
    ok = Text("label")
    assert kokkos.View((2,), label=ok).label == "label"
    with pytest.raises(ValueError, match="NUL"):
        kokkos.View((2,), label=Text("x\x00"))
