"""The core's one argument parser (src/core/base/args.c) and the functions on it:
keyword and positional errors name the function, enumeration arguments take
only members of their own family, documented calls keep their spellings, and
Unmanaged Views never copy."""

import inspect
import pickle
import re

import numpy as np
import pytest

import kokkos

# ---- enumeration families ---------------------------------------------------------------

FAMILIES = {
    "dtype": (kokkos.float32, r"dtype must be a kokkos dtype"),
    "space": (kokkos.HostSpace, r"space must be a kokkos memory space"),
    "layout": (kokkos.LayoutLeft, r"layout must be a kokkos layout \(kokkos.LayoutRight, kokkos.LayoutLeft"),
    "trait": (kokkos.RandomAccess, r"trait must be a kokkos memory trait"),
}
# one member of every family, with the name the message shows for it
MEMBERS = [
    ("dtype", kokkos.float32, "kokkos.float32"),
    ("space", kokkos.HostSpace, "kokkos.HostSpace"),
    ("layout", kokkos.LayoutLeft, "kokkos.LayoutLeft"),
    ("trait", kokkos.RandomAccess, "kokkos.RandomAccess"),
    ("device", kokkos.device.Serial, "kokkos.device.Serial"),
]


def _calls():
    """(function name, which argument, call(value)) for every function that
    takes a dtype, space, layout or trait."""
    arr = np.zeros((2, 3))

    def view():
        return kokkos.View((2,))

    yield "kokkos.View()", "dtype", lambda x: kokkos.View((2,), dtype=x)
    yield "kokkos.View()", "space", lambda x: kokkos.View((2,), space=x)
    yield "kokkos.View()", "layout", lambda x: kokkos.View((2,), layout=x)
    yield "kokkos.View()", "trait", lambda x: kokkos.View((2,), trait=x)
    yield "kokkos.DynRankView()", "dtype", lambda x: kokkos.DynRankView((2,), x)
    yield "kokkos.DynRankView()", "space", lambda x: kokkos.DynRankView((2,), space=x)
    yield "kokkos.DynRankView()", "layout", lambda x: kokkos.DynRankView((2,), layout=x)
    yield "kokkos.DynRankView()", "trait", lambda x: kokkos.DynRankView((2,), trait=x)
    for arg in ("dtype", "space", "layout", "trait"):
        yield "kokkos.array()", arg, lambda x, arg=arg: kokkos.array([2], **{arg: x})
        yield "kokkos.array()", arg, lambda x, arg=arg: kokkos.array(arr, **{arg: x})
        yield "kokkos.unmanaged_array()", arg, lambda x, arg=arg: kokkos.unmanaged_array(arr, **{arg: x})
    for arg in ("dtype", "space", "layout"):
        yield "kokkos.asarray()", arg, lambda x, arg=arg: kokkos.asarray(arr, **{arg: x})
    yield "kokkos.create_mirror()", "space", lambda x: kokkos.create_mirror(view(), space=x)
    yield "kokkos.create_mirror_view()", "space", lambda x: kokkos.create_mirror_view(view(), space=x)
    yield "kokkos.create_mirror_view_and_copy()", "space", lambda x: kokkos.create_mirror_view_and_copy(x, view())
    yield "View.create_mirror()", "space", lambda x: view().create_mirror(space=x)
    yield "View.create_mirror_view()", "space", lambda x: view().create_mirror_view(space=x)


CASES = [
    pytest.param(fn, arg, call, family, member, shown, id=f"{fn}-{arg}-{family}")
    for fn, arg, call in _calls()
    for family, member, shown in MEMBERS
    if family != arg
]


@pytest.mark.parametrize("fn, arg, call, family, member, shown", CASES)
def test_member_of_another_family_is_refused(fn, arg, call, family, member, shown):
    _, pattern = FAMILIES[arg]
    with pytest.raises(TypeError, match=rf"^{re.escape(fn)}: {pattern}.*got {re.escape(shown)}$"):
        call(member)


