"""docs/architecture.md against the tree: its table of files per layer lists
exactly the files there are, the C core's calls go down the layers (and,
inside a layer, down the order the table lists), every bridge entry point is
noexcept, and every enum name is spelled once. The documentation cannot
drift silently from the code."""

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kokkos

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"


def _table():
    """The rows of 'Files per layer': (layer, directory, [files])."""
    text = DOC.read_text()
    section = text.split("## Files per layer", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[1].startswith("`"):
            continue
        files = re.findall(r"`([^`]+)`", cells[2])
        rows.append((cells[0], cells[1].strip("`"), files))
    assert rows, "docs/architecture.md has no table of files per layer"
    return rows


ROWS = _table()
LISTED_DIRS = {d for _, d, _ in ROWS}


def _files_in(directory):
    return {p.name for p in (ROOT / directory).iterdir() if p.is_file()}


@pytest.mark.parametrize("directory", sorted(LISTED_DIRS))
def test_table_lists_every_file_of_its_directories(directory):
    listed = [f for _, d, files in ROWS if d == directory for f in files]
    assert len(listed) == len(set(listed)), f"{directory}: a file listed twice"
    present = _files_in(directory)
    assert set(listed) == present, (
        f"docs/architecture.md's table and {directory} differ: "
        f"not in the tree {sorted(set(listed) - present)}, not in the table {sorted(present - set(listed))}"
    )


def test_table_covers_every_source_directory():
    dirs = set()
    for top in ("src/core", "src/bridge", "src/kokkos", "include/kokkos_python"):
        for p in (ROOT / top).rglob("*"):
            if p.is_file() and "__pycache__" not in p.parts:
                dirs.add(str(p.parent.relative_to(ROOT)) + "/")
    assert dirs == LISTED_DIRS, f"directories missing from the table: {sorted(dirs - LISTED_DIRS)}"


# ---- the C core's calls go down --------------------------------------------------------------

CORE_ROWS = [(layer, d, files) for layer, d, files in ROWS if d.startswith("src/core")]
# Position of every core file: its layer's row, then its place in the row.
RANK = {
    f"{d}{f}": (row, pos)
    for row, (_, d, files) in enumerate(CORE_ROWS)
    for pos, f in enumerate(files)
    if f.endswith(".c")
}
DEFINITION = re.compile(r"^[A-Za-z_][\w \*]*?\b(kp_\w+)\s*\([^;]*?\)\s*\{", re.M | re.S)
CALL = re.compile(r"\b(kp_\w+)\s*\(")


def _strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def _definitions():
    where = {}
    for path in RANK:
        for name in DEFINITION.findall(_strip_comments((ROOT / path).read_text())):
            where[name] = path
    return where


# A file-scope variable of the core (a table, a type spec, the module definition).
DATA = re.compile(
    r"^(?!static\b|typedef\b|extern\b|return\b)[A-Za-z_][\w \*]*?\b(kp_\w+)\s*(?:\[[^\]]*\])*\s*[=;]", re.M
)
# The one reference upward, by identity (docs/architecture.md says why).
UPWARD = {("src/core/base/state.c", "kp_module_def")}


def _data():
    where = {}
    for path in RANK:
        for name in DATA.findall(_strip_comments((ROOT / path).read_text())):
            where[name] = path
    return where


def _references_up():
    """(file, name, defining file) for every call of a core function and
    every use of a core variable that goes up the layers (or up the order
    of a layer's row)."""
    calls, data = _definitions(), _data()
    up = []
    for path, rank in RANK.items():
        text = _strip_comments((ROOT / path).read_text())
        names = {(n, calls.get(n)) for n in CALL.findall(text)}
        names |= {(n, data[n]) for n in re.findall(r"\b(kp_\w+)\b", text) if n in data}
        for name, target in names:
            if target and target != path and RANK[target] > rank:
                up.append((path, name, target))
    return up


def test_core_references_go_down_the_layers():
    assert len(_definitions()) > 100, "the definition pattern found too few functions"
    assert len(_data()) > 10, "the variable pattern found too few variables"
    up = [f"{p} uses {n} ({t})" for p, n, t in _references_up() if (p, n) not in UPWARD]
    assert not up, (
        "calls or data references up the layers (or up the order of a layer's row in docs/architecture.md):\n"
        + "\n".join(sorted(up))
    )


def test_the_one_reference_upward_is_the_one_documented():
    assert {(p, n) for p, n, _ in _references_up()} == UPWARD
    text = DOC.read_text()
    for path, name in UPWARD:
        assert f"`{path.removeprefix('src/core/')}`" in text and f"`{name}`" in text


# ---- bridge entry points ----------------------------------------------------------------------


def test_every_bridge_entry_point_is_noexcept():
    missing = []
    count = 0
    for path in sorted((ROOT / "src" / "bridge").glob("*.cpp")):
        text = path.read_text()
        for m in re.finditer(r'extern "C" (?!\{)[^{;]*?\)\s*(noexcept\s*)?\{', text):
            count += 1
            if not m.group(1):
                missing.append(f"{path.name}: {m.group(0).splitlines()[0]}")
    assert count >= 60, f'found only {count} extern "C" definitions'
    assert not missing, "bridge entry points without noexcept:\n" + "\n".join(missing)


def test_every_bridge_declaration_is_kp_noexcept():
    missing = []
    for path in sorted((ROOT / "src" / "bridge").glob("*.h")):
        text = _strip_comments(path.read_text())
        for m in re.finditer(r"^(?!typedef)[a-z][\w \*]*\bkp_\w+\([^;]*\)\s*(KP_NOEXCEPT)?\s*;", text, re.M):
            if not m.group(1):
                missing.append(f"{path.name}: {m.group(0).splitlines()[0]}")
    assert not missing, "bridge declarations without KP_NOEXCEPT:\n" + "\n".join(missing)


# ---- every enum name spelled once -------------------------------------------------------------


def _code_files():
    for p in sorted([*(ROOT / "src").rglob("*"), *(ROOT / "include").rglob("*")]):
        if p.suffix in (".c", ".h", ".cpp", ".hpp", ".py") and "__pycache__" not in p.parts:
            text = p.read_text()
            if p.suffix == ".py":
                text = re.sub(r"#.*", "", text)
            else:
                text = re.sub(r"//[^\n]*", "", _strip_comments(text))
            yield p.relative_to(ROOT), text


# Other families that share a word with a dtype, each spelled in its own
# table: Kokkos Tools' tuning ValueType.int64, DLPack's type code "bool".
OTHER_FAMILIES = {"int64": ["src/core/tools/tuning.c"], "bool": ["src/core/exchange/dlpack.c"]}
# Every name of the four families is spelled in the public header's rows.
TABLES = "include/kokkos_python/tables.h"
SPACE_HOME = TRAIT_HOME = TABLES


@pytest.mark.parametrize(
    "names, home",
    [
        ([t.name for t in kokkos.memory_traits], TRAIT_HOME),
        ([s.name for s in kokkos.memory_spaces], SPACE_HOME),
        ([lay.name for lay in kokkos.layouts], TABLES),
        ([d.name for d in kokkos.all_dtypes], TABLES),
    ],
    ids=["memory traits", "memory spaces", "layouts", "dtypes"],
)
def test_enum_names_are_spelled_once(names, home):
    for name in names:
        spelled = [str(path) for path, text in _code_files() if f'"{name}"' in text]
        assert sorted(spelled) == sorted([home, *OTHER_FAMILIES.get(name, [])]), (
            f'"{name}" is spelled in {spelled}, not only in {home}'
        )


# Files whose messages still spell names (none now; a file being rewritten
# may be listed while it is).
PENDING: set[str] = set()
C_LITERALS = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+')


def _literals(path, text):
    """The string literals of a file's code (adjacent C literals joined),
    without documentation: Python docstrings and C's Py_tp_doc slots."""
    if path.suffix != ".py":
        text = re.sub(r"\{Py_tp_doc,[^}]*\}", "", text)
        text = re.sub(r'const char kp_doc_\w+\[\] =\s*(?:"(?:[^"\\\n]|\\.)*"\s*)+;', "", text)  # docstrings
        return [m.group(0) for m in C_LITERALS.finditer(text)]
    tree = ast.parse((ROOT / path).read_text())
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


@pytest.mark.parametrize("family", ["memory spaces", "memory traits"])
def test_messages_build_space_and_trait_names_from_their_table(family):
    """No string of src/ (messages included) spells a memory-space name, or
    names a memory trait as kokkos.<trait> or lists two or more traits,
    outside the family's table: messages take the names from the rows."""
    if family == "memory spaces":
        names, home = [s.name for s in kokkos.memory_spaces], SPACE_HOME
        spelled = re.compile(r"\b(" + "|".join(names) + r")\b")
    else:
        names, home = [t.name for t in kokkos.memory_traits], TRAIT_HOME
        spelled = re.compile(r"(?:kokkos\.|memory_trait\.)(" + "|".join(names) + r")\b")
    listed = re.compile(r"\b(" + "|".join(names) + r")\b")
    found = []
    for path, text in _code_files():
        if str(path) in (home, *PENDING):
            continue
        for literal in _literals(path, text):
            if spelled.search(literal) or len(set(listed.findall(literal))) >= 2:
                found.append(f"{path}: {literal[:100]}")
    assert not found, f"{family} spelled outside {home}:\n" + "\n".join(found)


# ---- functions stay short ---------------------------------------------------------------------

FUNCTION_START = re.compile(r"^(?!typedef|struct|enum)[A-Za-z_][^;=]*\)\s*\{\s*$")


def test_no_core_function_is_over_100_lines():
    long = []
    for path in sorted((ROOT / "src" / "core").rglob("*.c")):
        if str(path.relative_to(ROOT)) in PENDING:
            continue
        start = None
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if FUNCTION_START.match(line):
                start = (number, line)
            elif line == "}" and start:
                if number - start[0] + 1 > 100:
                    long.append(f"{path.relative_to(ROOT)}:{start[0]}: {number - start[0] + 1} lines")
                start = None
    assert not long, "functions over 100 lines:\n" + "\n".join(long)


# ---- the tests, benchmarks and scripts section ---------------------------------------------


def test_every_script_is_listed():
    section = DOC.read_text().split("## Tests, benchmarks and scripts", 1)[1]
    missing = [p.name for p in sorted((ROOT / "scripts").iterdir()) if p.is_file() and p.name not in section]
    assert not missing, f"scripts not in docs/architecture.md: {missing}"


# ---- the build's lines ------------------------------------------------------------------------


# Each header of the core, by the row of the table that lists it (core.h,
# what every layer shares, aside): a file includes a layer's header only
# when it is of that layer's row or one below it in the table.
SHARED_HEADERS = {"src/core/core.h"}
HEADER_ROW = {
    f"{d}{f}": row
    for row, (_, d, files) in enumerate(CORE_ROWS)
    for f in files
    if f.endswith(".h") and f"{d}{f}" not in SHARED_HEADERS
}
# The directories whose headers CMakeLists.txt puts on the include path of
# their layer and the layers above only (base/ is on every file's path).
LAYER_HEADER_DIRS = ("model", "copy", "exchange", "access", "tools")


def _header_path(including, name):
    """The core header an #include "name" of file including finds: beside it,
    else a core header of that name (the include paths have one each)."""
    beside = including.parent / name
    if beside.is_file():
        return str(beside.relative_to(ROOT))
    found = [h for h in HEADER_ROW | dict.fromkeys(SHARED_HEADERS) if Path(h).name == name]
    assert len(found) <= 1, f"two core headers named {name}: {found}"
    return found[0] if found else None


def test_layer_headers_are_included_by_their_layer_and_those_above_only():
    """base.h, model.h, copy.h, exchange.h (with dlpack.h), access.h,
    tools.h and top.h: each included only by files of its own row of the
    table or a row below it (a higher layer), headers included; and each
    layer's header directory is on its files' include path in
    CMakeLists.txt, not on the whole target's."""
    assert {Path(h).name for h in HEADER_ROW} >= {
        "base.h",
        "model.h",
        "copy.h",
        "exchange.h",
        "access.h",
        "tools.h",
        "top.h",
    }
    cmake = (ROOT / "CMakeLists.txt").read_text()
    target = re.search(r"target_include_directories\(_core [^)]*\)", cmake).group(0)
    for layer in LAYER_HEADER_DIRS:
        assert f"kokkos_python_layer_headers({layer} " in cmake
        assert f"src/core/{layer}" not in target
    rank = {**{p: row for p, (row, _) in RANK.items()}, **HEADER_ROW}
    wrong = []
    checked = 0
    for path in sorted((ROOT / "src" / "core").rglob("*.[ch]")):
        relative = str(path.relative_to(ROOT))
        if relative in SHARED_HEADERS or relative not in rank:
            continue
        for name in re.findall(r'^#include "([^"]+)"', path.read_text(), re.M):
            header = _header_path(path, name)
            if header in HEADER_ROW:
                checked += 1
                if HEADER_ROW[header] > rank[relative]:
                    wrong.append(f"{relative} ({CORE_ROWS[rank[relative]][0]}) includes {header}")
    assert checked > 50, f"only {checked} includes of layer headers found"
    assert not wrong, "a layer's header included below it:\n" + "\n".join(wrong)


def test_the_core_is_c11_without_kokkos():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert "set(CMAKE_C_STANDARD 11)" in cmake
    core = re.search(r"add_library\(_core[^)]*\)|Python_add_library\(_core[^)]*\)", cmake)
    assert core, "no _core target in CMakeLists.txt"
    for path in sorted((ROOT / "src" / "core").rglob("*.[ch]")):
        assert not re.search(r"#include\s*[<\"]Kokkos", path.read_text()), path


def test_the_extension_exports_its_init_function_only():
    text = re.sub(r"/\*.*?\*/", "", (ROOT / "cmake" / "core.map").read_text(), flags=re.S)
    assert re.sub(r"\s+", " ", text).strip() == "{ global: PyInit__core; local: *; };"
    assert "core.map" in (ROOT / "CMakeLists.txt").read_text()


def test_sources_are_globbed():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert "file(GLOB_RECURSE KOKKOS_PYTHON_CORE_SOURCES CONFIGURE_DEPENDS src/core/*.c)" in cmake
    assert "file(GLOB KOKKOS_PYTHON_BRIDGE_SOURCES CONFIGURE_DEPENDS src/bridge/*.cpp)" in cmake


# ---- one row per fact: the public header's tables -------------------------------------------

TABLES_TEXT = (ROOT / TABLES).read_text()


def _rows(macro, text=TABLES_TEXT):
    """The rows of an X-macro list in text: one tuple of cells per X(...)."""
    body = re.search(rf"#define {macro}\(X\)((?:.*\\\n)*.*)\n", text).group(1)
    body = re.sub(r"\\\n", " ", body)
    rows = []
    for m in re.finditer(r"\bX\(((?:[^()]|\([^()]*\))*)\)", body):
        rows.append(tuple(c.strip() for c in re.findall(r"(?:\([^()]*\)|[^,()])+", m.group(1))))
    assert rows, f"no rows of {macro}"
    return rows


def _strings(cell):
    return re.findall(r'"([^"]*)"', cell)


C_SIZES = {"int8_t": 1, "int16_t": 2, "int32_t": 4, "int64_t": 8, "uint8_t": 1, "uint16_t": 2, "uint32_t": 4}
C_SIZES |= {"uint64_t": 8, "float": 4, "double": 8, "bool": 1}


def test_the_rows_are_what_the_package_has():
    """The core's tables, and so kokkos.dtype, memory_space, layout and
    memory_trait, are the rows of tables.h, in the order of their numbers."""
    tables = kokkos._core._tables()
    dtypes = _rows("KOKKOS_PYTHON_DTYPE_ROWS")
    assert [int(r[1]) for r in dtypes] == list(range(len(dtypes)))
    made = [
        (_strings(name)[0], _strings(aliases), C_SIZES[ctype] * (2 if kind == "COMPLEX" else 1), *map(_strings, rest))
        for _, _, name, aliases, kind, ctype, *rest in dtypes
    ]
    assert [(n, a, s, f[0], t[0]) for n, a, s, f, t in made] == [tuple(r) for r in map(list, tables["dtypes"])]
    spaces = _rows("KOKKOS_PYTHON_SPACE_ROWS")
    assert [int(r[1]) for r in spaces] == list(range(len(spaces)))
    assert [_strings(r[2])[0] for r in spaces] == list(tables["space_names"])
    assert [(a, int(r[1])) for r in spaces for a in _strings(r[3])] == [tuple(p) for p in tables["space_aliases"]]
    assert [(r[5].lower(), r[6].lower()) for r in spaces] == [tuple(r) for r in tables["space_rows"]]
    layouts = _rows("KOKKOS_PYTHON_LAYOUT_ROWS")
    assert [int(r[1]) for r in layouts] == list(range(len(layouts)))
    assert [_strings(r[2])[0] for r in layouts] == list(tables["layout_names"])
    traits = _rows("KOKKOS_PYTHON_TRAIT_ROWS")
    assert [(_strings(r[2])[0], int(r[1])) for r in traits] == [tuple(t) for t in tables["traits"]]


# The C interface's numbers of the rows there are: a contract. New rows are
# appended; none of these ever changes.
C_ABI = {
    "KOKKOS_PYTHON_DTYPE_ROWS": {"INT8": 0, "INT16": 1, "INT32": 2, "INT64": 3, "UINT8": 4, "UINT16": 5},
    "KOKKOS_PYTHON_SPACE_ROWS": {"HOST": 0, "CUDA": 1, "CUDA_UVM": 2, "CUDA_HOST_PINNED": 3, "HBW": 4, "HIP": 5},
    "KOKKOS_PYTHON_LAYOUT_ROWS": {"RIGHT": 0, "LEFT": 1, "STRIDE": 2},
    "KOKKOS_PYTHON_TRAIT_ROWS": {"MANAGED": 0, "UNMANAGED": 1, "RANDOM_ACCESS": 2, "ATOMIC": 4, "RESTRICT": 8},
}
C_ABI["KOKKOS_PYTHON_DTYPE_ROWS"] |= {"UINT32": 6, "UINT64": 7, "FLOAT32": 8, "FLOAT64": 9, "COMPLEX64": 10}
C_ABI["KOKKOS_PYTHON_DTYPE_ROWS"] |= {"COMPLEX128": 11, "BOOL": 12, "FLOAT16": 13}
C_ABI["KOKKOS_PYTHON_SPACE_ROWS"] |= {"HIP_HOST_PINNED": 6, "OPENMP_TARGET": 7, "SYCL_SHARED_USM": 8}
C_ABI["KOKKOS_PYTHON_SPACE_ROWS"] |= {"SYCL_DEVICE_USM": 9}
C_ABI["KOKKOS_PYTHON_TRAIT_ROWS"] |= {"ALIGNED": 16}


@pytest.mark.parametrize("macro", sorted(C_ABI))
def test_the_c_interface_numbers_never_change(macro):
    numbers = {r[0]: int(r[1]) for r in _rows(macro)}
    assert {k: numbers.get(k) for k in C_ABI[macro]} == C_ABI[macro]


def test_every_memory_space_has_its_kokkos_type():
    """compat.hpp's table of Kokkos types has one line per row of the space
    table, and nothing else names a space's Kokkos type for the headers or
    the bridge (the host's own aside: HostSpace is where host code runs)."""
    compat = (ROOT / "include" / "kokkos_python" / "compat.hpp").read_text()
    types = _rows("KOKKOS_PYTHON_COMPAT_SPACE_TYPES", compat)
    assert [t[0] for t in types] == [r[0] for r in _rows("KOKKOS_PYTHON_SPACE_ROWS")]
    for path in [*(ROOT / "src" / "bridge").iterdir(), ROOT / "include" / "kokkos_python" / "kokkos_python.hpp"]:
        text = path.read_text()
        for _, kokkos_type in types[1:]:
            name = kokkos_type.rsplit("::", 1)[1]
            assert not re.search(rf"\b{name}\b", re.sub(r"//[^\n]*", "", text)), f"{path.name} names {name}"


# ---- the recipes name files that hold what they say ---------------------------------------------

RECIPES = ["A dtype", "A memory space", "A layout", "A memory trait", "The build's Kokkos", "A Kokkos release"]
TRACKED = sorted(
    str(p.relative_to(ROOT))
    for top in ("src", "include", "cmake", "scripts", "tests")
    for p in (ROOT / top).rglob("*")
    if p.is_file() and "__pycache__" not in p.parts
)


def _recipe(title):
    section = DOC.read_text().split(f"\n### {title}\n", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("file", "---"):
            rows.append(cells)
    assert rows, f"docs/architecture.md's recipe for {title} has no table"
    return rows


def _find(name):
    """The files a recipe's `name` means: a path from the root, or the
    files whose path ends with it."""
    if (ROOT / name).exists():
        return [ROOT / name] if (ROOT / name).is_file() else [p for p in (ROOT / name).rglob("*") if p.is_file()]
    return [ROOT / p for p in TRACKED if p.endswith("/" + name)]


FILE_NAME = re.compile(r"^[\w./<>-]+\.(?:h|hpp|c|cpp|py|pyi|md|sh|cmake|in)$|^[\w/]+/$")
IDENTIFIER = re.compile(r"^(?:[A-Za-z_]\w*|<\w+>)+$")


@pytest.mark.parametrize("title", RECIPES)
def test_each_recipe_names_files_that_hold_what_it_says(title):
    """Every file a recipe names exists, and every name it gives (a table,
    a macro, a function, with <kind>-like parts standing for any word) is
    in the row's files or in a file the row names."""
    checked = 0
    for files, what in _recipe(title):
        row_files = [n for n in re.findall(r"`([^`]+)`", files) if FILE_NAME.match(n)]
        named = [n for n in re.findall(r"`([^`]+)`", what) if FILE_NAME.match(n) and "<" not in n]
        texts = []
        for name in row_files + named:
            found = _find(name)
            assert found, f"{title}: {name} is not in the tree"
            texts += [p.read_text(errors="replace") for p in found]
        if not row_files:
            continue
        for name in re.findall(r"`([^`]+)`", what):
            if not IDENTIFIER.match(name):
                continue
            pattern = re.compile(r"\b" + re.sub(r"<\w+>", r"\\w+", name) + r"\b")
            assert any(pattern.search(t) for t in texts), f"{title}: `{name}` is in none of {row_files + named}"
            checked += 1
    assert checked >= 1, f"{title}: the recipe names nothing to check"


# ---- Kokkos-version switches in one place per layer ---------------------------------------------

COMPAT = {"include/kokkos_python/compat.hpp", "src/bridge/compat.hpp", "src/core/base/compat.h"}
VERSION_CHECK = re.compile(r"^\s*#\s*(?:el)?if\b.*\bKOKKOS_VERSION\b|\bKOKKOS_VERSION\s*[<>=!]=?", re.M)


def test_kokkos_version_checks_are_in_the_compat_headers_only():
    found = []
    for top in ("src", "include"):
        for path in sorted((ROOT / top).rglob("*.[ch]*")):
            relative = str(path.relative_to(ROOT))
            if relative in COMPAT or path.suffix not in (".c", ".h", ".cpp", ".hpp"):
                continue
            text = re.sub(r"//[^\n]*", "", _strip_comments(path.read_text()))
            found += [f"{relative}: {m.group(0).strip()}" for m in VERSION_CHECK.finditer(text)]
    assert not found, "KOKKOS_VERSION checks outside the compat headers:\n" + "\n".join(found)
    for path in COMPAT - {"src/core/base/compat.h"}:
        assert VERSION_CHECK.search((ROOT / path).read_text()), f"{path} has no version check (the pattern is wrong)"


def test_the_own_kokkos_per_version_choices_are_one_table():
    """cmake/InternalKokkos.cmake compares the source's version only in
    _kp_by_version, over _kp_version_table; every choice it asks for has
    rows and every row's choice is asked for; no other CMake file compares
    Kokkos versions."""
    text = (ROOT / "cmake" / "InternalKokkos.cmake").read_text()
    reader = re.search(r"function\(_kp_by_version .*?endfunction\(\)", text, re.S).group(0)
    compare = re.compile(r"_kp_(?:MAJOR|MINOR|PATCH|src_version)\b[^\n]*\b(?:LESS|GREATER|EQUAL|VERSION_\w+)\b")
    outside = [m.group(0) for m in compare.finditer(text.replace(reader, ""))]
    assert not outside, f"version comparisons outside the table: {outside}"
    assert compare.search(reader)
    table = text.split("set(_kp_version_table\n", 1)[1]
    table = table[: re.search(r'^\s*"[^"\n]*"\)$', table, re.M).end()]
    rows = [line.strip().rstrip(")").strip('"').split() for line in table.splitlines() if line.strip()[:1] == '"']
    assert len(rows) >= 8 and all(len(r) == 4 for r in rows), rows
    for start, below, _, _ in rows:
        for bound in (start, below):
            assert bound == "-" or re.fullmatch(r"\d+\.\d+\.\d+", bound), bound
    asked = set(re.findall(r"_kp_by_version\((\w+) ", text.replace(reader, "")))
    assert asked == {r[2] for r in rows}
    for path in sorted((ROOT / "cmake").glob("*.cmake")):
        if path.name != "InternalKokkos.cmake":
            assert not re.search(r"Kokkos_VERSION\w*\s+(?:VERSION_)?(?:LESS|GREATER|EQUAL)", path.read_text()), path


@pytest.mark.parametrize(
    "version, want",
    [
        ("3.4.1", "Kokkos_ENABLE_PTHREAD|Kokkos_ENABLE_CUDA_LAMBDA||kokkos_gcc13|17||"),
        ("4.6.1", "Kokkos_ENABLE_THREADS||ON||17||"),
        ("5.0.0", "Kokkos_ENABLE_THREADS||ON||20||"),
        ("5.2.2", "Kokkos_ENABLE_THREADS||ON||20|Kokkos_CXX_STANDARD=CMAKE_CXX_STANDARD|Kokkos_ENABLE_CUDA_UVM"),
    ],
)
def test_the_version_table_chooses_by_the_sources_version(version, want, tmp_path):
    """The table and its reader, run by CMake for sources of four versions."""
    cmake = shutil.which("cmake") or str(Path(sys.executable).parent / "cmake")
    text = (ROOT / "cmake" / "InternalKokkos.cmake").read_text()
    start = text.index("set(_kp_version_table")
    table = text[start : text.index("endfunction()", start) + len("endfunction()")]
    choices = [
        "threads_option",
        "cuda_option_on",
        "cuda_links_driver",
        "source_change",
        "cxx_standard",
        "renamed_option",
        "removed_option",
    ]
    script = tmp_path / "choose.cmake"
    reads = "".join(f"_kp_by_version({c} _out_{c})\n" for c in choices)
    joined = "|".join(f"${{_out_{c}}}" for c in choices)
    script.write_text(f'set(_kp_src_version "{version}")\n{table}\n{reads}message(STATUS "chosen:{joined}")\n')
    out = subprocess.run([cmake, "-P", str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"chosen:{want}" in out.stdout + out.stderr
