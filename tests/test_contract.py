"""The Python API as a contract (issue 13): a star import leaves the
built-ins alone, one auto-initialization rule, messages that say what was
wrong and what to do, the build helpers' paths, the documented
create_mirror_view behaviour. What needs a fresh process runs
tests/scenarios/contract.py.
"""

from __future__ import annotations

import builtins
import os

import numpy as np
import pytest

import kokkos
from support import TOOLS_VARIABLES, run_scenario, succeeded

# ---- __all__ and star imports --------------------------------------------------------


def test_star_import_leaves_the_builtins_alone():
    ns: dict = {}
    exec("from kokkos import *", ns)
    for name in ("float", "int", "bool"):
        assert name not in ns
    exec("x = float('3.5'); y = int('4'); z = bool(0)", ns)
    assert (ns["x"], ns["y"], ns["z"]) == (3.5, 4, False)
    assert ns["View"] is kokkos.View and ns["float64"] is kokkos.float64 and ns["HostSpace"] is kokkos.HostSpace
    # the shadowing names stay attributes of the package
    assert kokkos.float is kokkos.float32 and kokkos.int is kokkos.int32


def test_all_lists_existing_public_names_once():
    assert len(set(kokkos.__all__)) == len(kokkos.__all__)
    for name in kokkos.__all__:
        assert hasattr(kokkos, name), name
        assert not name.startswith("_") and not hasattr(builtins, name), name
    for name in ("array", "deep_copy", "asarray", "initialize", "tools", "get_kokkos_include", "LayoutLeft"):
        assert name in kokkos.__all__


# ---- memory traits print their names -------------------------------------------------


def test_memory_traits_print_names():
    assert str(kokkos.array("t", [2]).trait) == "memory_trait.Managed"
    assert str(kokkos.memory_trait.Unmanaged) == "memory_trait.Unmanaged"
    both = kokkos.RandomAccess | kokkos.Atomic
    assert str(both) == "memory_trait.RandomAccess|Atomic" and f"{both}" == str(both)
    assert int(both) == 6 and f"{both:d}" == "6"


# ---- messages ------------------------------------------------------------------------


def test_huge_shape_memory_error_has_no_kokkos_traceback_text():
    with pytest.raises(MemoryError, match=r"failed to allocate memory for label \"huge\"") as e:
        kokkos.array("huge", [2**40, 2**10], dtype=kokkos.double)
    assert "Traceback" not in str(e.value) and not str(e.value).endswith("\n")


def test_tools_libs_path_that_does_not_exist_raises_before_initializing(tmp_path):
    missing = tmp_path / "libnothere.so"
    with pytest.raises(ValueError, match=r"tools_libs: '.*libnothere\.so' does not exist"):
        kokkos.initialize(tools_libs=str(missing))
    with pytest.raises(ValueError, match="does not exist"):
        kokkos.initialize(tools_libs=["libfound_by_the_loader.so", missing])
    with pytest.raises(TypeError, match="tools_libs must be a path or a list of paths, got int"):
        kokkos.initialize(tools_libs=3)


def test_bad_numeric_kokkos_argument_names_it():
    succeeded(run_scenario("contract", "bad_threads_argument"), "OK", clean=True)


def test_unloadable_tools_library_warns():
    succeeded(run_scenario("contract", "unloadable_tools_library", unset=TOOLS_VARIABLES), "OK", clean=True)


@pytest.mark.parametrize("how", ["initialize", "auto"])
@pytest.mark.parametrize("variable", ["KOKKOS_TOOLS_LIBS", "KOKKOS_PROFILE_LIBRARY"])
def test_unloadable_tools_library_from_the_environment_warns(variable, how):
    """The warning names the variable this Kokkos reads and what happened,
    also when Kokkos initializes on first use (issue 26)."""
    env = {variable: "libkokkos_python_no_such_tool.so"}
    proc = run_scenario(
        "contract", "unloadable_tools_library_from_environment", variable, how, env=env, unset=TOOLS_VARIABLES
    )
    succeeded(proc, "OK", clean=True)


def test_profile_library_loaded_is_documented_as_false_before_initialize():
    import kokkos.tools as kt

    doc = " ".join(kt.profile_library_loaded.__doc__.split())
    assert "False before Kokkos is initialized" in doc and "KOKKOS_PROFILE_LIBRARY" in doc


