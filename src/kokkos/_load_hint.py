"""An ImportError that says what to do when the core module cannot load.

The core (kokkos._core) links the Kokkos library the package was built
against, and through a Kokkos with CUDA the CUDA runtime and driver. When
one of them is missing on this machine, the dynamic loader fails before any
of the package's code runs, with a message that names a file or a symbol
and nothing else. explain() turns that message into one that says which
library it is and what to do. Pure Python, so it works without the core.
"""

import re

# (pattern in the loader's message, what it means and what to do); the first
# that matches explains the failure.
_CAUSES = (
    (
        re.compile(r"libcuda\.so[.0-9]*: cannot open shared object file"),
        "this package's Kokkos uses CUDA, and this machine has no NVIDIA driver (libcuda.so.1 is missing). "
        "Run it where the GPU's driver is installed, or build the package against a Kokkos without CUDA "
        "(pip install . on this machine leaves CUDA out where there is no GPU)",
    ),
    (
        re.compile(r"undefined symbol: cu[A-Z]"),
        "its Kokkos library was linked without the CUDA driver library (libcuda.so): rebuild it on a machine "
        "with the NVIDIA driver or the CUDA toolkit's stubs (lib64/stubs/libcuda.so)",
    ),
    (
        re.compile(r"libcudart\.so[.0-9]*: cannot open shared object file"),
        "the CUDA runtime its Kokkos was built with is not on the library path: add the CUDA toolkit's "
        "lib64 directory to LD_LIBRARY_PATH (or /etc/ld.so.conf.d), or install that CUDA version",
    ),
    (
        re.compile(r"libkokkos[\w-]*\.so[.0-9]*: cannot open shared object file"),
        "the Kokkos library it was built against is gone or moved: reinstall the package (pip install .) "
        "against the Kokkos you have, or put that Kokkos back",
    ),
)


def explain(exc):
    """The message of an ImportError from loading kokkos._core, with the
    cause and the remedy where the loader's message shows one; None when it
    shows none (the original error then stands as it is)."""
    text = str(exc)
    for pattern, remedy in _CAUSES:
        if pattern.search(text):
            return f"kokkos: the core module could not load: {remedy}. The loader said: {text}"
    return None
