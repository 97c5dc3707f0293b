"""Every Python example in the documentation runs: each ```python block of
README.md and docs/*.md in a fresh interpreter (a block that imports mpi4py
under mpirun with two ranks), so the documents stay true. Blocks for
hardware or packages this machine lacks (CuPy, CUDA memory spaces, mpirun)
are skipped, and say why."""

import importlib.util
import re
from pathlib import Path

import pytest

from support import HAS_CUDA, MPIRUN, mpirun, run_python

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# What marks a block as one for a GPU: a CUDA memory space, or a CUDA tensor.
CUDA_WORDS = ("kokkos.CudaSpace", "kokkos.CudaUVMSpace", "kokkos.CudaHostPinnedSpace", 'device="cuda"')


def _blocks(path):
    """(test id, code) of every ```python block of path; the id names the
    document and the section the block sits in."""
    text = path.read_text(encoding="utf-8")
    found = []
    for i, match in enumerate(re.finditer(r"```python\n(.*?)```", text, re.S)):
        before = re.sub(r"```.*?```", "", text[: match.start()], flags=re.S)  # comments in code are no headings
        heads = re.findall(r"^#+ (.*)$", before, re.M)
        section = re.sub(r"\W+", "_", heads[-1] if heads else "top").strip("_")[:40]
        found.append((f"{path.stem}-{i:02d}-{section}", match.group(1)))
    return found


BLOCKS = [block for path in DOCUMENTS for block in _blocks(path)]


def test_the_readme_has_examples():
    assert len(_blocks(ROOT / "README.md")) >= 10


def test_the_readme_starts_with_the_commands_ci_runs():
    """The README opens with `make example` and `make test`; CI (.ci/run)
    runs that same `make test`, and the Makefile has both targets."""
    first = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert commands == ["make example", "make test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^(leg \"[^\"]*\" )?make test$", ci, re.M), "CI does not run `make test` as a command of its own"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\nexample:" in makefile and "\ntest:" in makefile


def test_the_readme_stays_a_guide():
    """The reference lives in docs/; the README stays under 500 lines."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) < 500


def test_every_document_is_collected():
    assert {p.name for p in DOCUMENTS} >= {"README.md", "architecture.md", "exchange.md", "tools.md"}


def _imported(code):
    modules = set(re.findall(r"^\s*from\s+(\w+)", code, re.M))
    for names in re.findall(r"^\s*import\s+(.+)$", code, re.M):
        modules |= {name.split()[0].split(".")[0] for name in names.split(",")}
    return modules


@pytest.mark.parametrize("code", [code for _, code in BLOCKS], ids=[name for name, _ in BLOCKS])
def test_documented_example_runs(code, tmp_path):
    modules = _imported(code)
    if "cupy" in modules or (any(w in code for w in CUDA_WORDS) and not HAS_CUDA):
        pytest.skip("a CUDA example: needs a GPU, CuPy and a Kokkos with CUDA")
    missing = sorted(m for m in modules if importlib.util.find_spec(m) is None)
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    if "mpi4py" in modules:
        if MPIRUN is None:
            pytest.skip("needs mpirun")
        script = tmp_path / "example.py"
        script.write_text(code)
        proc = mpirun(2, [script])
    else:
        proc = run_python(code, timeout=180)
    assert proc.returncode == 0, f"the documented example failed:\n{code}\n---\n{proc.stdout}\n{proc.stderr}"
