#!/usr/bin/env bash
# run.sh: builds the seed's example against the installed kokkos package and
# runs ex-numpy.py with the pybind11 module, then with the nanobind module.
#   examples/run.sh [-n N]        (PYTHON=... picks the interpreter; default:
#                                  the project's .venv, else python3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
py=${PYTHON:-}
if [ -z "$py" ]; then
  if [ -x "$root/.venv/bin/python" ]; then py=$root/.venv/bin/python; else py=python3; fi
fi
"$py" -c "import kokkos" || { echo "run.sh: the kokkos package is not installed for $py (make setup, or pip install .)" >&2; exit 1; }
"$py" -c "import pybind11, nanobind" 2>/dev/null || "$py" -m pip install -q --disable-pip-version-check pybind11 nanobind

bindir=$(dirname "$py")
cmake=cmake
[ -x "$bindir/cmake" ] && cmake=$bindir/cmake
gen=()
if [ -x "$bindir/ninja" ] || command -v ninja > /dev/null; then gen=(-G Ninja); fi
[ -x "$bindir/ninja" ] && export PATH="$bindir:$PATH"

build=${BUILD_DIR:-$root/build/examples}
mkdir -p "$build"
if [ -f "$build/CMakeCache.txt" ]; then gen=(); fi
"$cmake" -S "$here" -B "$build" "${gen[@]}" -DPython_EXECUTABLE="$py" > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
"$cmake" --build "$build" --parallel > "$build/build.log" 2>&1 || { cat "$build/build.log"; exit 1; }

for binding in pybind11 nanobind; do
  echo "==== examples/ex-numpy.py with the $binding module ($build/$binding)"
  PYTHONPATH="$build/$binding${PYTHONPATH:+:$PYTHONPATH}" "$py" "$here/ex-numpy.py" "$@"
done
