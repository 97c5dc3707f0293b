"""Several ranks, one GPU each (issue 16): kokkos.device_id(), kokkos.mpi and
examples/heat_multigpu.py. Host paths run everywhere MPI is installed; the
device paths need a CUDA Kokkos (and CuPy for the example's GPU run)."""

import importlib.util
import os

import pytest

import kokkos
from support import HAS_CUDA, SCENARIOS, mpirun, needs_mpi, python, run_python, succeeded

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "heat_multigpu.py")
HAS_CUPY = importlib.util.find_spec("cupy") is not None


def test_device_id_without_gpu_backend_is_none():
    if HAS_CUDA or kokkos.get_memory_space_available("HIPSpace"):
        pytest.skip("this Kokkos has a GPU backend")
    assert kokkos.device_id() is None


@pytest.mark.cuda
@pytest.mark.skipif(not HAS_CUDA, reason="needs a Kokkos with CUDA")
def test_device_id_follows_initialize():
    succeeded(
        run_python(
            """
            import kokkos
            kokkos.initialize(device_id=0)
            assert kokkos.device_id() == 0, kokkos.device_id()
            v = kokkos.View((4,), space=kokkos.CudaSpace)
            assert v.__dlpack_device__() == (2, 0)
            print("device", kokkos.device_id())
            """
        ),
        "device 0",
    )


def test_mpi_helpers_refuse_what_is_not_a_view():
    # No MPI needed to reject a wrong argument.
    from kokkos import mpi as kmpi

    with pytest.raises(TypeError, match="expected a kokkos.View, got list"):
        kmpi.buffer([1, 2])
    with pytest.raises(TypeError, match="expected a kokkos.View"), kmpi.staged("x"):
        pass


@needs_mpi
@pytest.mark.parametrize("value, aware", [("1", True), ("0", False)])
def test_gpu_awareness_can_be_overridden(value, aware):
    # For MPI libraries that cannot be asked: KOKKOS_MPI_GPU_AWARE decides.
    succeeded(
        run_python(
            f"""
            from mpi4py import MPI
            import kokkos
            from kokkos import mpi as kmpi
            assert kmpi.cuda_aware() is {aware}
            v = kokkos.View((3,))
            assert kmpi.buffer(v) is v  # host memory goes to MPI as it is, either way
            print("ok")
            """,
            env={"KOKKOS_MPI_GPU_AWARE": value},
        ),
        "ok",
    )


def cuda_aware_refused(setup, message):
    """kokkos.mpi.cuda_aware() raises RuntimeError with message after setup
    (lines of Python run first in a fresh interpreter)."""
    code = setup + (
        "\nfrom kokkos import mpi as kmpi\n"
        "try:\n"
        "    kmpi.cuda_aware()\n"
        "except RuntimeError as e:\n"
        f"    assert {message!r} in str(e), e\n"
        "    print('refused')\n"
    )
    succeeded(run_python(code, unset=("KOKKOS_MPI_GPU_AWARE",)), "refused")


@needs_mpi
def test_gpu_awareness_needs_mpi_initialized():
    cuda_aware_refused("import mpi4py\nmpi4py.rc.initialize = False\nfrom mpi4py import MPI", "MPI is not initialized")


def test_gpu_awareness_without_mpi4py_says_to_install_it():
    # mpi4py made unimportable: the question cannot be answered without it
    cuda_aware_refused("import sys\nsys.modules['mpi4py'] = None", "needs mpi4py (pip install mpi4py)")


@needs_mpi
def test_mpi_helpers_under_mpirun():
    proc = mpirun(2, [str(SCENARIOS / "mpi_views.py")])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


def test_heat_example_one_rank():
    succeeded(python(EXAMPLE, "--n", "48", "--steps", "100", timeout=300), "1 rank(s)", ": OK")


@needs_mpi
@pytest.mark.parametrize("nprocs", [2, 3])
def test_heat_example_ranks_agree_with_one(nprocs):
    proc = mpirun(nprocs, [EXAMPLE, "--n", "48", "--steps", "100", "--exchange", "mpi"], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{nprocs} rank(s)" in proc.stdout and "max |ranks - serial| = 0" in proc.stdout and ": OK" in proc.stdout


@needs_mpi
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs PyTorch")
def test_heat_example_through_torch_distributed():
    # gloo on host Views: the tensors are the Views' memory (torch.from_dlpack).
    proc = mpirun(2, [EXAMPLE, "--n", "48", "--steps", "100", "--exchange", "torch", "--space", "host"], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 rank(s)" in proc.stdout and "exchange torch" in proc.stdout
    assert "max |ranks - serial| = 0" in proc.stdout and ": OK" in proc.stdout


@pytest.mark.cuda
@pytest.mark.skipif(not (HAS_CUDA and HAS_CUPY), reason="needs a CUDA Kokkos and CuPy")
@pytest.mark.parametrize("exchange", ["nccl", "mpi"])
def test_heat_example_on_the_gpu_one_rank(exchange):
    proc = succeeded(python(EXAMPLE, "--n", "128", "--steps", "200", "--exchange", exchange, timeout=300), ": OK")
    assert "GPU (device 0" in proc.stdout


@pytest.mark.cuda
@needs_mpi
@pytest.mark.skipif(not (HAS_CUDA and HAS_CUPY), reason="needs a CUDA Kokkos and CuPy")
def test_heat_example_two_ranks_share_one_gpu_through_staging():
    # Two ranks on one GPU: NCCL refuses two ranks on one device, so the halo
    # rows go through MPI, staged via pinned host memory when the MPI has no
    # CUDA support.
    proc = mpirun(2, [EXAMPLE, "--n", "128", "--steps", "200", "--exchange", "mpi"], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 rank(s)" in proc.stdout and "GPU (device" in proc.stdout and ": OK" in proc.stdout


@pytest.mark.cuda
@needs_mpi
@pytest.mark.skipif(not (HAS_CUDA and HAS_CUPY), reason="needs a CUDA Kokkos and CuPy")
def test_heat_example_on_a_shared_gpu_picks_mpi_and_refuses_nccl():
    import cupy

    if cupy.cuda.runtime.getDeviceCount() >= 2:
        pytest.skip("two ranks get two GPUs here")
    proc = mpirun(2, [EXAMPLE, "--n", "64", "--steps", "20"], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "exchange mpi" in proc.stdout and ": OK" in proc.stdout
    for exchange in ("nccl", "torch"):
        proc = mpirun(2, [EXAMPLE, "--n", "64", "--steps", "20", "--exchange", exchange], timeout=300)
        assert proc.returncode != 0
        assert "NCCL needs one GPU per rank" in proc.stderr, proc.stdout + proc.stderr


@pytest.mark.skipif(HAS_CUDA and HAS_CUPY, reason="this machine can put the field on a GPU")
def test_heat_example_without_a_gpu_refuses_space_device():
    proc = python(EXAMPLE, "--n", "16", "--steps", "2", "--space", "device", timeout=120)
    assert proc.returncode != 0 and "--space device needs a CUDA Kokkos and CuPy" in proc.stderr
