#!/usr/bin/env bash
# sanitize.sh: runs the test suite against a build of kokkos._core (C core
# and C++ bridge) with AddressSanitizer and UndefinedBehaviorSanitizer, leak
# detection on, and fails on any sanitizer report from any Python process
# the tests start.
#
# Usage: scripts/sanitize.sh [pytest arguments]     (default: tests)
#
# It builds into its own venv and build directory (build/sanitize/venv,
# build/sanitize/cmake) so the ordinary build (.venv, build/setup) is left
# alone; Kokkos is found as scripts/setup.sh finds it (Kokkos_ROOT, or an
# installed one, or the distribution's, which setup.sh installs).
#
# The interpreter is not sanitized, so the sanitizer runtimes are preloaded
# into Python: build/sanitize/venv/bin/python is a small wrapper that sets
# LD_PRELOAD for the interpreter it starts, and a .pth file removes it from
# the environment again at startup, so that compilers and other programs the
# tests run are not sanitized (their own leaks are not ours) while every
# Python child started through sys.executable is. PYTHONMALLOC=malloc sends
# Python's objects through malloc, so ASan sees overruns of them too.
# Reports go to files (ASan and UBSan log_path) rather than to the tests'
# stderr; any error report there fails the run. Leaks are checked when the
# program is done but before the interpreter tears itself down
# (tests/sanitizer/kokkos_sanitize_site.py says why); CPython's and NumPy's
# own allocations are suppressed by tests/sanitizer/lsan.supp. ASan's
# quarantine of freed memory is kept small (16 MiB) so that the tests which
# check that RSS stays flat over a million Views hold under ASan too.
#
# Environment:
#   SANITIZE_DIR   where the venv, build and reports go (default build/sanitize)
#   PYTHON         the interpreter to make the venv from (default python3)
#   SANITIZE_SKIP_SETUP=1  do not run scripts/setup.sh first
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=${SANITIZE_DIR:-build/sanitize}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
venv=$dir/venv
logs=$dir/reports

# Kokkos (and the ordinary venv, which the project's tests need anyway).
if [ "${SANITIZE_SKIP_SETUP:-0}" != 1 ]; then
  bash scripts/setup.sh --test >/dev/null
fi

cc=${CC:-gcc}
asan=$("$cc" -print-file-name=libasan.so)
ubsan=$("$cc" -print-file-name=libubsan.so)
for lib in "$asan" "$ubsan"; do
  if [ ! -e "$lib" ]; then
    echo "sanitize: $cc has no sanitizer runtime ($lib); install gcc's libasan and libubsan" >&2
    exit 2
  fi
done
asan=$(readlink -f "$asan")
ubsan=$(readlink -f "$ubsan")

# ---- the venv: the real interpreter is python3; bin/python preloads ----
py=${PYTHON:-python3}
if [ ! -x "$venv/bin/python3" ]; then
  "$py" -m venv "$venv"
fi
real="$venv/bin/python3"
deps="scikit-build-core>=0.10 cmake>=3.18 ninja numpy pytest pytest-timeout pytest-xdist hypothesis pybind11 nanobind"
if [ ! -f "$venv/.deps" ] || [ "$(cat "$venv/.deps")" != "$deps" ]; then
  "$real" -m pip install -q --disable-pip-version-check $deps
  echo "$deps" > "$venv/.deps"
fi
rm -f "$venv/bin/python"
cat > "$venv/bin/python" <<EOF
#!/bin/bash
# Starts the venv's interpreter with the sanitizer runtimes preloaded.
LD_PRELOAD="$asan $ubsan\${LD_PRELOAD:+ \$LD_PRELOAD}" exec -a "\$0" "$real" "\$@"
EOF
chmod +x "$venv/bin/python"
site=$("$real" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# Drops LD_PRELOAD at start-up and runs the leak check at exit (see the file).
cp tests/sanitizer/kokkos_sanitize_site.py "$site/"
echo 'import kokkos_sanitize_site' > "$site/kokkos_sanitize_site.pth"

# ---- the sanitized build ----
"$real" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
  -Cbuild-dir="$dir/cmake" -Ccmake.build-type=RelWithDebInfo \
  -Ccmake.define.KOKKOS_PYTHON_SANITIZE=ON "$root"

# ---- run ----
rm -rf "$logs"
mkdir -p "$logs"
export PYTHONMALLOC=malloc
export ASAN_OPTIONS="detect_leaks=1:quarantine_size_mb=16:halt_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:log_path=$logs/asan"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizer/lsan.supp:print_suppressions=0:leak_check_at_exit=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
export KOKKOS_PYTHON_SANITIZED=1
export KOKKOS_SANITIZE_NOTES=$logs/notes.txt
# NumPy's BLAS threads would sit in every process at exit, where the leak
# check stops the world: none are needed here.
export OPENBLAS_NUM_THREADS=1

"$venv/bin/python" -c "import kokkos; print('sanitize: kokkos', kokkos.__version__, 'with Kokkos', '.'.join(map(str, kokkos.kokkos_version())), 'under ASan+UBSan')"
# (tests/test_internal_kokkos.py is left out: it builds Kokkos and wheels,
# checking the build and the installed tree, and runs no core code that the
# rest of the suite does not run here)
[ $# -gt 0 ] || set -- tests --ignore=tests/test_internal_kokkos.py
# --capture=sys: pytest captures Python's streams only, so a sanitizer report
# written to file descriptor 2 by the pytest process itself (UBSan writes
# there) reaches the log instead of dying with a capture file.
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider --capture=sys "$@" 2>&1 | tee "$logs/pytest.out"
status=${PIPESTATUS[0]}
set -e

# Files with only warnings (ASan notes a failed huge allocation that the
# tests provoke on purpose, with allocator_may_return_null=1) are not errors.
reports=$(grep -lE '(Sanitizer|ERROR): |runtime error: |Sanitizer has encountered a fatal error' \
  -r "$logs" --exclude=pytest.out --exclude=notes.txt | sort || true)
if [ -n "$reports" ]; then
  echo "sanitize: sanitizer reports:" >&2
  for f in $reports; do
    echo "---- $f" >&2
    cat "$f" >&2
  done
  echo "sanitize: FAILED: $(echo "$reports" | wc -l) process(es) reported errors or leaks" >&2
  exit 1
fi
if [ -s "$logs/notes.txt" ]; then
  echo "sanitize: NOTE:" >&2
  cat "$logs/notes.txt" >&2
fi
if [ $status -ne 0 ]; then
  # Whatever the sanitizer runtimes wrote, warnings included, tells why.
  for f in "$logs"/asan.* "$logs"/ubsan.*; do
    [ -e "$f" ] || continue
    echo "---- $f" >&2
    head -50 "$f" >&2
  done
  echo "sanitize: the test suite failed under sanitizers (pytest exit $status)" >&2
  exit $status
fi
echo "sanitize: no sanitizer reports"
