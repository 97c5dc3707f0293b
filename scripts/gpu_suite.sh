#!/usr/bin/env bash
# gpu_suite.sh: the whole check on a machine with an NVIDIA GPU, in one run.
#
#   Kokkos_ROOT=/path/to/cuda/kokkos/install bash scripts/gpu_suite.sh [OUT [PART]]
#   KOKKOS_PYTHON_KOKKOS_SOURCE=/path/to/kokkos-source-or-tarball bash scripts/gpu_suite.sh [OUT [PART]]
#
# Given a Kokkos built with CUDA (shared libraries), it builds the package
# against it into OUT/site (building in OUT/build; OUT defaults to build/gpu-suite);
# given a Kokkos source instead, it builds the package with its own Kokkos
# from that source (ENABLE_INTERNAL_KOKKOS=ON: CUDA comes on with the GPU,
# CUDA 13's source changes are made in a copy). Then it runs
#   1. the `cuda`-marked tests (device memory, CuPy, PyTorch, JAX, streams,
#      C++ modules on the GPU, Kokkos Tools on the GPU),
#   2. every other test of the suite,
#   3. bench/bench_cuda.py (bandwidths and exchange costs against CuPy),
# and prints their summary lines at the end. PART runs a part only: `cuda`
# (1 and 3) or `rest` (2), e.g. to split the run over two calls of a
# time-limited remote machine; the build is incremental. `rest:I/N` runs
# the I-th of N shares of part 2 (every N-th test file from the I-th, so
# the heavy C++ files spread over the shares). Logs go to OUT/*.log, one line
# per test (so a run cut short still names what failed).
# WORKERS=N spreads the tests over N pytest-xdist workers, a test file each
# (`--dist loadfile`), where pytest-xdist is installed; a worker that crashes
# is restarted at most twice per part (`--max-worker-restart 2`), and the
# summary names the test each crash happened in. Every test has a time limit
# (pyproject.toml: pytest-timeout, 300 s, thread method: a hung test ends its
# worker, which shows as such a crash). The
# machine's Python needs numpy, pytest, hypothesis, pybind11, nanobind,
# scikit-build-core, cmake and ninja; CuPy, PyTorch, JAX and mpi4py are used
# where present, pytest-timeout if installed. Exits non-zero when the build or
# a test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${Kokkos_ROOT:-}" ] && [ -z "${KOKKOS_PYTHON_KOKKOS_SOURCE:-}" ]; then
  echo "gpu_suite: set Kokkos_ROOT to a Kokkos install built with CUDA, or KOKKOS_PYTHON_KOKKOS_SOURCE to a Kokkos source" >&2
  exit 2
fi
py=${PYTHON:-python3}
out=${1:-build/gpu-suite}
part=${2:-all}
targets=(tests)
log_name=suite.log
if [[ "$part" =~ ^rest:([0-9]+)/([0-9]+)$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= BASH_REMATCH[2])); then
  share=${BASH_REMATCH[1]}
  shares=${BASH_REMATCH[2]}
  mapfile -t targets < <(ls tests/test_*.py | sort | awk -v i="$share" -v n="$shares" '(NR - i) % n == 0')
  log_name="suite-$share-of-$shares.log"
  echo "gpu_suite: share $share of $shares: ${targets[*]}"
elif [[ ! "$part" =~ ^(all|cuda|rest)$ ]]; then
  echo "gpu_suite: PART is all, cuda, rest or rest:I/N (1 <= I <= N), not '$part'" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PYTHONUNBUFFERED=1
# JAX would otherwise take most of the GPU's memory at first use.
export XLA_PYTHON_CLIENT_PREALLOCATE=false

start=$(date +%s)
kokkos_choice=()
if [ -n "${Kokkos_ROOT:-}" ]; then
  echo "gpu_suite: building against Kokkos_ROOT=$Kokkos_ROOT"
else
  echo "gpu_suite: building with the package's own Kokkos from $KOKKOS_PYTHON_KOKKOS_SOURCE"
  kokkos_choice=(-Ccmake.define.ENABLE_INTERNAL_KOKKOS=ON)
fi
if ! "$py" -m pip install -v --disable-pip-version-check --no-build-isolation --no-deps "${kokkos_choice[@]}" \
  -Cbuild-dir="$out/build" --target "$out/site" --upgrade . >"$out/build.log" 2>&1; then
  tail -n 60 "$out/build.log"
  echo "gpu_suite: the package did not build (log: $out/build.log)"
  exit 1
fi
grep -E "^ *-- kokkos-python:" "$out/build.log" | sed 's/^ *-- /gpu_suite: /' || true
built=$(date +%s)
export PYTHONPATH="$out/site${PYTHONPATH:+:$PYTHONPATH}"
if ! "$py" -c 'import kokkos, sys; sys.exit(0 if kokkos.get_memory_space_available("CudaSpace") else 1)'; then
  echo "gpu_suite: this Kokkos has no CudaSpace: build Kokkos with -DKokkos_ENABLE_CUDA=ON"
  exit 1
fi
"$py" -c 'import kokkos; print("gpu_suite: kokkos", kokkos.__version__, "with Kokkos", kokkos.kokkos_version(), kokkos.enabled_backends())'

rc=0
summary=()
spread=()
if [ -n "${WORKERS:-}" ] && "$py" -c 'import xdist' 2>/dev/null; then
  spread=(-n "$WORKERS" --dist loadfile --max-worker-restart 2)
fi
# The tests that crashed an xdist worker (or hung past the time limit), from
# a log: "worker 'gw3' crashed while running 'tests/test_x.py::test_y'" (the
# test id in double quotes when it holds a single quote).
crashes() {
  grep -oE "worker '[^']+' crashed while running ('[^']+'|\"[^\"]+\")" "$1" | sort -u | sed 's/^/  crashed: /'
}
if [[ "$part" != rest* ]]; then
  t0=$(date +%s)
  "$py" -m pytest -v -m cuda -rfE "${spread[@]}" tests >"$out/cuda.log" 2>&1 || rc=1
  grep -E "(FAILED|ERROR) |=+ .*(passed|failed|skipped)" "$out/cuda.log" | tail -n 40
  summary+=("cuda-marked tests ($(($(date +%s) - t0)) s): $(tail -n 1 "$out/cuda.log")")
  mapfile -t -O "${#summary[@]}" summary < <(crashes "$out/cuda.log")
fi
if [ "$part" != cuda ]; then
  t0=$(date +%s)
  log="$out/$log_name"
  "$py" -m pytest -v -m "not cuda" -rfE "${spread[@]}" "${targets[@]}" >"$log" 2>&1 || rc=1
  grep -E "(FAILED|ERROR) |=+ .*(passed|failed|skipped)" "$log" | tail -n 60
  summary+=("other tests, $part ($(($(date +%s) - t0)) s): $(tail -n 1 "$log")")
  mapfile -t -O "${#summary[@]}" summary < <(crashes "$log")
fi
if [[ "$part" != rest* ]]; then
  t0=$(date +%s)
  "$py" bench/bench_cuda.py 2>&1 | tee "$out/bench.log" || rc=1
  summary+=("bench_cuda ($(($(date +%s) - t0)) s):")
fi

echo
echo "==== gpu_suite summary ===="
echo "build: $((built - start)) s"
for line in "${summary[@]}"; do echo "$line"; done
[[ "$part" != rest* ]] && { grep -E "GB/s|ns " "$out/bench.log" || true; }
exit $rc
