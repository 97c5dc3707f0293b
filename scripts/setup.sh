#!/usr/bin/env bash
# setup.sh: makes the environment the project is built and tested in,
# idempotently (a second run only rebuilds what changed):
#   1. a Kokkos: Kokkos_ROOT, one already installed, or the distribution's
#      (libkokkos-dev where offered, else libtrilinos-kokkos-dev);
#   2. a virtual environment with what the build needs and, with --test,
#      what the tests and checks use: pyproject.toml's optional dependencies
#      `test` (required), `test-optional` and `torch` (each where it
#      installs; the tests that need one skip without it) and `style` (the
#      one list: nothing here names a package);
#   3. the package, built incrementally and installed into that environment
#      (not with --no-build: scripts/suite.py installs a wheel instead).
#
# Usage: scripts/setup.sh [--test] [--no-build]
#        scripts/setup.sh --deps GROUP...   (prints the groups' requirements: for scripts/wheel.sh)
# Environment (scripts/suite.py sets these for its legs):
#   PYTHON       the interpreter the environment is made from (default python3)
#   VENV         the virtual environment (default .venv)
#   DEPS         with --test, the dependency groups (default: test
#                test-optional torch style)
#   BUILD_DIR    the package's build directory (default build/setup)
#   OFFLINE=1    a machine without PyPI or apt (the GPU machine): the
#                environment also sees PYTHON's own packages, and nothing is
#                downloaded (what is not there is named and left out)
#   KOKKOS_PYTHON_BUILD_ARGS  more pip -C options for the build (the package's
#                  own Kokkos, a sanitizer build)
#   KOKKOS_PYTHON_WERROR=ON   compiler warnings are errors (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
want_test=0
want_build=1
print_deps=0
for arg in "$@"; do
  case $arg in
    --test) want_test=1 ;;
    --no-build) want_build=0 ;;
    --deps) print_deps=1 ;;
    *) [ "$print_deps" = 1 ] || { echo "usage: scripts/setup.sh [--test] [--no-build] | --deps GROUP..." >&2; exit 2; } ;;
  esac
done
venv=${VENV:-.venv}
build_dir=${BUILD_DIR:-build/setup}
py=${PYTHON:-python3}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
offline=${OFFLINE:-0}
apt_install() { # apt_install PACKAGE...: from the distribution, where apt-get reaches it
  [ "$offline" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q "$@" >/dev/null 2>&1 || { as_root apt-get update -q >/dev/null && as_root apt-get install -y -q "$@"; }
}

# The requirements of pyproject.toml's optional-dependency groups given, one a line.
extra() {
  "${vpy:-$py}" - "$@" <<'EOF'
import sys
try:
    import tomllib
except ImportError:  # Python 3.10: the TOML reader pip carries
    from pip._vendor import tomli as tomllib
with open("pyproject.toml", "rb") as f:
    groups = tomllib.load(f)["project"]["optional-dependencies"]
print("\n".join(name for group in sys.argv[1:] for name in groups[group]))
EOF
}
if [ "$print_deps" = 1 ]; then # --deps GROUP...: print the requirements, nothing else
  shift
  extra "$@"
  exit 0
fi

have_kokkos() {
  [ -n "${Kokkos_ROOT:-}" ] && return 0
  case "${KOKKOS_PYTHON_BUILD_ARGS:-}" in *ENABLE_INTERNAL_KOKKOS=ON*) return 0 ;; esac
  for f in /usr/include/Kokkos_Core.hpp /usr/include/kokkos/Kokkos_Core.hpp /usr/include/trilinos/Kokkos_Core.hpp \
           /usr/local/include/Kokkos_Core.hpp; do
    [ -f "$f" ] && return 0
  done
  return 1
}

if ! have_kokkos; then
  echo "setup: no Kokkos found; installing it from the distribution"
  pkg=libtrilinos-kokkos-dev
  [ "$offline" = 1 ] || as_root apt-get update -q >/dev/null 2>&1 || true
  if apt-cache policy libkokkos-dev 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    pkg=libkokkos-dev
  fi
  apt_install "$pkg" g++ make
fi

