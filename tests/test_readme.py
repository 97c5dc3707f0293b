"""Every Python example in the documentation runs: each ```python block of
README.md and docs/*.md in a fresh interpreter (a block that imports mpi4py
under mpirun with two ranks), so the documents stay true. Blocks for
hardware or packages this machine lacks (CuPy, CUDA memory spaces, mpirun)
are skipped, and say why. The guides say what holds now: a dated run record
belongs in the run log, docs/runs.md, and nowhere else."""

import importlib.util
import re
from pathlib import Path

import pytest

from support import HAS_CUDA, MPIRUN, mpirun, run_python

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_LOG = ROOT / "docs" / "runs.md"

# A date as the run log writes it (2026-12-07). A link into the run log
# (`runs.md#2026-12-07-...`) names a record there, and is no record itself.
DATE = re.compile(r"(?<![\w-])(?:19|20)\d\d-[01]\d-[0-3]\d(?![\w])")
RUN_LOG_LINK = re.compile(r"\((?:[\w./]*/)?runs\.md#[^)\s]*\)")

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


def dated_lines(text):
    """(line number, line) of every line of text that holds a date, links
    into the run log left out."""
    return [
        (n, line) for n, line in enumerate(text.splitlines(), 1) if DATE.search(RUN_LOG_LINK.sub("(runs.md)", line))
    ]


def test_a_dated_line_is_found_and_a_run_log_link_is_not():
    text = "a guide\nOn 2026-12-07 the suite passed.\n(measured: [run log](runs.md#2026-12-07-h100-machine))\n"
    assert dated_lines(text) == [(2, "On 2026-12-07 the suite passed.")]
    assert dated_lines("[log](docs/runs.md#2026-12-05-x) and on 2025-11-20") == [
        (1, "[log](docs/runs.md#2026-12-05-x) and on 2025-11-20")
    ]
    assert dated_lines("commit b42c805, Kokkos 4.6.01, 3.4.01, 1,048,576 draws, 12-06") == []


GUIDES = [path for path in DOCUMENTS if path != RUN_LOG]


@pytest.mark.parametrize("path", GUIDES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_guide_holds_a_dated_run_record(path):
    """README.md and every docs/*.md but the run log say what holds now,
    without dates: what was run on which day goes to docs/runs.md."""
    name = path.relative_to(ROOT).as_posix()
    found = dated_lines(path.read_text(encoding="utf-8"))
    where = "\n".join(f"{name}:{n}: {line.strip()}" for n, line in found)
    assert not found, f"dated run records belong in docs/runs.md (the guide says what holds now):\n{where}"


def test_the_run_log_is_records_in_date_order():
    """Every section of docs/runs.md but its table of machines is one record,
    headed by its date; records are in date order, the newest last."""
    heads = re.findall(r"^## (.*)$", RUN_LOG.read_text(encoding="utf-8"), re.M)
    records = [head for head in heads if head != "Machines"]
    assert records and "Machines" in heads
    undated = [head for head in records if not re.match(r"\d{4}-\d\d-\d\d, ", head)]
    assert not undated, f"docs/runs.md: records without a date first: {undated}"
    dates = [head[:10] for head in records]
    assert dates == sorted(dates), "docs/runs.md: records out of date order"


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
