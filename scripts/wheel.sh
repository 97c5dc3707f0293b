#!/usr/bin/env bash
# wheel.sh (make wheel, make wheel-cuda): a binary wheel of the package with its
# own Kokkos inside, repaired by auditwheel to a manylinux tag (every library
# outside the manylinux policy bundled), in dist/. Installing it needs no
# compiler and no Kokkos.
#
#   bash scripts/wheel.sh           pykokkos-base: Serial + OpenMP, shared
#   bash scripts/wheel.sh --cuda    pykokkos-base-cu13 (import name kokkos): the
#                                   package's own Kokkos (4.x) with Serial +
#                                   OpenMP + CUDA 13, machine code for compute
#                                   capabilities 7.5 to 12.0 and PTX for 7.5, in
#                                   libkokkoscore and in the package's bridge;
#                                   libcudart bundled, libcuda.so.1 (the
#                                   driver's) never inside. Needs nvcc 13, no GPU.
#
# PYTHON picks the Python the wheel is for (default: python3); the build
# tools go into build/wheel-env-cpXY. The Kokkos source: the one
# KOKKOS_PYTHON_KOKKOS_SOURCE names, else external/kokkos, else (CPU wheel)
# Kokkos 3.4.01 from PyPI (scripts/kokkos_source.sh) or (CUDA wheel) Kokkos
# 4.6.01 downloaded by the build. WHEEL_DIR names another directory for the
# wheel. The installed wheel is checked by scripts/suite.py --kokkos wheel:FILE.
#
# One OpenMP runtime: the compiler's libgomp.so.1 goes into the wheel's lib/
# under that very name (KOKKOS_PYTHON_BUNDLE_OPENMP_RUNTIME), not renamed by
# auditwheel, so that modules compiled with -fopenmp against the installed
# wheel share it (docs/building.md, "The binary wheel").
#
# CUDA wheel only: CUDA_HOME, the toolkit (default: the nvcc on PATH, else
# /usr/local/cuda); CUDA_ARCHS, the compute capabilities, lowest first
# (default "75 80 86 89 90 100 120"): the first is Kokkos_ARCH (Kokkos' CMake
# takes one) and gets the PTX; the others reach nvcc through
# NVCC_APPEND_FLAGS. docs/building.md ("The CUDA wheel") says why.
set -euo pipefail
cuda=0
case "${1:-}" in
  --cuda) cuda=1 ;;
  "") ;;
  *) echo "usage: scripts/wheel.sh [--cuda]" >&2; exit 2 ;;
esac

# The package's own Kokkos, with the OpenMP runtime under its own soname.
WHEEL_DEFINES=(-Ccmake.define.ENABLE_INTERNAL_KOKKOS=ON -Ccmake.define.KOKKOS_PYTHON_BUNDLE_OPENMP_RUNTIME=ON)

wheel_setup() {
  root=$(cd "$(dirname "$0")/.." && pwd)
  py=${PYTHON:-python3}
  tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  env=$root/build/wheel-env-$tag
  # A fresh Debian machine: a compiler, and venv for the build tools.
  if ! command -v c++ >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    _wheel_as_root apt-get update -q && _wheel_as_root apt-get install -y -q g++
  fi
  if ! "$env/bin/python" -m pip --version >/dev/null 2>&1; then
    rm -rf "$env"
    "$py" -m venv "$env" || { rm -rf "$env" && _wheel_as_root apt-get install -y -q python3-venv && "$py" -m venv "$env"; }
  fi
  # The build tools: pyproject.toml's `wheel` group, and those of the groups named.
  local tools
  tools=$(PYTHON=$py bash "$root/scripts/setup.sh" --deps wheel "$@" | tr '\n' ' ')
  if ! grep -qxF "$tools" "$env/.tools" 2>/dev/null; then
    # shellcheck disable=SC2086
    "$env/bin/python" -m pip install -q --disable-pip-version-check $tools
    echo "$tools" >>"$env/.tools"
  fi
}

_wheel_as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

wheel_kokkos_source() {
  if [ -z "${KOKKOS_PYTHON_KOKKOS_SOURCE:-}" ] && [ ! -f "$root/external/kokkos/core/src/Kokkos_Core.hpp" ]; then
    KOKKOS_PYTHON_KOKKOS_SOURCE=$(PYTHON="$env/bin/python" bash "$root/scripts/kokkos_source.sh")
    echo "wheel: no Kokkos source named; using Kokkos 3.4.01 from PyPI ($KOKKOS_PYTHON_KOKKOS_SOURCE)"
  fi
  export KOKKOS_PYTHON_KOKKOS_SOURCE
}

