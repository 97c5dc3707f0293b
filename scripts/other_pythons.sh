#!/usr/bin/env bash
# other_pythons.sh: builds the package for each other CPython this machine
# has (3.10, 3.12, 3.13, found on PATH or under pyenv) and runs the core test
# files with it: the C core uses version-dependent CPython API (3.10 lacks
# PyType_GetModuleByDef and PyFloat_Pack2; 3.13 reports unraisable errors
# differently), and CI's main run covers only the default python3.
#
# Usage: scripts/other_pythons.sh [pytest arguments]   (default: the core files)
# Each interpreter gets its own venv and build directory under build/py<X.Y>.
# An interpreter that is not installed is reported and skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- tests/test_views.py tests/test_indexing.py tests/test_copy.py tests/test_numpy.py \
  tests/test_scalar.py tests/test_float16.py tests/test_pickle.py tests/test_shared_memory.py \
  tests/test_tools.py tests/test_tools_tuning.py tests/test_lifetime.py tests/test_dlpack.py

# An interpreter of version $1 that runs (a pyenv shim on PATH may not).
find_python() {
  local v=$1 p
  for p in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$v".*/bin/python"$v" 2>/dev/null | sort -V -r) \
           $(command -v "python$v" 2>/dev/null); do
    if "$p" -c 'import sys, venv' >/dev/null 2>&1; then
      echo "$p"
      return
    fi
  done
}

status=0
for v in 3.10 3.12 3.13; do
  py=$(find_python "$v")
  if [ -z "$py" ]; then
    echo "other_pythons: no python$v on this machine; skipped"
    continue
  fi
  venv=build/py$v/venv
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -U pip
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "scikit-build-core>=0.10" "cmake>=3.18" ninja \
    numpy pytest pytest-timeout hypothesis pybind11 nanobind
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
    -Cbuild-dir="build/py$v/cmake" -Ccmake.define.KOKKOS_PYTHON_WERROR="${KOKKOS_PYTHON_WERROR:-OFF}" .
  echo "other_pythons: $("$venv/bin/python" --version)"
  set +e
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" > "build/py$v/pytest.out" 2>&1
  rc=$?
  set -e
  if [ $rc -ne 0 ]; then
    grep -E "^(FAILED|ERROR) |Error" "build/py$v/pytest.out" | head -n 40 || true
    echo "other_pythons: python$v: the tests failed (pytest exit $rc; build/py$v/pytest.out)"
    status=1
  fi
  tail -n 1 "build/py$v/pytest.out"
done
exit $status
