"""kokkos_gcc13.py: the source change a Kokkos 3.x tree needs to build with
GCC 13 and later (libstdc++ 13 no longer includes <cstdint> from its other
headers), made in place.

    python3 cmake/kokkos_gcc13.py /path/to/kokkos-source

Kokkos 3.4.01 (the original package's, the offline source) spells uint32_t
and the other fixed-width integer types in files that include no <cstdint>:
GCC 16 stops at `Kokkos_MemoryPool.cpp:123: 'uint32_t' does not name a type`.
Every C++ file of core/, containers/ and algorithms/ src/ that names such a
type without including <cstdint> (or <stdint.h>, <cinttypes>, <inttypes.h>)
gets `#include <cstdint>` before its first #include. Running it again
changes nothing. InternalKokkos.cmake runs it on a copy of a source older
than Kokkos 4.0 (4.x includes what it uses).
"""

import pathlib
import re
import sys

TYPES = re.compile(r"\b(u?int(8|16|32|64)_t|u?intptr_t|u?intmax_t)\b")
HAS = re.compile(r"#\s*include\s*<(cstdint|stdint\.h|cinttypes|inttypes\.h)>")
FIRST_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b", re.MULTILINE)


def fix(path):
    text = path.read_text(errors="surrogateescape")
    if not TYPES.search(text) or HAS.search(text):
        return False
    first = FIRST_INCLUDE.search(text)
    if first is None:
        return False
    path.write_text(text[: first.start()] + "#include <cstdint>\n" + text[first.start() :], errors="surrogateescape")
    return True


def main(root):
    changed = 0
    for part in ("core/src", "containers/src", "algorithms/src"):
        base = root / part
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix in (".hpp", ".cpp", ".h") and path.is_file():
                changed += fix(path)
    print(f"kokkos_gcc13: <cstdint> added to {changed} files under {root}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(pathlib.Path(sys.argv[1]))
