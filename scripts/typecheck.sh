#!/usr/bin/env bash
# Type checks: mypy --strict over the examples and the stubs' usage sample
# (tests/typing/api_usage.py), then stubtest: the stubs shipped in the wheel
# (kokkos/__init__.pyi, _core.pyi, tools/__init__.pyi, py.typed) against the
# installed, built package, so that they cannot drift from it.
# Needs the package installed (scripts/setup.sh --test installs mypy too).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-$PWD/.venv/bin/python}
"$py" -m mypy --strict --config-file pyproject.toml examples/*.py tests/typing/api_usage.py
# From outside the tree: stubtest must see the installed package, not src/.
root=$PWD
(cd / && "$py" -m mypy.stubtest --mypy-config-file "$root/pyproject.toml" \
  --allowlist "$root/scripts/stubtest-allowlist.txt" kokkos)