@pytest.mark.parametrize("fn, arg, call", [pytest.param(*c, id=f"{c[0]}-{c[1]}") for c in _calls()])
def test_member_of_its_own_family_is_accepted(fn, arg, call):
    member = {
        "dtype": kokkos.float64,
        "space": kokkos.HostSpace,
        "layout": kokkos.LayoutRight,
        "trait": kokkos.RandomAccess,
    }[arg]
    assert isinstance(call(member), kokkos.View)


def test_layout_family_message_in_full():
    with pytest.raises(TypeError) as e:
        kokkos.array([3], layout=kokkos.HostSpace)
    assert str(e.value) == (
        "kokkos.array(): layout must be a kokkos layout (kokkos.LayoutRight, kokkos.LayoutLeft, "
        "kokkos.LayoutStride) or its name, got kokkos.HostSpace"
    )


@pytest.mark.parametrize(
    "kwargs, check",
    [
        (dict(dtype="float32"), lambda v: v.dtype == kokkos.float32),
        (dict(dtype="double"), lambda v: v.dtype == kokkos.float64),
        (dict(dtype=np.int16), lambda v: v.dtype == kokkos.int16),
        (dict(dtype=np.dtype("uint8")), lambda v: v.dtype == kokkos.uint8),
        (dict(dtype=int), lambda v: v.dtype == kokkos.int64),
        (dict(dtype=kokkos.int32), lambda v: v.dtype == kokkos.int32),
        (dict(dtype=2), lambda v: v.dtype == kokkos.int32),
        (dict(space="HostSpace"), lambda v: v.space == kokkos.HostSpace),
        (dict(space="Host"), lambda v: v.space == kokkos.HostSpace),
        (dict(space=kokkos.Serial), lambda v: v.space == kokkos.HostSpace),
        (dict(space=0), lambda v: v.space == kokkos.HostSpace),
        (dict(layout="LayoutLeft"), lambda v: v.layout == kokkos.LayoutLeft),
        (dict(layout="Left"), lambda v: v.layout == kokkos.LayoutLeft),
        (dict(layout=1), lambda v: v.layout == kokkos.LayoutLeft),
        (dict(order="F"), lambda v: v.layout == kokkos.LayoutLeft),
        (dict(trait="RandomAccess"), lambda v: v.trait == kokkos.RandomAccess),
        (dict(trait=kokkos.RandomAccess | kokkos.Restrict), lambda v: v.trait == 10),
        (dict(trait=kokkos.Managed), lambda v: v.trait == kokkos.Managed),
    ],
)
def test_accepted_spellings(kwargs, check):
    assert check(kokkos.array([2, 2], **kwargs))


@pytest.mark.parametrize("space", [kokkos.HPX, "HPX"])
def test_hpx_names_the_host_space(space):
    # kokkos.HPX is memory_space.HostSpace, as in the original: the string agrees
    assert kokkos.View((2,), space=space).space == kokkos.HostSpace


def test_unknown_names_are_value_errors():
    with pytest.raises(ValueError, match=r"kokkos.array\(\): unknown memory space 'Nowhere'"):
        kokkos.array([2], space="Nowhere")
    with pytest.raises(ValueError, match=r"kokkos.View\(\): unknown layout 'Diagonal'"):
        kokkos.View((2,), layout="Diagonal")
    with pytest.raises(ValueError, match=r"kokkos.asarray\(\): unknown dtype 'float99'"):
        kokkos.asarray(np.zeros(2), dtype="float99")


