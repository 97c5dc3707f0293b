#!/usr/bin/env bash
# kokkos_matrix.sh: the suite against several installed Kokkos, one row each.
#
#   bash scripts/kokkos_matrix.sh [-o OUT] [-p "PYTEST ARGS"] KOKKOS [KOKKOS ...]
#
# Each KOKKOS is an install prefix (the folder holding include/Kokkos_Core.hpp
# and lib*/cmake/Kokkos) or the word `system` (the Kokkos scripts/setup.sh
# finds: Debian's package in CI). For each, the package is built against that
# Kokkos into OUT/<name>/site (default OUT: build/matrix; the build is
# incremental), the suite runs with it (or the pytest arguments of -p, e.g.
# -p "tests/test_cxx.py tests/test_cxx_capi.py"), and one row is printed:
#
#   kokkos | version | backends | View | C++ | passed | failed | skipped | time
#
# `View` is the View implementation: `mdspan` (Kokkos 4.7's View, the default
# of develop since 4.6.99) or `legacy` (every Kokkos before it, and develop
# built with -DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON). `C++` is the standard
# Kokkos was built with. It uses .venv's Python (`bash scripts/setup.sh --test`
# makes it). Build Kokkos itself as shared libraries (BUILD_SHARED_LIBS=ON);
# docs/building.md has the flags used for the table there. Exits non-zero if
# a build or a test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=build/matrix
pytest_args=tests
while getopts "o:p:" opt; do
  case $opt in
    o) out=$OPTARG ;;
    p) pytest_args=$OPTARG ;;
    *) sed -n '2,21p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
  sed -n '2,21p' "$0"
  exit 2
fi
py=${PYTHON:-.venv/bin/python}
if ! "$py" -c 'import pytest, scikit_build_core' 2>/dev/null; then
  echo "kokkos_matrix: $py lacks pytest or scikit-build-core: run bash scripts/setup.sh --test first" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false

# KokkosCore_config.h of an install prefix (Debian's lies under include/trilinos).
config_file() {
  local f
  for f in "$1/include/KokkosCore_config.h" "$1/include/trilinos/KokkosCore_config.h"; do
    [ -f "$f" ] && { echo "$f"; return; }
  done
}

rows=()
rc=0
for spec in "$@"; do
  prefix=$spec
  if [ "$spec" = system ]; then
    prefix=
    for p in /usr/local /usr; do [ -n "$(config_file $p)" ] && { prefix=$p; break; }; done
    [ -n "$prefix" ] || { echo "kokkos_matrix: no system Kokkos (run bash scripts/setup.sh)"; rc=1; continue; }
  fi
  config=$(config_file "$prefix")
  if [ -z "$config" ]; then
    echo "kokkos_matrix: $spec is not a Kokkos install prefix (no include/KokkosCore_config.h)"
    rc=1
    continue
  fi
  name=$(basename "$spec")
  [ "$spec" = system ] && name=system
  dir=$out/$name
  mkdir -p "$dir"
  echo "kokkos_matrix: $name ($prefix): building the package"
  t0=$(date +%s)
  kroot=()
  [ "$spec" = system ] || kroot=(env "Kokkos_ROOT=$prefix")
  if ! "${kroot[@]}" "$py" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
    -Cbuild-dir="$dir/build" --target "$dir/site" --upgrade . >"$dir/build.log" 2>&1; then
    tail -n 40 "$dir/build.log"
    rows+=("$name | package build failed (log: $dir/build.log)")
    rc=1
    continue
  fi
  info=$(PYTHONPATH="$dir/site" "$py" -c '
import kokkos
print(".".join(map(str, kokkos.kokkos_version())), "+".join(kokkos.enabled_backends()))')
  version=${info%% *}
  backends=${info#* }
  # The mdspan View is develop's default from 4.6.99 on, unless Kokkos was
  # built with -DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON.
  view=legacy
  number=$(echo "$version" | awk -F. '{ print $1 * 10000 + $2 * 100 + $3 }')
  if [ "$number" -ge 40699 ] && ! grep -qE "^#define KOKKOS_ENABLE_IMPL_VIEW_LEGACY" "$config"; then
    view=mdspan
  fi
  std=$(grep -oE "^#define KOKKOS_ENABLE_CXX(14|17|20|23)" "$config" | grep -oE "[0-9]+$" | sort -n | tail -n 1)
  echo "kokkos_matrix: $name: Kokkos $version ($backends, $view View, C++${std:-?}): running pytest $pytest_args"
  # shellcheck disable=SC2086  # the pytest arguments are words
  PYTHONPATH="$dir/site" "$py" -m pytest -q -p no:cacheprovider -rfE $pytest_args >"$dir/pytest.log" 2>&1 || rc=1
  tail -n 15 "$dir/pytest.log"
  summary=$(grep -E "^(=+ )?[0-9]+ (passed|failed|error)" "$dir/pytest.log" | tail -n 1)
  if [ -z "$summary" ]; then
    rows+=("$name | $version | $backends | $view | C++${std:-?} | pytest died before its summary (log: $dir/pytest.log)")
    rc=1
    continue
  fi
  count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE "^[0-9]+" || echo 0; }
  errors=$(count error)
  failed=$(($(count failed) + errors))
  rows+=("$name | $version | $backends | $view | C++${std:-?} | $(count passed) | $failed | $(count skipped) | $(($(date +%s) - t0)) s")
done

echo
echo "kokkos | version | backends | View | C++ | passed | failed | skipped | time"
echo "--- | --- | --- | --- | --- | --- | --- | --- | ---"
for row in "${rows[@]}"; do echo "$row"; done
exit $rc
