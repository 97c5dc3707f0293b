"""Every link in README.md, CHANGELOG.md and docs/*.md leads where it says:
a relative target exists, a #anchor is a heading of the target document
(GitHub's anchor for it), and link text that names a file names the
target's file (issue 26: `[docs/cxx.md](docs/building.md#...)`)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]

LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")
# Text that names a file or folder: a path-like word ending in .md (or any
# extension) or in "/".
FILE_TEXT = re.compile(r"^[\w./-]+(\.\w+|/)$")


def _prose(text):
    """text with fenced code blocks blanked (links inside code are code, not
    links); their lines stay, so line numbers still point into the file."""
    return re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S | re.M)


def _anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped
    (hyphens and underscores kept), spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path):
    text = _prose(path.read_text(encoding="utf-8"))
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6} (.*)$", text, re.M):
        a = _anchor(heading)
        n = seen.get(a, 0)
        seen[a] = n + 1
        found.add(a if n == 0 else f"{a}-{n}")
    return found


def links(path):
    """(line, text, target) of every link of path outside code."""
    found = []
    text = path.read_text(encoding="utf-8")
    prose = _prose(text)
    for match in LINK.finditer(prose):
        line = prose.count("\n", 0, match.start()) + 1
        found.append((line, match.group(1), match.group(2)))
    return found


def problems(path):
    """What is wrong with path's links, one line each."""
    out = []
    for line, text, target in links(path):
        where = f"{path.relative_to(ROOT)}:{line}: [{text}]({target})"
        if re.match(r"^[a-z]+:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            out.append(f"{where}: {file_part} does not exist")
            continue
        if anchor:
            if dest.suffix != ".md":
                out.append(f"{where}: an anchor into a file that is not Markdown")
            elif anchor not in _anchors(dest):
                out.append(f"{where}: {dest.name} has no heading with anchor #{anchor}")
        name = text.strip("`")
        if FILE_TEXT.match(name) and file_part:
            if not (file_part == name or file_part.endswith("/" + name)):
                out.append(f"{where}: the text names {name}, the link leads to {file_part}")
    return out


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_links_lead_where_they_say(path):
    assert problems(path) == []


def test_the_checker_sees_each_kind_of_broken_link(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B title\n\n## The `x` rule (C++)\n")
    doc = tmp_path / "a.md"
    doc.write_text(
        "[docs/b.md](docs/b.md#the-x-rule-c) fine, [B](docs/b.md#b-title) fine\n"
        "[docs/c.md](docs/b.md#b-title) text and target differ\n"
        "[gone](docs/gone.md) missing\n"
        "[B](docs/b.md#no-such-heading) no anchor\n"
        "```\n[in code](nowhere.md)\n```\n"
        "[web](https://example.org/x.md)\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = problems(doc)
    finally:
        ROOT = saved
    assert len(found) == 3, found
    assert "the text names docs/c.md, the link leads to docs/b.md" in found[0]
    assert "docs/gone.md does not exist" in found[1]
    assert "has no heading with anchor #no-such-heading" in found[2]


def test_every_document_has_links():
    assert len(links(ROOT / "README.md")) > 20
