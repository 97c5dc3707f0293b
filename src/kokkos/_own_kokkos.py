"""The package's Kokkos stays its own when another Kokkos is in the process.

The dynamic loader resolves a module's undefined symbols in the global scope
first (the program, and whatever was loaded with RTLD_GLOBAL), then among
the module's own libraries. Another package's Kokkos loaded with
RTLD_GLOBAL (pennylane-lightning-kokkos links a Kokkos 5 into its module and
exports it) would so take over the calls the core and the kernels built
against this package make into Kokkos (Kokkos::initialize among them), and
this package's Kokkos, exported with RTLD_GLOBAL, would take over the other
package's. So:

- the core, and every extension module loaded later that links this
  package's Kokkos library (found by its soname in the file; the link-hint
  finder loads them), is never loaded with RTLD_GLOBAL, even where
  sys.setdlopenflags asks for it: this package's Kokkos never enters the
  global scope through them;
- when a Kokkos is already in the global scope and the package carries its
  own Kokkos, those are loaded with RTLD_DEEPBIND: their own libraries
  first. A package built on an installed Kokkos shares that Kokkos with the
  program that embeds Python (one Kokkos, one set of Views), so there the
  global scope is meant to win, and nothing is loaded with RTLD_DEEPBIND.
  Nor is it under AddressSanitizer, whose runtime refuses RTLD_DEEPBIND.

The Kokkos libraries themselves are linked -Bsymbolic-functions and have a soname of
their own (cmake/InternalKokkos.cmake), so a Kokkos loaded earlier is never
taken for this package's.
"""

import os
import sys

RTLD_GLOBAL = getattr(os, "RTLD_GLOBAL", 0)

# Kokkos::is_initialized() and Kokkos::initialize(int&, char**): every Kokkos
# since 3.0 defines them.
_KOKKOS_SYMBOLS = ("_ZN6Kokkos14is_initializedEv", "_ZN6Kokkos10initializeERiPPc")


def kokkos_in_global_scope():
    """Whether a Kokkos library's symbols are in the process' global scope
    and RTLD_DEEPBIND can keep this package's own Kokkos apart from it."""
    if not hasattr(os, "RTLD_DEEPBIND"):
        return False
    try:
        import ctypes  # here: only when a module is loaded

        process = ctypes.CDLL(None)
    except (ImportError, OSError, AttributeError):
        # no ctypes (a subinterpreter refuses it: the core says why), or
        # ctypes half imported (this runs while its _ctypes is loaded)
        return False
    if hasattr(process, "__asan_init"):  # AddressSanitizer aborts on RTLD_DEEPBIND
        return False
    return any(hasattr(process, name) for name in _KOKKOS_SYMBOLS)


class loading:
    """Context manager: extension modules imported inside it are loaded
    without RTLD_GLOBAL, and with RTLD_DEEPBIND when deep is true or, for
    deep=None, when the package carries its own Kokkos and another Kokkos is
    in the global scope."""

    def __init__(self, deep=None):
        self.deep = deep

    def __enter__(self):
        self.flags = sys.getdlopenflags()
        flags = self.flags & ~os.RTLD_GLOBAL
        deep = self.deep
        if deep is None:
            deep = bool(own_soname()) and kokkos_in_global_scope()
        if deep and hasattr(os, "RTLD_DEEPBIND"):
            flags |= os.RTLD_DEEPBIND
        sys.setdlopenflags(flags)
        return self

    def __exit__(self, *exc):
        sys.setdlopenflags(self.flags)
        return False


_soname = None


def own_soname():
    """The soname of the package's own Kokkos core library
    (lib/libkokkoscore-<tag>.so beside the package), or b"" for a Kokkos
    installed elsewhere. Read from the directory, not build.json: this runs
    while modules such as json's own are being imported."""
    global _soname
    if _soname is None:
        lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
        try:
            names = os.listdir(lib)
        except OSError:
            names = []
        tagged = [n for n in names if n.startswith("libkokkoscore-") and n.endswith(".so")]
        _soname = tagged[0].encode() if len(tagged) == 1 else b""
    return _soname


def links_own_kokkos(path):
    """Whether the shared object at path names this package's own Kokkos
    library (its soname, unique to the build) among what it needs."""
    soname = own_soname()
    if not soname:
        return False
    try:
        with open(path, "rb") as f:
            return soname in f.read()
    except OSError:
        return False