# wheel_build RAW BUILD_DIR [PIP_ARGS...]: the unrepaired wheel in RAW.
wheel_build() {
  local raw=$1 build=$2
  shift 2
  rm -rf "$raw"
  (cd "$root" && PATH="$env/bin:$PATH" "$env/bin/python" -m pip wheel -q --disable-pip-version-check \
    --no-build-isolation --no-deps -w "$raw" -Cbuild-dir="$build" "${WHEEL_DEFINES[@]}" "$@" .)
}

# wheel_repair RAW DIST [AUDITWHEEL_ARGS...]: each wheel of RAW repaired
# into DIST; sets repaired to the last one written.
wheel_repair() {
  local raw=$1 dist=$2 whl
  shift 2
  for whl in "$raw"/*.whl; do
    PATH="$env/bin:$PATH" "$env/bin/auditwheel" repair "$@" -w "$dist" "$whl" >"$raw/auditwheel.log" 2>&1 ||
      { cat "$raw/auditwheel.log"; return 1; }
  done
  repaired=$(sed -n 's/.*Fixed-up wheel written to //p' "$raw/auditwheel.log" | tail -n 1)
}

# wheel_check_openmp WHEEL: the OpenMP runtime is inside as lib/libgomp.so.1,
# and auditwheel grafted no renamed copy of it.
wheel_check_openmp() {
  local names
  names=$("$env/bin/python" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$1")
  grep -qx "lib/libgomp.so.1" <<<"$names" || { echo "wheel: $1 lacks lib/libgomp.so.1" >&2; return 1; }
  if grep -v "^lib/libgomp.so.1$" <<<"$names" | grep -q "libgomp"; then
    echo "wheel: $1 holds a second OpenMP runtime: $(grep libgomp <<<"$names" | tr '\n' ' ')" >&2
    return 1
  fi
}


# ---- the CPU wheel ----
cpu_wheel() {
  wheel_setup
  cd "$root"
  wheel_kokkos_source
  raw=$root/build/wheel-raw-$tag
  start=$(date +%s)
  wheel_build "$raw" "build/wheel-$tag" -Ccmake.define.Kokkos_ENABLE_CUDA=OFF \
    -Ccmake.define.KOKKOS_PYTHON_WERROR="${KOKKOS_PYTHON_WERROR:-OFF}"
  built=$(date +%s)
  dist=${WHEEL_DIR:-dist}
  mkdir -p "$dist"
  dist=$(cd "$dist" && pwd)
  wheel_repair "$raw" "$dist"
  wheel_check_openmp "$repaired"
  echo "wheel: built in $((built - start)) s, repaired in $(($(date +%s) - built)) s"
  echo "wheel: $repaired ($(du -k "$repaired" | cut -f1) KiB)"
}

# ---- the CUDA 13 wheel ----
cuda_wheel() {
  # The build tools, plus the `wheel-cuda` group's; root, py, tag and env come from it.
  wheel_setup wheel-cuda
  cd "$root"
  archs=${CUDA_ARCHS:-75 80 86 89 90 100 120}

  nvcc=${CUDA_HOME:+$CUDA_HOME/bin/nvcc}
  nvcc=${nvcc:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  [ -x "$nvcc" ] || { echo "wheel --cuda: no nvcc (set CUDA_HOME to a CUDA 13 toolkit)" >&2; exit 1; }
  # The toolkit's own directory, as nvcc reports it (nvcc on PATH may be a
  # script that runs the real one).
  cuda_home=$("$nvcc" --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ _HERE_=//p' | head -n 1)
  cuda_home=$(cd "${cuda_home:-$(dirname "$(readlink -f "$nvcc")")}/.." && pwd)
  "$nvcc" --version | grep -q "release 13\." || { echo "wheel --cuda: $nvcc is not CUDA 13" >&2; exit 1; }

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
  [ -n "${kokkos_arch[$first]:-}" ] || { echo "wheel --cuda: no Kokkos_ARCH for compute capability $first" >&2; exit 1; }
  gencode=""
  for c in "${caps[@]:1}"; do gencode="$gencode -gencode=arch=compute_$c,code=sm_$c"; done
  export NVCC_APPEND_FLAGS="${gencode# }"

  if [ -z "${KOKKOS_PYTHON_KOKKOS_SOURCE:-}" ] && [ ! -f external/kokkos/core/src/Kokkos_Core.hpp ]; then
    echo "wheel --cuda: no Kokkos source named: the build downloads Kokkos 4.6.01 (offline, name a Kokkos 4.x" \
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
  echo "wheel --cuda: compute capabilities $archs (PTX $first); built in $((built - start)) s," \
    "renamed and repaired in $(($(date +%s) - built)) s"
  echo "wheel --cuda: $repaired ($(du -k "$repaired" | cut -f1) KiB)"
}

if [ "$cuda" = 1 ]; then cuda_wheel; else cpu_wheel; fi