# ---- the auto-initialization rule ----------------------------------------------------


@pytest.mark.parametrize("kind", ["view", "array", "scalar"])
def test_deep_copy_before_initialize_initializes(kind):
    succeeded(run_scenario("contract", "deep_copy_before_initialize", kind), "OK", clean=True)


@pytest.mark.parametrize("kind", ["view", "array", "scalar"])
def test_deep_copy_after_finalize_raises(kind):
    succeeded(run_scenario("contract", "deep_copy_after_finalize", kind), "OK", clean=True)


# ---- create_mirror_view on the host --------------------------------------------------


def test_create_mirror_view_docstrings_say_host_views_are_returned_as_is():
    v = kokkos.array("m", [3])
    assert kokkos.create_mirror_view(v, copy=True) is v
    assert v.create_mirror_view(copy=True) is v
    for doc in (kokkos.create_mirror_view.__doc__, kokkos.View.create_mirror_view.__doc__):
        text = " ".join(doc.split())
        assert "itself" in text and ("nothing is copied" in text or "no copy" in text), text


# ---- build helpers -------------------------------------------------------------------


def test_build_helpers_point_at_kokkos():
    inc = kokkos.get_kokkos_include()
    assert os.path.exists(os.path.join(inc, "Kokkos_Core.hpp"))
    assert os.path.exists(kokkos.get_kokkos_library())
    dirs = kokkos.include_dirs()
    assert dirs[0] == kokkos.get_include() and inc in dirs
    assert os.path.exists(os.path.join(kokkos.get_include(), "kokkos_python", "kokkos_python.hpp"))
    assert kokkos.get_kokkos_library() in kokkos.ldflags()
    cfg = kokkos.build_config()
    assert cfg["kokkos_include_dir"] == inc and cfg["kokkos_version"]


def test_deep_copy_between_numpy_views_copies():
    dst = kokkos.asarray(np.zeros(4))
    kokkos.deep_copy(dst, kokkos.asarray(np.arange(4.0)))
    assert np.asarray(dst).tolist() == [0.0, 1.0, 2.0, 3.0]


# ---- typing ----------------------------------------------------------------------------


def test_installed_package_ships_its_stubs_and_py_typed():
    root = os.path.dirname(kokkos.__file__)
    for rel in ("py.typed", "__init__.pyi", "_core.pyi", os.path.join("tools", "__init__.pyi")):
        assert os.path.exists(os.path.join(root, rel)), rel


# ---- the dtype strings "float" and "int" (issue 26) ----------------------------------


@pytest.mark.parametrize(("name", "numpy", "original"), [("float", "float64", "float32"), ("int", "int64", "int32")])
def test_ambiguous_dtype_strings_are_refused_naming_both_spellings(name, numpy, original):
    pattern = (
        rf"dtype '{name}' is ambiguous: NumPy reads it as {numpy}, pykokkos-base's kokkos.{name} is "
        rf"{original}; write '{numpy}' or '{original}'"
    )
    with pytest.raises(ValueError, match=rf"kokkos.array\(\): {pattern}"):
        kokkos.array([2], dtype=name)
    with pytest.raises(ValueError, match=pattern):
        kokkos.View((2,), name)
    # what the message offers works, and the original's attributes keep their meaning
    assert kokkos.array([2], dtype=numpy).dtype == getattr(kokkos, numpy)
    assert kokkos.View((2,), original).dtype == getattr(kokkos, original)
    assert getattr(kokkos, name) is getattr(kokkos, original)
    assert kokkos.get_dtype(name) is getattr(kokkos, original)
    # Python's types follow NumPy
    assert kokkos.View((2,), {"float": float, "int": int}[name]).dtype == getattr(kokkos, numpy)


@pytest.mark.parametrize(("order", "layout"), [("C", "LayoutRight"), ("F", "LayoutLeft")])
def test_layout_strings_c_and_f_are_numpy_orders(order, layout):
    assert kokkos.View((2, 3), layout=order).layout == getattr(kokkos, layout)
    assert kokkos.array([2, 3], layout=order).layout == getattr(kokkos, layout)