# ---- the parser's own errors --------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: kokkos.array([3], foo=1), r"^kokkos.array\(\): got an unexpected keyword argument 'foo'$"),
        (lambda: kokkos.array([3], [4], shape=[5]), r"^kokkos.array\(\): got multiple values for argument 'shape'$"),
        (lambda: kokkos.array(), r"^kokkos.array\(\): missing required argument 'shape_label_or_array'$"),
        (lambda: kokkos.array(*[None] * 12), r"^kokkos.array\(\): takes 11 positional arguments but 12 were given$"),
        (
            lambda: kokkos.asarray(np.zeros(2), kokkos.float32),
            r"^kokkos.asarray\(\): takes 1 positional argument but 2 were given$",
        ),
        (
            lambda: kokkos.asarray(np.zeros(2), copy=1),
            r"^kokkos.asarray\(\): copy must be True, False or None, got int",
        ),
        (lambda: kokkos.View(), r"^kokkos.View\(\): missing required argument 'shape'$"),
        (lambda: kokkos.View((2,), sharp=1), r"^kokkos.View\(\): got an unexpected keyword argument 'sharp'$"),
        (lambda: kokkos.View("x", (2,), shape=(3,)), r"^kokkos.View\(\): got multiple values for argument 'shape'$"),
        (lambda: kokkos.View("x", (2,), 3), r"^kokkos.View\(\): takes \(shape, dtype\) or \(label, shape\)"),
        (lambda: kokkos.DynRankView((2,), bogus=1), r"^kokkos.DynRankView\(\): got an unexpected keyword argument"),
        (lambda: kokkos.create_mirror(), r"^kokkos.create_mirror\(\): missing required argument 'src'$"),
        (lambda: kokkos.create_mirror_view_and_copy(kokkos.HostSpace), r"missing required argument 'src'$"),
        (lambda: kokkos.create_mirror_view(np.zeros(2)), r"^kokkos.create_mirror_view\(\): src must be a kokkos View"),
        (lambda: kokkos.array([2], label=3), r"^kokkos.array\(\): label must be a str, got int$"),
        (lambda: kokkos.array(np.zeros(2), label=3), r"^kokkos.array\(\): label must be a str, got int$"),
        (lambda: kokkos.asarray(np.zeros(2), label=3), r"^kokkos.asarray\(\): label must be a str, got int$"),
        (lambda: kokkos.array("x"), r"give a shape \(list or tuple\), a label and shape=, or an array"),
    ],
)
def test_parser_errors_name_the_function(call, message):
    with pytest.raises(TypeError, match=message):
        call()


@pytest.mark.parametrize("first", [[3], np.zeros(3)])
def test_labels_with_nul_characters_are_refused(first):
    with pytest.raises(ValueError, match=r"kokkos.array\(\): label must not contain NUL characters"):
        kokkos.array(first, label="a\0b", copy=True)


def test_order_must_be_c_or_f():
    with pytest.raises(ValueError, match=r"^kokkos.array\(\): order must be 'C' or 'F', got 'K'$"):
        kokkos.array([2], order="K")


def test_copy_argument_with_a_failing_truth():
    class NoTruth:
        def __bool__(self):
            raise RuntimeError("no")

    with pytest.raises(TypeError, match=r"kokkos.array\(\): copy must be True or False, got NoTruth"):
        kokkos.array(np.zeros(2), copy=NoTruth())
    with pytest.raises(TypeError, match=r"kokkos.create_mirror\(\): copy must be True or False, got NoTruth"):
        kokkos.create_mirror(kokkos.View((2,)), copy=NoTruth())


def test_keywords_built_at_run_time_match():
    name = "".join(["dt", "ype"])  # not interned: compared by value
    assert kokkos.array([2], **{name: kokkos.int8}).dtype == kokkos.int8
    assert kokkos.View((2,), **{name: kokkos.int8}).dtype == kokkos.int8


KEYWORDS = {
    "label": "kw",
    "dtype": kokkos.int16,
    "space": kokkos.HostSpace,
    "layout": kokkos.LayoutLeft,
    "trait": kokkos.RandomAccess,
    "dynamic": True,
}


