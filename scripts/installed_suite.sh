#!/usr/bin/env bash
# installed_suite.sh: build the package against the Kokkos its build finds
# (an installed one: Debian's, a distribution's, a user's) and run the whole
# suite on it. The steps both Kokkos 5.2.2 runs share: kokkos52_suite.sh in
# its sid root, gpu_kokkos52.sh on the GPU machine.
#
#   bash scripts/installed_suite.sh NAME OUT [pytest arguments]
#
# NAME starts every line this prints; OUT (made if missing) gets the build
# (OUT/build), its log (OUT/build.log), the C++ test modules' log
# (OUT/cxx.log) and the report (OUT/pytest.out). The default pytest
# arguments are `tests -n 2`. Environment: PYTHON (default python3), TARGET
# (install into this folder and put it on PYTHONPATH, for a Python whose
# environment is not ours to change; default: into PYTHON's environment),
# LIMIT (the tests' time limit in seconds; default none).
set -uo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: installed_suite.sh NAME OUT [pytest arguments]}
out=${2:?usage: installed_suite.sh NAME OUT [pytest arguments]}
shift 2
[ $# -gt 0 ] || set -- tests -n 2
py=${PYTHON:-python3}
mkdir -p "$out"
out=$(cd "$out" && pwd)

where=()
if [ -n "${TARGET:-}" ]; then
  where=(--target "$TARGET" --upgrade)
  export PYTHONPATH="$TARGET${PYTHONPATH:+:$PYTHONPATH}"
fi
t0=$(date +%s)
if ! "$py" -m pip install -v --disable-pip-version-check --no-build-isolation --no-deps "${where[@]}" \
  -Cbuild-dir="$out/build" -Ccmake.define.KOKKOS_PYTHON_WERROR=ON . >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log"
  echo "$name: the package did not build (log: $out/build.log)"
  exit 1
fi
echo "$name: package built in $(($(date +%s) - t0)) s"
"$py" -c "import kokkos, sys; print('$name: kokkos', kokkos.__version__, 'with Kokkos', '.'.join(map(str, kokkos.kokkos_version())), kokkos.enabled_backends(), 'C++%d' % kokkos.cxx_standard(), 'Python', sys.version.split()[0])"
"${CXX:-g++}" --version | head -n 1

# The C++ test modules (tests/cxx: 300 View types through pybind11) are built
# once, here, outside the tests' time limits: with GCC 16 and Kokkos 5's C++20
# headers they took 127 s to 215 s of 2 cores here, and the first test to need
# them would spend its own time limit building them.
t0=$(date +%s)
(cd tests && "$py" -c "import cxx_build; cxx_build.test_modules(); cxx_build.examples()") >"$out/cxx.log" 2>&1 ||
  { tail -n 30 "$out/cxx.log"; echo "$name: building the C++ test modules failed; the tests that need them will say why"; }
echo "$name: C++ test modules built in $(($(date +%s) - t0)) s"

limit=()
[ -z "${LIMIT:-}" ] || limit=(timeout "$LIMIT")
t0=$(date +%s)
"${limit[@]}" "$py" -m pytest -q -p no:cacheprovider -rfE "$@" >"$out/pytest.out" 2>&1
rc=$?
echo "$name: tests ran $(($(date +%s) - t0)) s"
if [ $rc -ne 0 ]; then
  grep -E "^(FAILED|ERROR) " "$out/pytest.out" | head -n 60
  echo "$name: the tests failed (pytest exit $rc; $out/pytest.out)"
fi
tail -n 1 "$out/pytest.out"
exit $rc
