"""The Kokkos runtime from Python: initialize / finalize in every order,
Views alive at finalize (ours or the C++ side's), auto-initialize and
finalize at exit. Each scenario runs in its own interpreter, since Kokkos
initializes once per process."""

import numpy as np
import pytest

import kokkos
from support import failed, run_python, succeeded


def ok(code):
    return succeeded(run_python(code))


def test_in_process_state():
    assert kokkos.is_initialized()
    assert not kokkos.is_finalized()
    assert kokkos.initialize() is False, "already initialized"
    kokkos.fence()
    kokkos.fence("named fence")
    major, minor, patch = kokkos.kokkos_version()
    assert major >= 3
    backends = kokkos.enabled_backends()
    assert backends and set(backends) <= {"Serial", "Threads", "OpenMP", "Cuda", "HPX", "HIP", "SYCL", "OpenMPTarget"}
    assert "HostSpace" in kokkos.enabled_memory_spaces()


def test_fence_argument_errors():
    with pytest.raises(TypeError, match="label must be a str"):
        kokkos.fence(3)
    with pytest.raises(TypeError, match="at most 1 argument"):
        kokkos.fence("a", "b")


def test_print_configuration(capsys):
    kokkos.print_configuration()
    out = capsys.readouterr().out
    assert "Kokkos" in out or "KOKKOS" in out


def test_initialize_argument_errors():
    with pytest.raises(TypeError, match="argv must be a list of str"):
        kokkos.initialize("--kokkos-threads=2")
    with pytest.raises(TypeError, match=r"argv\[1\] must be a str"):
        kokkos._core._initialize(["python", 3], None, None, None, None, None, None)


def test_initialize_keyword_errors_in_fresh_process():
    ok(
        """
        import kokkos
        for kw, exc in [(dict(num_threads=-1), ValueError), (dict(num_threads="2"), TypeError),
                        (dict(tools_args=5), TypeError), (dict(device_id=-3), ValueError)]:
            try:
                kokkos.initialize(**kw)
            except exc as e:
                print("ok", e)
            else:
                raise SystemExit(f"{kw} accepted")
        assert not kokkos.is_initialized()
        """
    )


def test_initialize_finalize_cycle():
    r = ok(
        """
        import kokkos
        assert not kokkos.is_initialized() and not kokkos.is_finalized()
        assert kokkos.initialize(num_threads=1, disable_warnings=True) is True
        assert kokkos.initialize() is False
        assert kokkos.is_initialized()
        kokkos.finalize()
        assert kokkos.is_finalized() and not kokkos.is_initialized()
        kokkos.finalize()  # a second finalize is harmless
        try:
            kokkos.initialize()
        except RuntimeError as e:
            assert "finalized" in str(e)
            print("reinit refused")
        try:
            kokkos.View((2,))
        except RuntimeError as e:
            assert "finalized" in str(e)
            print("alloc refused")
        """
    )
    assert "reinit refused" in r.stdout and "alloc refused" in r.stdout


def test_print_configuration_keyword():
    r = ok("import kokkos; kokkos.initialize(print_configuration=True); kokkos.finalize()")
    assert "Kokkos" in r.stdout or "KOKKOS" in r.stdout


def test_view_creation_initializes_kokkos():
    ok(
        """
        import kokkos
        assert not kokkos.is_initialized()
        v = kokkos.View((3,))
        assert kokkos.is_initialized()
        """
    )


def test_live_views_at_finalize():
    r = ok(
        """
        import numpy as np, kokkos
        kokkos.initialize()
        v = kokkos.array("field", [100])
        sub = v[10:20]
        m = v.create_mirror_view()
        a = np.asarray(v)
        v[5] = 3.0
        w = kokkos.array("other", [4])
        kokkos.finalize()
        for view in (w, sub, m):
            assert view.released
            try:
                view[0]
            except RuntimeError as e:
                assert "'field'" in str(e) or "'other'" in str(e), e
            else:
                raise SystemExit("use after finalize did not raise")
        try:
            kokkos.deep_copy(w, 1.0)
        except RuntimeError as e:
            assert "'other'" in str(e)
        else:
            raise SystemExit("deep_copy into a released View did not raise")
        try:
            np.asarray(w)
        except RuntimeError as e:
            assert "released" in str(e)
        else:
            raise SystemExit("exporting a released View did not raise")
        assert "released" in repr(w)
        # memory exported to NumPy before finalize stays valid
        assert a[5] == 3.0
        del v, sub, m, w, a
        print("done")
        """
    )
    assert "done" in r.stdout


def test_finalize_at_exit_with_live_views():
    r = ok(
        """
        import kokkos
        v = kokkos.array("kept", [10])
        g = v[2:]
        print("exiting")
        """
    )
    assert "exiting" in r.stdout
    assert "rror" not in r.stderr and "abort" not in r.stderr.lower()


def test_cxx_side_finalize_releases_python_views():
    # The application's C++ code finalizes Kokkos directly (not through the
    # package): Kokkos' finalize hook must release the Python Views first.
    r = ok(
        """
        import ctypes, kokkos
        kokkos.initialize()
        v = kokkos.array("from_python", [1000])
        lib = next(l.split()[-1] for l in open("/proc/self/maps") if "kokkoscore" in l)
        core = ctypes.CDLL(lib)
        getattr(core, "_ZN6Kokkos8finalizeEv")()
        assert kokkos.is_finalized()
        assert v.released
        try:
            v[0]
        except RuntimeError as e:
            assert "from_python" in str(e)
            print("released by the C++ finalize")
        """
    )
    assert "released by the C++ finalize" in r.stdout


def test_seed_style_initialize_reads_argv():
    ok(
        """
        import sys, kokkos
        sys.argv = ["prog", "--kokkos-disable-warnings", "--some-user-flag"]
        assert kokkos.initialize() is True
        kokkos.finalize()
        """
    )


def test_array_after_finalize_in_process_is_refused_cleanly():
    # in-process: nothing here may finalize, so only check the error path of
    # a released allocation through a fresh interpreter
    r = run_python(
        """
        import kokkos
        kokkos.initialize(); v = kokkos.View((2,)); kokkos.finalize()
        v.create_mirror()
        """
    )
    failed(r, "RuntimeError", "released", returncode=1)


def test_numpy_outlives_everything():
    a = np.asarray(kokkos.array([3]))
    a[:] = 1
    assert a.sum() == 3
