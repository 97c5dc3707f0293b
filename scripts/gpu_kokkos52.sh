#!/usr/bin/env bash
# gpu_kokkos52.sh: the whole suite against Debian sid's Kokkos 5.2.2 on a
# machine whose own distribution has no Kokkos 5 (the GPU machine: Ubuntu
# 24.04, glibc 2.39, no network). Run as root: it extracts sid's
# libkokkos-dev and libkokkos5.2 .debs (apt-get download them where Debian
# sid is reachable) into /, where the package's build finds Kokkos; then
# scripts/installed_suite.sh builds the package (compiler warnings are
# errors) into OUT/site, builds the C++ test modules once and runs the tests.
#
#   bash scripts/gpu_kokkos52.sh DEB_DIR [OUT [pytest arguments]]
#
# OUT defaults to build/gpu-kokkos52; its pytest.out is the report. The
# default pytest arguments are `tests -n 16` (pytest-xdist) under a time
# limit of LIMIT seconds (default 400).
set -uo pipefail
cd "$(dirname "$0")/.."
debs=${1:?usage: gpu_kokkos52.sh DEB_DIR [OUT [pytest arguments]]}
out=${2:-build/gpu-kokkos52}
shift $(($# < 2 ? $# : 2))
[ $# -gt 0 ] || set -- tests -n 16
if [ "$(id -u)" != 0 ]; then
  echo "gpu_kokkos52: needs root (it unpacks Debian packages into /)" >&2
  exit 2
fi
shopt -s nullglob
packages=("$debs"/libkokkos*.deb)
if [ ${#packages[@]} -eq 0 ]; then
  echo "gpu_kokkos52: no libkokkos*.deb in $debs" >&2
  exit 2
fi
for d in "${packages[@]}"; do dpkg -x "$d" /; done
PATH="$PATH:/usr/sbin:/sbin" ldconfig
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
mkdir -p "$out"
TARGET=$(cd "$out" && pwd)/site LIMIT=${LIMIT:-400} exec bash scripts/installed_suite.sh gpu_kokkos52 "$out" "$@"
