"""Start-up hook of the sanitizer venv (scripts/suite.py --sanitize address), imported by a
.pth file in every Python process of that venv.

1. The interpreter was started with the sanitizer runtimes in LD_PRELOAD
   (bin/python is a wrapper that sets it). It is dropped from the
   environment here, so that compilers and other programs the tests start are
   not sanitized; Python children started through sys.executable get it again
   from the wrapper.
2. LeakSanitizer's own exit-time check is off (leak_check_at_exit=0): CPython
   does not free what is alive at shutdown, and the package deliberately
   leaves some memory in place during interpreter teardown (as NumPy does).
   Instead the leak check runs from the first-registered atexit handler
   (in the pytest process; see _leak_check for the others),
   which runs last among them: after kokkos' own atexit finalize, before the
   interpreter tears its modules down. Every object of the program is then
   either still reachable or was freed; memory lost during the run is
   reported (to ASAN_OPTIONS' log_path, which the script checks).
"""

import atexit
import ctypes
import gc
import os
import sys
import threading

os.environ.pop("LD_PRELOAD", None)


def _leak_check():
    # The pytest process runs nearly every test and is checked; the many
    # short scenario scripts the tests start are checked for errors but not
    # for leaks unless asked (KOKKOS_SANITIZE_CHILD_LEAKS=1): LeakSanitizer's
    # stop-the-world now and then dies on a loaded machine ("Tracer caught
    # signal 11"), and once per run is enough exposure.
    if "pytest" not in sys.modules and os.environ.get("KOKKOS_SANITIZE_CHILD_LEAKS") != "1":
        return
    # Threads still running (daemon threads at exit) make that worse, and
    # their memory is in use, not lost: check only a quiet process.
    if threading.active_count() > 1:
        return
    gc.collect()
    try:
        check = ctypes.CDLL(None).__lsan_do_recoverable_leak_check
    except (OSError, AttributeError):
        return
    check.restype = ctypes.c_int
    # The check runs in a forked copy of this process: the copy holds the
    # same heap, so it finds the same leaks, and if LeakSanitizer's
    # stop-the-world fails there ("Tracer caught signal", which kills the
    # process with ASan's exit code 1 and no report that names a leak), only
    # the copy dies and the check is tried again, instead of the test run
    # ending with status 1 after every test passed.
    for attempt in range(3):
        pid = os.fork()
        if pid == 0:
            os._exit(2 if check() else 0)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code in (0, 2):
            return  # done; leaks, if any, are in the report files
        # The copy's own report of the failure moves to the notes, so that
        # the script does not count a retried attempt as an error.
        _note_unavailable(
            f"leak check process {pid} ended with status {code} (attempt {attempt + 1} of 3)", _take_log(pid)
        )
    _note_unavailable("LeakSanitizer could not stop the process to scan it (three attempts); leaks were not checked")


def _take_log(pid):
    # ASan writes a process's reports to "<log_path>.<pid>".
    for opt in os.environ.get("ASAN_OPTIONS", "").split(":"):
        if opt.startswith("log_path="):
            path = f"{opt[len('log_path=') :]}.{pid}"
            try:
                with open(path) as f:
                    text = f.read()
                os.remove(path)
                return text
            except OSError:
                return ""
    return ""


def _note_unavailable(text, detail=""):
    # A file beside the reports, which scripts/suite.py --sanitize address prints: the run
    # says plainly when and why a leak check did not happen.
    log = os.environ.get("KOKKOS_SANITIZE_NOTES")
    sys.stderr.write(f"kokkos_sanitize_site: {text}\n")
    if log:
        with open(log, "a") as f:
            f.write(f"process {os.getpid()}: {text}\n{detail}")


atexit.register(_leak_check)
