"""Every Python example in README.md runs: each ```python block in a fresh
interpreter (the MPI one under mpirun with two ranks), so the README stays
true. Blocks for hardware or packages this machine lacks (CuPy and CUDA
memory spaces) are skipped, and say why."""

import importlib.util
import re
from pathlib import Path

import pytest

from conftest import HAS_CUDA, run_python

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def _title(i, code):
    # the README section a block sits in, for the test id
    text = README.read_text(encoding="utf-8")
    heads = re.findall(r"^#+ (.*)$", text[: text.index(code)], re.M)
    return f"{i:02d}-" + re.sub(r"\W+", "_", heads[-1] if heads else "top").strip("_")[:40]


def test_the_readme_has_examples():
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("code", BLOCKS, ids=[_title(i, c) for i, c in enumerate(BLOCKS)])
def test_readme_example_runs(code, tmp_path):
    modules = set(re.findall(r"^\s*from\s+(\w+)", code, re.M))
    for names in re.findall(r"^\s*import\s+(.+)$", code, re.M):
        modules |= {name.split()[0].split(".")[0] for name in names.split(",")}
    if "cupy" in modules or ("kokkos.CudaSpace" in code and not HAS_CUDA):
        pytest.skip("a CUDA example: needs a GPU, CuPy and a Kokkos with CUDA")
    missing = sorted(m for m in modules if importlib.util.find_spec(m) is None)
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    if "mpi4py" in modules:
        from test_mpi import MPIRUN, mpirun

        if MPIRUN is None:
            pytest.skip("needs mpirun")
        script = tmp_path / "example.py"
        script.write_text(code)
        proc = mpirun(2, [str(script)])
    else:
        proc = run_python(code, timeout=180)
    assert proc.returncode == 0, f"the README example failed:\n{code}\n---\n{proc.stdout}\n{proc.stderr}"
