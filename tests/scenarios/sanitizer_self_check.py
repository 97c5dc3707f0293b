"""Deliberate memory errors, to prove the sanitizer run is watching
(tests/test_hostile.py, only under scripts/suite.py --sanitize address). Outside a sanitized
interpreter the overrun corrupts the heap: never run these by hand.

    sanitizer_self_check.py CASE
"""

import ctypes

import kokkos
from scenario import run


def overrun_view_memory():
    """Writes a page past the end of an 80-byte View: ASan must stop the
    process with a heap-buffer-overflow report."""
    v = kokkos.View((10,), label="small")
    ctypes.memset(v.data, 0, 80 + 4096)
    print("not caught")


def leak_a_block():
    """Leaks 4321 bytes from malloc: LeakSanitizer must report them."""
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    p = libc.malloc(4321)
    del p
    print("leaked")


CASES = {f.__name__: f for f in (overrun_view_memory, leak_a_block)}

if __name__ == "__main__":
    run(CASES)