@pytest.mark.parametrize(
    "order",
    [list(KEYWORDS), list(reversed(KEYWORDS)), ["layout", "label", "dynamic", "dtype", "trait", "space"]],
    ids=["signature order", "reversed", "scattered"],
)
def test_keywords_bind_in_any_order(order):
    # the parser looks after the previous keyword's parameter first and
    # wraps around: every order binds each keyword to its own parameter
    v = kokkos.array([2, 3], **{k: KEYWORDS[k] for k in order})
    assert (v.label, v.dtype, v.space, v.layout) == ("kw", kokkos.int16, kokkos.HostSpace, kokkos.LayoutLeft)
    assert v.trait == kokkos.RandomAccess and isinstance(v, kokkos.DynRankView) and v.shape == (2, 3)
    with pytest.raises(TypeError, match=r"^kokkos.array\(\): got multiple values for argument 'shape'$"):
        kokkos.array([3], [4], **{k: KEYWORDS[k] for k in order}, shape=[5])
    with pytest.raises(TypeError, match=r"^kokkos.array\(\): got an unexpected keyword argument 'nope'$"):
        kokkos.array([3], **{k: KEYWORDS[k] for k in order}, nope=1)


def test_view_subclass_construction_goes_through_the_same_parser():
    class Mine(kokkos.View):
        pass

    m = Mine((2, 2), kokkos.int32, label="m")
    assert type(m) is Mine and m.dtype == kokkos.int32 and m.label == "m"
    with pytest.raises(TypeError, match=r"kokkos.View\(\): layout must be a kokkos layout"):
        Mine((2,), layout=kokkos.HostSpace)


# ---- messages the issue asks for -------------------------------------------------------------


def test_a_flat_list_of_floats_is_read_as_a_shape():
    with pytest.raises(
        TypeError, match=r"flat list or tuple is read as the View's shape .*numpy.array\(\[1.5, 2.5\]\)"
    ):
        kokkos.array([1.5, 2.5])


def test_an_int_is_not_view_memory():
    with pytest.raises(TypeError, match=r"kokkos.array\(\): cannot use an object of type int as View memory.*NumPy"):
        kokkos.array(123, [3])


def test_signatures_show_real_defaults():
    for fn in (
        kokkos.array,
        kokkos.unmanaged_array,
        kokkos.asarray,
        kokkos.create_mirror,
        kokkos.create_mirror_view,
        kokkos.create_mirror_view_and_copy,
    ):
        sig = inspect.signature(fn)
        assert "object at" not in str(sig)
    assert str(inspect.signature(kokkos.create_mirror)) == "(src, copy=False, space=None)"
    assert inspect.signature(kokkos.array).parameters["dynamic"].default is False


def test_default_labels_are_the_originals():
    assert kokkos.array([3]).label == "KokkosView<float64*, LayoutRight, HostSpace>"
    assert kokkos.array([3, 3], dtype=kokkos.int32, dynamic=True).label == (
        "KokkosDynRankView<int32**, LayoutRight, HostSpace>"
    )
    assert kokkos.array([2, 2], layout=kokkos.LayoutLeft).label == "KokkosView<float64**, LayoutLeft, HostSpace>"
    a, b = kokkos.array([3]), kokkos.array([4])
    assert a.label is b.label  # made once, cached
    assert kokkos.array("mine", [3]).label == "mine"
    copied = kokkos.array(np.zeros(3, np.float32), dtype=kokkos.float64)
    assert copied.label == "KokkosView<float64*, LayoutRight, HostSpace>"


# ---- Unmanaged Views never copy -------------------------------------------------------------


def test_unmanaged_column_is_wrapped_strided_and_writes_reach_the_array():
    base = np.zeros((4, 3))
    col = base[:, 1]
    v = kokkos.array(col, trait=kokkos.Unmanaged)
    assert v.layout == kokkos.LayoutStride and v.trait & kokkos.Unmanaged
    kokkos.deep_copy(v, 7.0)  # the core's fill kernel writes through the View
    v[2] = 9.0
    assert base[:, 1].tolist() == [7.0, 7.0, 9.0, 7.0] and (base[:, 0] == 0).all() and (base[:, 2] == 0).all()


def test_unmanaged_array_of_a_non_contiguous_array_shares_memory():
    base = np.zeros((4, 6), np.int32)
    sub = base[::2, ::3]
    v = kokkos.unmanaged_array(sub)
    assert v.layout == kokkos.LayoutStride and v.shape == (2, 2)
    kokkos.deep_copy(v, np.array([[1, 2], [3, 4]], np.int32))
    assert base[::2, ::3].tolist() == [[1, 2], [3, 4]] and base.sum() == 10


