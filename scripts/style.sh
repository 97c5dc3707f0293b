#!/usr/bin/env bash
# style.sh: the style and type checks, with the tools `scripts/setup.sh --test`
# puts in .venv (pyproject.toml's `style` group). CI runs it after the tests.
#   - ruff format and ruff check (pyproject.toml [tool.ruff]) over the Python;
#   - clang-format (.clang-format) over the C and C++ files git tracks;
#   - mypy --strict over the examples and the stubs' usage sample
#     (tests/typing/api_usage.py), then stubtest: the stubs shipped in the
#     wheel against the installed, built package, so they cannot drift from
#     it (tests/typing/stubtest-allowlist.txt says what cannot match, and why).
#
# Usage: scripts/style.sh          check; change nothing, fail naming what differs
#        scripts/style.sh --fix    reformat the Python, C and C++ files in place
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=${PYTHON:-$root/.venv/bin/python}
fmt=${CLANG_FORMAT:-$(dirname "$py")/clang-format}
python_files=(tests bench examples scripts src/kokkos)
mapfile -t c_files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' 2>/dev/null ||
  find src include tests bench examples -name '*.[ch]' -o -name '*.[ch]pp')
if [ ! -x "$fmt" ] || ! "$py" -c 'import ruff, mypy' 2>/dev/null; then
  echo "style: ruff, mypy or clang-format missing: run bash scripts/setup.sh --test first" >&2
  exit 2
fi
if [ "${1:-}" = --fix ]; then
  "$py" -m ruff format "${python_files[@]}"
  "$fmt" -i "${c_files[@]}"
  exit 0
fi
"$py" -m ruff format --check "${python_files[@]}"
"$py" -m ruff check "${python_files[@]}"
"$fmt" --dry-run --Werror "${c_files[@]}"
echo "style: ${#c_files[@]} C and C++ files match .clang-format"
"$py" -m mypy --strict --config-file pyproject.toml examples/*.py tests/typing/api_usage.py
# From outside the tree: stubtest must see the installed package, not src/.
(cd / && "$py" -m mypy.stubtest --mypy-config-file "$root/pyproject.toml" \
  --allowlist "$root/tests/typing/stubtest-allowlist.txt" kokkos)
