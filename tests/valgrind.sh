#!/usr/bin/env bash
# valgrind.sh: Valgrind memcheck over a representative subset of the test
# suite, with the ordinary (uninstrumented) build in .venv.
#
# Usage: tests/valgrind.sh [pytest arguments]
#
# It looks for what AddressSanitizer cannot see: invalid reads, writes and
# frees in code that is not instrumented (Kokkos itself, NumPy's loops over
# View memory, memcpy in libc called from there). Leaks are LeakSanitizer's
# job (scripts/sanitize.sh), so they are not checked here; neither are
# uninitialised values: CPython 3.11's int construction (maybe_small_long)
# reads digits it has not written, and the warnings it spreads through the
# interpreter drown everything else (--undef-value-errors=no). Slow (tens of times slower than a plain run):
# not part of CI. PYTHONMALLOC=malloc lets Valgrind see Python's objects;
# tests/sanitizer/valgrind.supp holds the known false positives.
#
# Environment: VENV (default .venv, as scripts/setup.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}
if [ ! -x "$venv/bin/python" ]; then
  bash scripts/setup.sh --test >/dev/null
fi
command -v valgrind >/dev/null || { echo "valgrind.sh: install valgrind (apt-get install valgrind)" >&2; exit 2; }
if [ $# -eq 0 ]; then
  # Views, indexing, copies, NumPy exchange, DLPack and the hostile inputs, in
  # this process (subprocess scenarios would run outside Valgrind).
  set -- tests/test_views.py tests/test_indexing.py tests/test_copy.py tests/test_numpy.py \
    tests/test_hostile.py tests/test_properties.py \
    -k "not subprocess and not finalize and not callback and not sanitizer and not million"
fi
export PYTHONMALLOC=malloc HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-kokkos-ci}
exec valgrind --tool=memcheck --error-exitcode=99 --leak-check=no --undef-value-errors=no \
  --num-callers=30 --suppressions=tests/sanitizer/valgrind.supp \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
