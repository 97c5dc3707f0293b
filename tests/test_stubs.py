"""The type stubs' names come from the package: the blocks of
src/kokkos/__init__.pyi and src/kokkos/tools/__init__.pyi marked
``# generated: <what>`` (the enumerations' members, the module attributes
they become, the execution-space classes, the tuning enumerations and
``__all__``) are what this file makes from the installed package, whose
names come from the core's tables (include/kokkos_python/tables.h and the
tuning table). The test fails when a block differs; after a change to a
table (a new dtype or memory space, say) and ``bash scripts/setup.sh``,

    .venv/bin/python tests/test_stubs.py --write

rewrites the blocks. Everything else in the stubs is written by hand and
checked by stubtest (scripts/style.sh).

The stubs describe the build CI checks them against, with the Serial
backend alone: names that only some builds have (the execution-space class
of each other backend, the SharedSpace aliases of a device backend) are
left out, and KokkosExecutionSpace_Serial is always in."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STUBS = {
    "kokkos": ROOT / "src" / "kokkos" / "__init__.pyi",
    "kokkos.tools": ROOT / "src" / "kokkos" / "tools" / "__init__.pyi",
}
BLOCK = re.compile(
    r"^( *)# generated: (.+?) \(tests/test_stubs\.py --write\)\n(.*?)^\1# end of generated\n", re.M | re.S
)
WIDTH = 120


def _reference(names):
    """names without those only some builds have (the module docstring)."""
    return [
        n
        for n in names
        if not n.startswith("Shared")
        and (not n.startswith("KokkosExecutionSpace_") or n == "KokkosExecutionSpace_Serial")
    ]


def _packed(head, names, indent):
    """`head [` then the quoted names, as many a line as fit, then `]`,
    kept from the formatter (one name a line would repeat the runtime's
    hand-written list line for line)."""
    lines, line = ["# fmt: off", f"{head} ["], " " * 4
    for name in names:
        item = f'"{name}",'
        if len(line) + len(item) + 1 + indent > WIDTH and line.strip():
            lines.append(line.rstrip())
            line = " " * 4
        line += item + " "
    lines += [line.rstrip(), "]", "# fmt: on"]
    return lines


def _members(enum):
    """A tuning enumeration's members (an IntEnum): name = value."""
    return [f"{name} = {int(m)}" for name, m in enum.__members__.items()]


def _class_members(enum):
    """A kokkos enumeration's members, class attributes of their class
    (inside dtype the name dtype is its property: _DType)."""
    kind = "_DType" if enum.__name__ == "dtype" else enum.__name__
    return [f"{name}: ClassVar[{kind}]" for name in enum.__members__]


def _kokkos_blocks(indents, families=None):
    """The blocks of kokkos/__init__.pyi; families: the five enumerations
    (the package's unless given)."""
    import kokkos

    if families is None:
        families = [kokkos.dtype, kokkos.device, kokkos.memory_space, kokkos.layout, kokkos.memory_trait]
    blocks = {f"{e.__name__} members": _reference(_class_members(e)) for e in families}
    # module attributes: the members, each of the last family that names it
    # (kokkos/__init__.py updates its globals with the families in this order)
    attributes = {}
    for enum in families:
        attributes.update(dict.fromkeys(enum.__members__, enum.__name__))
    blocks["module attributes"] = [f"{n}: {t}" for n, t in attributes.items() if n in _reference([n])]
    blocks["execution-space classes"] = ["KokkosExecutionSpace_Serial: type[ExecutionSpaceInstance]"]
    names = _reference(kokkos.__all__)
    if "KokkosExecutionSpace_Serial" not in names:
        names.append("KokkosExecutionSpace_Serial")
    blocks["__all__"] = _packed("__all__ =", names, indents.get("__all__", 0))
    return blocks


def _tools_blocks(indents):
    import kokkos.tools as kt

    enums = []
    for enum in (kt.ValueType, kt.StatisticalCategory, kt.CandidateValueType, kt.OptimizationType):
        enums += [f"class {enum.__name__}(IntEnum):", *("    " + m for m in _members(enum)), ""]
    return {
        "tuning enumerations": enums,
        "__all__": _packed("__all__ =", kt.__all__, indents.get("__all__", 0)),
    }


MAKERS = {"kokkos": _kokkos_blocks, "kokkos.tools": _tools_blocks}


def _expected(module, **made_from):
    """The stub's text with its generated blocks made anew."""
    text = STUBS[module].read_text()
    found = {m.group(2): len(m.group(1)) for m in BLOCK.finditer(text)}
    blocks = MAKERS[module](found, **made_from)

    def block(m):
        indent, what = m.group(1), m.group(2)
        body = "".join(f"{indent}{line}\n" if line else "\n" for line in blocks[what])
        return f"{indent}# generated: {what} (tests/test_stubs.py --write)\n{body}{indent}# end of generated\n"

    return found, blocks, BLOCK.sub(block, text)


@pytest.mark.parametrize("module", sorted(STUBS))
def test_generated_blocks_are_the_packages_names(module):
    found, blocks, expected = _expected(module)
    assert sorted(found) == sorted(blocks), f"{STUBS[module]}: generated blocks {sorted(found)}, want {sorted(blocks)}"
    assert STUBS[module].read_text() == expected, (
        f"{STUBS[module].relative_to(ROOT)}'s generated blocks differ from the installed package's names: "
        "run .venv/bin/python tests/test_stubs.py --write (after bash scripts/setup.sh)"
    )


def test_the_blocks_hold_the_tables_names():
    """What the blocks are made from is the tables': every dtype name and
    alias, memory space and tuning value, so a row missing from a table
    cannot pass as a block that agrees with it."""
    import kokkos

    blocks = _kokkos_blocks({})
    for info in kokkos._core._tables()["dtypes"]:
        for name in (info[0], *info[1]):
            assert f"{name}: ClassVar[_DType]" in blocks["dtype members"]
    for name in kokkos._core._tables()["space_names"]:
        assert f"{name}: ClassVar[memory_space]" in blocks["memory_space members"]
        assert f"{name}: memory_space" in blocks["module attributes"]
    assert "    double = 0" in _tools_blocks({})["tuning enumerations"]


def test_a_new_row_shows_as_a_difference():
    """A dtype the stub lacks (as after a new row of the table) makes the
    blocks differ, and --write's text has it in every place."""
    from enum import IntEnum

    import kokkos

    members = [*((n, int(m)) for n, m in kokkos.dtype.__members__.items()), ("bfloat16", len(kokkos.all_dtypes))]
    families = [IntEnum("dtype", members), kokkos.device, kokkos.memory_space, kokkos.layout, kokkos.memory_trait]
    _, _, expected = _expected("kokkos", families=families)
    assert expected != STUBS["kokkos"].read_text()
    assert "    bfloat16: ClassVar[_DType]\n" in expected and "\nbfloat16: dtype\n" in expected


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_stubs.py --write")
    for module, path in STUBS.items():
        found, blocks, text = _expected(module)
        missing = sorted(set(blocks) - set(found))
        if missing:
            sys.exit(f"{path}: no marked block for {missing}")
        if text != path.read_text():
            path.write_text(text)
            print(f"rewrote the generated blocks of {path.relative_to(ROOT)}")
