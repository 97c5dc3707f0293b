"""Start-up hook of the sanitizer venv (scripts/sanitize.sh), imported by a
.pth file in every Python process of that venv.

1. The interpreter was started with the sanitizer runtimes in LD_PRELOAD
   (bin/python is a wrapper that sets it). It is dropped from the
   environment here, so that compilers and other programs the tests start are
   not sanitized; Python children started through sys.executable get it again
   from the wrapper.
2. LeakSanitizer's own exit-time check is off (leak_check_at_exit=0): CPython
   does not free what is alive at shutdown, and the package deliberately
   leaves some memory in place during interpreter teardown (as NumPy does).
   Instead the leak check runs from the first-registered atexit handler,
   which runs last among them: after kokkos' own atexit finalize, before the
   interpreter tears its modules down. Every object of the program is then
   either still reachable or was freed; memory lost during the run is
   reported (to ASAN_OPTIONS' log_path, which the script checks).
"""

import atexit
import ctypes
import gc
import os

os.environ.pop("LD_PRELOAD", None)


def _leak_check():
    gc.collect()
    try:
        check = ctypes.CDLL(None).__lsan_do_recoverable_leak_check
    except (OSError, AttributeError):
        return
    check.restype = ctypes.c_int
    check()


atexit.register(_leak_check)