# ---- the environment; bin/python3 is the interpreter itself (a sanitizer ----
# ---- run puts a wrapper at bin/python, scripts/suite.py)                  ----
if [ ! -x "$venv/bin/python3" ]; then
  site=()
  [ "$offline" = 1 ] && site=(--system-site-packages)
  "$py" -m venv "${site[@]}" "$venv" || { apt_install python3-venv && "$py" -m venv "${site[@]}" "$venv"; }
fi
vpy=$venv/bin/python3
pip=("$vpy" -m pip --disable-pip-version-check)
[ "$offline" = 1 ] && pip+=(--no-index)
# A new environment's pip is the one its Python came with: older ones lack
# the build's -C options.
if [ "$offline" = 0 ] && [ ! -f "$venv/.deps-pip" ]; then
  "${pip[@]}" install -q -U pip && touch "$venv/.deps-pip"
fi

# install_once STAMP REQUIRED|OPTIONAL REQUIREMENT...: installs what the stamp
# does not already record; an optional requirement that does not install (no
# wheel for this Python, no PyPI) is named and left out.
install_once() {
  local stamp=$venv/.deps-$1 how=$2
  shift 2
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$*" ] && return 0
  if [ "$how" = REQUIRED ]; then
    "${pip[@]}" install -q "$@"
  else
    local r
    for r in "$@"; do
      "${pip[@]}" install -q "$r" >/dev/null 2>&1 || echo "setup: $r could not be installed here; the tests that need it skip"
    done
  fi
  echo "$*" >"$stamp"
}

groups=" ${DEPS:-test test-optional torch style} "
mapfile -t test_deps < <(extra test)
if [ "$want_test" = 1 ]; then
  install_once test REQUIRED "${test_deps[@]}"
  if [[ $groups == *" style "* ]]; then
    mapfile -t style_deps < <(extra style)
    install_once style OPTIONAL "${style_deps[@]}"
    # Valgrind, from the distribution: bench/instructions.py --check (CI's
    # guard on the documented calls' instructions) and suite.py --sanitize memcheck.
    command -v valgrind >/dev/null || apt_install valgrind >/dev/null ||
      echo "setup: valgrind could not be installed; the instruction-count guard cannot run"
  fi
  if [[ $groups == *" test-optional "* ]]; then
    # Open MPI from the distribution before mpi4py, which builds against it.
    if ! dpkg -s openmpi-bin libopenmpi-dev >/dev/null 2>&1; then
      apt_install openmpi-bin libopenmpi-dev >/dev/null || echo "setup: Open MPI could not be installed; the MPI tests skip"
    fi
    mapfile -t optional_deps < <(extra test-optional)
    install_once optional OPTIONAL "${optional_deps[@]}"
  fi
  if [[ $groups == *" torch "* ]]; then
    mapfile -t torch_deps < <(extra torch)
    install_once torch OPTIONAL "${torch_deps[@]}"
    # A Kokkos source for tests/test_internal_kokkos.py: 3.4.01 from PyPI, once.
    [ "$offline" = 1 ] || PYTHON=$vpy bash scripts/kokkos_source.sh >/dev/null ||
      echo "setup: Kokkos' source could not be fetched from PyPI; the package's own Kokkos tests will skip"
  fi
else
  # The build's part of the test list (scikit-build-core, CMake, ninja, NumPy).
  install_once build REQUIRED $(printf '%s\n' "${test_deps[@]}" | grep -E '^(scikit-build-core|cmake|ninja|numpy)\b')
fi

# ---- the package; its build directory makes a rebuild incremental ----
[ "$want_build" = 1 ] || exit 0
# shellcheck disable=SC2086  # KOKKOS_PYTHON_BUILD_ARGS are words
"${pip[@]}" install -q --no-build-isolation --no-deps -Cbuild-dir="$build_dir" \
  -Ccmake.define.KOKKOS_PYTHON_WERROR="${KOKKOS_PYTHON_WERROR:-OFF}" ${KOKKOS_PYTHON_BUILD_ARGS:-} "$root"
# (a sanitizer build imports only with its runtime preloaded: suite.py's wrapper)
case "${KOKKOS_PYTHON_BUILD_ARGS:-}" in *SANITIZE=*) exit 0 ;; esac
"$vpy" -c "import kokkos; print('setup: kokkos', kokkos.__version__, 'with Kokkos', '.'.join(map(str, kokkos.kokkos_version())), kokkos.enabled_backends())"
