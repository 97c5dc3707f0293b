#!/usr/bin/env bash
# wheel_cuda.sh (make wheel-cuda): the CUDA 13 wheel, distribution
# pykokkos-base-cu13 (import name kokkos), in dist/: the package's own Kokkos
# (4.x) with Serial + OpenMP + CUDA, machine code for compute capabilities
# 7.5, 8.0, 8.6, 8.9, 9.0, 10.0 and 12.0 and PTX for 7.5, in libkokkoscore and
# in the package's bridge. libcudart is bundled (auditwheel); libcuda.so.1,
# the driver's, is never inside. Needs nvcc 13 and no GPU.
#
#   KOKKOS_PYTHON_KOKKOS_SOURCE=/path/kokkos-4.6.01.tar.gz bash scripts/wheel_cuda.sh
#
# CUDA_HOME: the toolkit (default: the nvcc on PATH, else /usr/local/cuda).
# CUDA_ARCHS: the compute capabilities, lowest first (default
# "75 80 86 89 90 100 120"); the first is Kokkos_ARCH (Kokkos' CMake takes
# one) and gets the PTX; the others reach nvcc through NVCC_APPEND_FLAGS.
# PYTHON, WHEEL_DIR: as for scripts/wheel.sh. docs/building.md ("The CUDA
# wheel") says why these choices.
set -euo pipefail
# shellcheck source=scripts/wheel.sh
. "$(dirname "$0")/wheel.sh"
# wheel.sh's build tools, plus wheel to rename the distribution and cuobjdump
# for tests/test_wheel_cuda.py; root, py, tag and env come from it.
wheel_setup wheel "nvidia-cuda-cuobjdump>=13,<14"
cd "$root"
archs=${CUDA_ARCHS:-75 80 86 89 90 100 120}

nvcc=${CUDA_HOME:+$CUDA_HOME/bin/nvcc}
nvcc=${nvcc:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "wheel_cuda: no nvcc (set CUDA_HOME to a CUDA 13 toolkit)" >&2; exit 1; }
# The toolkit's own directory, as nvcc reports it (nvcc on PATH may be a
# script that runs the real one).
cuda_home=$("$nvcc" --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ _HERE_=//p' | head -n 1)
cuda_home=$(cd "${cuda_home:-$(dirname "$(readlink -f "$nvcc")")}/.." && pwd)
"$nvcc" --version | grep -q "release 13\." || { echo "wheel_cuda: $nvcc is not CUDA 13" >&2; exit 1; }

# Kokkos 4 links the driver library, libcuda.so. A machine without the
# driver (or the toolkit's lib64/stubs) has none: link against a stub made
# here from the toolkit's cuda.h, one empty function per driver entry point,
# with the driver's soname (libcuda.so.1, the only thing the wheel keeps of
# it). CMake's FindCUDAToolkit takes a library under a stubs/ directory as a
# link-time stand-in and puts no RPATH to it.
stub=$root/build/cuda-driver-stub/stubs
if [ ! -f "$stub/libcuda.so" ] || [ "$stub/libcuda.so" -ot "$cuda_home/include/cuda.h" ]; then
  mkdir -p "$stub"
  for d in "" -DCUDA_API_PER_THREAD_DEFAULT_STREAM; do cc -E -P -x c $d "$cuda_home/include/cuda.h"; done |
    grep -oE '\bcu[A-Z][A-Za-z0-9_]*[[:space:]]*\(' | tr -d '( \t' | sort -u |
    sed 's/.*/void &(void) {}/' >"$stub/libcuda_stub.c"
  cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stub/libcuda.so" "$stub/libcuda_stub.c"
fi
export CMAKE_LIBRARY_PATH=$stub${CMAKE_LIBRARY_PATH:+:$CMAKE_LIBRARY_PATH}

# Kokkos_ARCH for the lowest capability (its code paths are chosen at
# compile time, so the lowest is right for all), -gencode for the others.
declare -A kokkos_arch=([75]=TURING75 [80]=AMPERE80 [86]=AMPERE86 [87]=AMPERE87 [89]=ADA89 [90]=HOPPER90
  [100]=BLACKWELL100 [120]=BLACKWELL120)
read -r -a caps <<<"$archs"
first=${caps[0]}
[ -n "${kokkos_arch[$first]:-}" ] || { echo "wheel_cuda: no Kokkos_ARCH for compute capability $first" >&2; exit 1; }
gencode=""
for c in "${caps[@]:1}"; do gencode="$gencode -gencode=arch=compute_$c,code=sm_$c"; done
export NVCC_APPEND_FLAGS="${gencode# }"

if [ -z "${KOKKOS_PYTHON_KOKKOS_SOURCE:-}" ] && [ ! -f external/kokkos/core/src/Kokkos_Core.hpp ]; then
  echo "wheel_cuda: no Kokkos source named: the build downloads Kokkos 4.6.01 (offline, name a Kokkos 4.x" \
    "tarball or tree with KOKKOS_PYTHON_KOKKOS_SOURCE)"
fi

raw=$root/build/wheel-cuda-raw-$tag
rm -rf "$raw"
start=$(date +%s)
PATH="$cuda_home/bin:$PATH" CUDA_HOME=$cuda_home wheel_build "$raw" "build/wheel-cuda-$tag" \
  -Ccmake.define.Kokkos_ENABLE_CUDA=ON -Ccmake.define.Kokkos_ENABLE_SERIAL=ON -Ccmake.define.Kokkos_ENABLE_OPENMP=ON \
  "-Ccmake.define.Kokkos_ARCH_${kokkos_arch[$first]}=ON" -Ccmake.define.KOKKOS_PYTHON_WERROR="${KOKKOS_PYTHON_WERROR:-OFF}"
built=$(date +%s)

# The distribution's name: pykokkos-base-cu13 (METADATA and the .dist-info
# directory; the files are the same).
for whl in "$raw"/pykokkos_base-*.whl; do
  "$env/bin/wheel" unpack -d "$raw/tree" "$whl" >/dev/null
  rm "$whl"
done
for info in "$raw"/tree/*/pykokkos_base-*.dist-info; do
  sed -i 's/^Name: pykokkos-base$/Name: pykokkos-base-cu13/' "$info/METADATA"
  mv "$info" "$(dirname "$info")/pykokkos_base_cu13-${info##*/pykokkos_base-}"
done
for t in "$raw"/tree/*/; do "$env/bin/wheel" pack -d "$raw" "$t" >/dev/null; done

dist=${WHEEL_DIR:-dist}
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
LD_LIBRARY_PATH="$cuda_home/lib64:$cuda_home/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  wheel_repair "$raw" "$dist" --exclude libcuda.so.1
wheel_check_openmp "$repaired"
echo "wheel_cuda: compute capabilities $archs (PTX $first); built in $((built - start)) s," \
  "renamed and repaired in $(($(date +%s) - built)) s"
echo "wheel_cuda: $repaired ($(du -k "$repaired" | cut -f1) KiB)"
