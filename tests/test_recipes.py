"""Every build recipe of docs/building.md ("The recipes") works as written,
in a fresh virtual environment holding only the package (installed from a
wheel of this checkout, with its dependencies) and what the recipe says to
install first (issue 26): the recipe's files are written from the document,
its bash blocks run as they stand, and the module it builds is imported and
called. PATH holds only the venv and the system's /usr/bin and /bin, so a
tool the recipe does not install is not found.

One fresh venv per recipe, with this interpreter's Python; CI runs them with
its Python 3.11 (docs/building.md says which other versions were run by hand).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kokkos

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "building.md"

pytestmark = pytest.mark.skipif(
    kokkos.get_memory_space_available("CudaSpace") or shutil.which("g++") is None,
    reason="needs g++, and a Kokkos without CUDA (whose headers compile only with its nvcc_wrapper)",
)


def recipes():
    """{section title: [(language, file name or None, text)]} of the recipe
    sections, in document order."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("### The recipes")
    end = text.find("\n## ", start)
    text = text[start : end if end >= 0 else len(text)]
    found: dict[str, list[tuple[str, str | None, str]]] = {}
    for section in re.split(r"^### ", text, flags=re.M)[2:]:
        title, _, body = section.partition("\n")
        blocks = []
        for m in re.finditer(r"```(\w+)\n(.*?)```", body, re.S):
            before = body[: m.start()].rstrip().splitlines()
            line = before[-1] if before else ""
            names = re.findall(r"`([\w.-]+\.\w+)`", line)
            name = names[-1] if names and line.endswith(":") and m.group(1) != "bash" else None
            blocks.append((m.group(1), name, m.group(2)))
        found[title.strip()] = blocks
    return found


RECIPES = recipes()


def test_the_document_has_the_recipes():
    assert list(RECIPES) == [
        "setuptools with pybind11",
        "By hand with g++",
        "CMake with pybind11",
        "scikit-build-core",
        "nanobind (with scikit-build-core)",
    ]
    for title, blocks in RECIPES.items():
        first = blocks[0]
        assert first[0] == "bash" and first[2].startswith("pip install"), f"{title}: install first"


@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    """A wheel of this checkout, built as the suite's run built the package
    (scripts/suite.py's KOKKOS_PYTHON_BUILD_ARGS: the package's own Kokkos,
    for one), incrementally in build/recipes-pyX.Y[-<those options>]."""
    out = tmp_path_factory.mktemp("wheel")
    options = os.environ.get("KOKKOS_PYTHON_BUILD_ARGS", "").split()
    tag = hashlib.sha1(" ".join(options).encode()).hexdigest()[:8] if options else ""
    build_dir = f"build/recipes-py{sys.version_info[0]}.{sys.version_info[1]}" + (f"-{tag}" if tag else "")
    (ROOT / "build").mkdir(exist_ok=True)
    # one build at a time in that folder: the suite's workers each ask for the wheel
    with open(ROOT / f"{build_dir}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out)]
            + [f"-Cbuild-dir={build_dir}", *options, str(ROOT)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
        )
    assert r.returncode == 0, r.stdout + r.stderr
    (found,) = out.glob("pykokkos_base-*.whl")
    return found


# what pip says when it cannot reach the package index (a machine without a network)
OFFLINE = ("Failed to establish a new connection", "Temporary failure in name resolution", "Network is unreachable")


def fresh_env(tmp_path, wheel):
    """A new venv with the package (and NumPy, its dependency) and nothing
    else; the environment to run commands in it."""
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    env["VIRTUAL_ENV"] = str(venv)
    r = subprocess.run(["pip", "install", "-q", str(wheel)], env=env, capture_output=True, text=True, timeout=600)
    skip_if_offline(r)
    assert r.returncode == 0, r.stdout + r.stderr
    return env


def skip_if_offline(r):
    """Skips, saying so, when the command r failed because pip could not
    reach the package index: the recipes install from PyPI."""
    if r.returncode != 0 and any(words in r.stdout + r.stderr for words in OFFLINE):
        said = (r.stdout + r.stderr).strip().splitlines()[-1]
        pytest.skip(f"the recipes install from PyPI, which this machine cannot reach: {said}")


def run_bash(script, cwd, env, timeout=900):
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def write_files(title, project):
    """Writes the files of every recipe up to and including title (files
    carry over, as the document says); applies the nanobind recipe's change
    to CMakeLists.txt and pyproject.toml."""
    for t, blocks in RECIPES.items():
        for lang, name, text in blocks:
            if name:
                (project / name).write_text(text)
            elif t.startswith("nanobind") and lang == "cmake":
                cmake = (project / "CMakeLists.txt").read_text()
                start = cmake.index('execute_process(COMMAND "${Python_EXECUTABLE}" -m pybind11')
                end = cmake.index("\n", cmake.index("target_link_libraries(my_module", start))
                (project / "CMakeLists.txt").write_text(cmake[:start] + text.rstrip("\n") + cmake[end:])
                toml = project / "pyproject.toml"
                toml.write_text(toml.read_text().replace('"pybind11"]', '"nanobind"]'))
        if t == title:
            return


@pytest.mark.parametrize("title", list(RECIPES))
def test_recipe_works_as_written_in_a_fresh_venv(title, wheel, tmp_path):
    env = fresh_env(tmp_path, wheel)
    project = tmp_path / "project"
    project.mkdir()
    write_files(title, project)
    for lang, _, text in RECIPES[title]:
        if lang != "bash":
            continue
        r = run_bash(text, project, env)
        skip_if_offline(r)
        assert r.returncode == 0, f"{title}:\n{text}\n{r.stdout}{r.stderr}"
    assert r.stdout.split()[-3:] == ["[0.", "2.", "4.]"], r.stdout
    if title == "scikit-build-core":
        # without --no-build-isolation the package is not importable in the
        # build environment: the CMakeLists.txt says what to do
        shutil.rmtree(project / "build", ignore_errors=True)
        r = run_bash("pip install .", project, env)
        skip_if_offline(r)  # pip fetches the build requirements first
        assert r.returncode != 0
        out = " ".join((r.stdout + r.stderr).split())  # CMake wraps its messages
        assert "cannot import the kokkos package" in out and "No module named kokkos" in out, out
        assert "pip install pykokkos-base" in out and "pip install --no-build-isolation ." in out, out


def test_the_setuptools_recipe_without_what_it_installs_first_fails(wheel, tmp_path):
    """The reason the recipe installs setuptools, wheel and pybind11 first:
    without them the build stops (a fresh 3.11 venv has no pybind11, a 3.12+
    one no setuptools either)."""
    env = fresh_env(tmp_path, wheel)
    project = tmp_path / "project"
    project.mkdir()
    write_files("setuptools with pybind11", project)
    r = run_bash("pip install --no-build-isolation .", project, env)
    assert r.returncode != 0
    out = r.stdout + r.stderr
    # pip before 26 lets setuptools' own import fail; pip 26 names the
    # backend it cannot import (BackendUnavailable).
    said = ("No module named 'setuptools'", "No module named 'pybind11'", "Cannot import 'setuptools.build_meta'")
    assert any(words in out for words in said), out
