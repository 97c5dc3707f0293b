#!/usr/bin/env bash
# gpu_kokkos52.sh: the whole suite against Debian sid's Kokkos 5.2.2 on a
# machine whose own distribution has no Kokkos 5 (the GPU machine: Ubuntu
# 24.04, glibc 2.39, no network). Run as root: it extracts sid's
# libkokkos-dev and libkokkos5.2 .debs (apt-get download them where Debian
# sid is reachable) into /, where the package's build finds Kokkos, builds
# the package there (compiler warnings are errors) into OUT/site, builds the
# C++ test modules once, then runs the tests.
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
py=${PYTHON:-python3}
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
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
t0=$(date +%s)
if ! "$py" -m pip install -v --disable-pip-version-check --no-build-isolation --no-deps -Cbuild-dir="$out/build" \
  --target "$out/site" --upgrade -Ccmake.define.KOKKOS_PYTHON_WERROR=ON . >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log"
  echo "gpu_kokkos52: the package did not build (log: $out/build.log)"
  exit 1
fi
echo "gpu_kokkos52: built in $(($(date +%s) - t0)) s"
export PYTHONPATH="$out/site${PYTHONPATH:+:$PYTHONPATH}"
"$py" -c "import kokkos, sys; print('gpu_kokkos52: kokkos', kokkos.__version__, 'with Kokkos', '.'.join(map(str, kokkos.kokkos_version())), kokkos.enabled_backends(), 'C++%d' % kokkos.cxx_standard(), 'Python', sys.version.split()[0])"
g++ --version | head -n 1
# Built once, outside the tests' time limit (see scripts/kokkos52_suite.sh).
t0=$(date +%s)
(cd tests && "$py" -c "import cxx_build; cxx_build.test_modules(); cxx_build.examples()") >"$out/cxx.log" 2>&1 ||
  { tail -n 30 "$out/cxx.log"; echo "gpu_kokkos52: building the C++ test modules failed; the tests that need them will say why"; }
echo "gpu_kokkos52: C++ test modules built in $(($(date +%s) - t0)) s"
t0=$(date +%s)
timeout "${LIMIT:-400}" "$py" -m pytest -q -p no:cacheprovider -rfE "$@" >"$out/pytest.out" 2>&1
rc=$?
echo "gpu_kokkos52: tests ran $(($(date +%s) - t0)) s (pytest exit $rc)"
grep -E "^(FAILED|ERROR) " "$out/pytest.out" | head -n 60
tail -n 1 "$out/pytest.out"
exit $rc