def test_unmanaged_keeps_the_arrays_strides_over_a_layout_asked_for():
    base = np.zeros((2, 3))
    v = kokkos.unmanaged_array(base, layout=kokkos.LayoutLeft)
    v[1, 2] = 5.0
    assert base[1, 2] == 5.0 and v.layout == kokkos.LayoutRight


@pytest.mark.parametrize(
    "call, reason",
    [
        (lambda a: kokkos.array(a, trait=kokkos.Unmanaged, dtype=kokkos.float32), "its dtype is float64, not"),
        (lambda a: kokkos.unmanaged_array(a, dtype=kokkos.int32), "its dtype is float64, not"),
        (lambda a: kokkos.unmanaged_array(a, copy=True), r"copy=True"),
    ],
)
def test_unmanaged_refuses_to_copy(call, reason):
    with pytest.raises(
        ValueError, match=rf"an Unmanaged View never copies, but this ndarray would need a copy \({reason}"
    ):
        call(np.zeros((3, 2))[:, 1])


def test_unmanaged_of_a_shape_is_refused():
    with pytest.raises(ValueError, match=r"kokkos.unmanaged_array\(\): an Unmanaged View wraps existing memory"):
        kokkos.unmanaged_array([3])
    with pytest.raises(ValueError, match=r"kokkos.array\(\): an Unmanaged View wraps existing memory"):
        kokkos.array([3], trait=kokkos.Unmanaged)


def test_managed_array_copies_only_when_asked():
    base = np.zeros(3)
    shared = kokkos.array(base)
    copied = kokkos.array(base, copy=True)
    shared[0] = 1.0
    copied[1] = 1.0
    assert base.tolist() == [1.0, 0.0, 0.0]
    assert not (copied.trait & kokkos.Unmanaged)


def test_pickled_views_round_trip():
    v = kokkos.array([2, 2], dtype=kokkos.int16)
    v[1, 1] = 3
    w = pickle.loads(pickle.dumps(v, protocol=5))
    assert w.dtype == kokkos.int16 and w[1, 1] == 3


@pytest.mark.parametrize(
    "array, asked, copies",
    [
        (np.zeros((3, 4)), {}, False),
        (np.zeros((3, 4)), {"layout": "LayoutRight"}, False),
        (np.zeros((3, 4)), {"layout": "LayoutLeft"}, True),
        (np.zeros((3, 4), order="F"), {"layout": "LayoutLeft"}, False),
        (np.zeros((3, 4))[:, ::2], {"layout": "LayoutStride"}, False),
        (np.arange(8.0)[::2], {}, False),
        (np.arange(8.0)[::2], {"layout": "LayoutRight"}, True),  # a strided rank-1 array is not LayoutRight
        (np.arange(8.0), {"layout": "LayoutLeft"}, False),  # contiguous rank 1 fits both orders
        (np.zeros(4), {"dtype": "float32"}, True),
        (np.zeros(4), {"copy": True}, True),
    ],
)
def test_array_and_asarray_share_the_view_or_copy_rule(array, asked, copies):
    # kokkos.array and kokkos.asarray decide alike whether a View of the
    # array's memory will do; they differ only in what the result keeps
    # (kokkos.array's copy is labelled like an allocation, asarray's by its
    # producer) and kokkos.asarray's copy=False refusal
    kw = {k: (getattr(kokkos, v) if k == "layout" else v) for k, v in asked.items()}
    for made in (kokkos.array(array, **kw), kokkos.asarray(array, **kw)):
        assert (made.data != array.ctypes.data) == copies
        if "layout" in asked and asked["layout"] != "LayoutStride":
            assert made.layout == getattr(kokkos, asked["layout"])
        if copies:
            np.testing.assert_array_equal(np.asarray(made), array)
    if copies and not asked.get("copy"):
        with pytest.raises(ValueError, match="needs a copy"):
            kokkos.asarray(array, copy=False, **kw)
