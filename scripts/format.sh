#!/usr/bin/env bash
# format.sh: clang-format (the version setup.sh installs, .clang-format's
# style) over the project's C and C++ files.
#
# Usage: scripts/format.sh           reformat the files in place
#        scripts/format.sh --check   change nothing; fail listing what differs (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-.venv/bin/clang-format}
if [ ! -x "$fmt" ]; then
  echo "format: $fmt not found; run scripts/setup.sh --test (it installs clang-format from PyPI)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp')
if [ "${1:-}" = --check ]; then
  "$fmt" --dry-run --Werror "${files[@]}"
  echo "format: ${#files[@]} C and C++ files match .clang-format"
else
  "$fmt" -i "${files[@]}"
fi
