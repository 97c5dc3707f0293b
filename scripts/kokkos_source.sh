#!/usr/bin/env bash
# kokkos_source.sh: a Kokkos source tree that a machine reaching only PyPI can
# get: Kokkos 3.4.01, which the original pykokkos-base 0.0.7 carries in its
# sdist on PyPI (external/kokkos). Fetched once (checked against the sdist's
# SHA-256), unpacked under DEST, and its path printed; the sdist itself is
# kept beside it (DEST/pykokkos-base-0.0.7.tar.gz: a source the build takes too).
#
#   bash scripts/kokkos_source.sh [DEST]     (DEST: build/kokkos-source)
#
# The package's own Kokkos is built from it with
#   KOKKOS_PYTHON_KOKKOS_SOURCE=$(bash scripts/kokkos_source.sh) pip install . -Ccmake.define.ENABLE_INTERNAL_KOKKOS=ON
# (make wheel and the tests use it when no other source is named). Nothing of
# it is part of this repository.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-build/kokkos-source}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
tree=$dest/kokkos-3.4.01
sdist=$dest/pykokkos-base-0.0.7.tar.gz
if [ ! -f "$tree/core/src/Kokkos_Core.hpp" ] || [ ! -f "$sdist" ]; then
  py=${PYTHON:-python3}
  [ -x .venv/bin/python ] && py=${PYTHON:-.venv/bin/python}
  tmp=$(mktemp -d "$dest/fetch.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "pykokkos-base==0.0.7 --hash=sha256:6339daced1e81a2748f381847d8717cd77d824407da3c263b9491b5630c642b0" >"$tmp/req.txt"
  "$py" -m pip download -q --disable-pip-version-check --no-deps --no-binary pykokkos-base --require-hashes \
    -r "$tmp/req.txt" -d "$tmp" >&2
  tar -xzf "$tmp/pykokkos-base-0.0.7.tar.gz" -C "$tmp" pykokkos-base-0.0.7/external/kokkos
  rm -rf "$tree"
  mv "$tmp/pykokkos-base-0.0.7/external/kokkos" "$tree"
  mv "$tmp/pykokkos-base-0.0.7.tar.gz" "$sdist"
fi
echo "$tree"
