#!/usr/bin/env bash
# init_order_probe.sh: runs the seed example's pybind11 module in the import
# orders that matter to Kokkos::initialize (NumPy first, kokkos first, the
# module alone, Kokkos' library loaded by hand first), each in a fresh Python
# with a native backtrace on a crash (scripts/segv_backtrace.c, preloaded),
# then shows which libraries the dynamic linker bound Kokkos' library to in
# the NumPy-first order, and the facts of the machine that could differ.
# For a crash seen on one machine only (docs/cuda.md, "After issues
# 48-50"); it changes nothing outside OUT.
#
#   bash scripts/init_order_probe.sh [OUT]       (default build/init-order)
#
# Needs: `kokkos` importable by PYTHON (default python3), a C compiler, and
# what tests/cxx_build.py needs to build the example (CMake, pybind11).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/init-order}
py=${PYTHON:-python3}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PYTHONUNBUFFERED=1

handler=$out/segv_backtrace.so
"${CC:-cc}" -shared -fPIC -O1 -o "$handler" scripts/segv_backtrace.c -ldl || exit 1
if ! ex=$(cd tests && "$py" -c "import cxx_build; print(cxx_build.examples())" 2>"$out/example-build.log"); then
  tail -n 30 "$out/example-build.log"
  echo "init_order_probe: the seed example's modules did not build ($out/example-build.log)"
  exit 1
fi
export PYTHONPATH="$ex/pybind11${PYTHONPATH:+:$PYTHONPATH}"
corelib=$("$py" -c "import kokkos, os; print(os.path.realpath(kokkos.get_kokkos_library()))")
corename=$(basename "$corelib" | sed -E 's/\.so.*//')

n=0
fails=0
probe() { # probe <what> <python code> [python option]
  n=$((n + 1))
  LD_PRELOAD=$handler timeout 60 "$py" ${3:+"$3"} -c "$2" >"$out/probe$n.txt" 2>&1
  local rc=$?
  printf '%-52s exit %s\n' "$1" "$rc"
  if [ $rc -ne 0 ]; then
    fails=$((fails + 1))
    grep -E "^(segv_backtrace|#[0-9]+ |Fatal Python|  File|Traceback|[A-Za-z]*Error)" "$out/probe$n.txt" | head -n 40 | cut -c1-240
  fi
}
probe "NumPy, then the module" "import numpy, ex_generate; print('ok')"
probe "the seed example (examples/ex-numpy.py)" "import runpy, sys; sys.argv = ['ex-numpy.py']; runpy.run_path('examples/ex-numpy.py', run_name='__main__')"
probe "kokkos, then NumPy, then the module" "import kokkos, numpy, ex_generate; print('ok')"
probe "the module alone" "import ex_generate; print('ok')"
probe "NumPy, then kokkos.initialize()" "import numpy, kokkos; kokkos.initialize(); print('ok')"
probe "Kokkos' library by hand, NumPy, the module" \
  "import ctypes; ctypes.CDLL('$corelib'); import numpy, ex_generate; print('ok')"
# Without the start-up hooks (.pth files) of the environment: its
# site-packages (NumPy, and kokkos if installed there) put back by hand.
sites=$("$py" -c "import site; print(':'.join(site.getsitepackages()))")
probe "NumPy, then the module, without .pth hooks (-S)" \
  "import sys; sys.path += '$sites'.split(':'); import numpy, ex_generate; print('ok')" -S

echo "== what Kokkos' library is bound to, NumPy imported first (symbols per library)"
rm -f "$out"/bindings.*
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$out/bindings" "$py" -c "import numpy, ex_generate" >/dev/null 2>&1
cat "$out"/bindings.* 2>/dev/null | grep -E "binding file [^ ]*$corename" | sed -E 's/.* to ([^ ]*) .*/\1/' |
  sort | uniq -c | sort -rn
echo "== definitions outside Kokkos and the C/C++ runtimes that Kokkos' library uses"
cat "$out"/bindings.* 2>/dev/null | grep -E "binding file [^ ]*$corename" |
  grep -v -E " to [^ ]*($corename|libkokkos|libstdc\+\+|libc\.so|libgomp|libm\.so|libgcc_s|ld-linux)" |
  sed -E "s/.* to ([^ ]*) .*symbol .([^ ']*)'.*/\1 \2/; s#^[^ ]*/##" | sort -u | (c++filt 2>/dev/null || cat) | cut -c1-200
echo "== libstdc++ symbols bound to NumPy's copies"
cat "$out"/bindings.* 2>/dev/null | grep -E "binding file [^ ]*libstdc\+\+" | grep -E " to [^ ]*numpy" |
  sed -E "s/.*symbol .([^ ']*)'.*/\1/" | sort -u | (c++filt 2>/dev/null || cat)

echo "== the machine"
"$py" -c "import platform, sys, os, numpy; print('Python', sys.version.split()[0], sys.executable); print('C library', *platform.libc_ver()); print('NumPy', numpy.__version__); print('CPUs', os.cpu_count(), 'usable', len(os.sched_getaffinity(0)))"
grep -m1 "model name" /proc/cpuinfo
uname -r
"$py" -c "import site, glob; [print('start-up hook', p) for d in site.getsitepackages() for p in sorted(glob.glob(d + '/*.pth'))]"
echo "init_order_probe: $fails of $n orders failed (outputs: $out/probe*.txt)"
[ $fails -eq 0 ]
