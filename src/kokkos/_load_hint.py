"""An ImportError that says what to do when the core module cannot load.

The core (kokkos._core) links the Kokkos library the package was built
against, and through a Kokkos with CUDA the CUDA runtime and driver. When
one of them is missing on this machine, the dynamic loader fails before any
of the package's code runs, with a message that names a file or a symbol
and nothing else. explain() turns that message into one that says which
library it is and what to do. Pure Python, so it works without the core.
Only conflict() runs on every import; explain() and the regular expressions
it needs are for a failure, and load then.
"""

import os

# (pattern in the loader's message, what it means and what to do); the first
# that matches explains the failure.
_CAUSES = (
    (
        r"libcuda\.so[.0-9]*: cannot open shared object file",
        "this package's Kokkos uses CUDA, and this machine has no NVIDIA driver (libcuda.so.1 is missing). "
        "Run it where the GPU's driver is installed; on a machine without an NVIDIA GPU use a build without "
        "CUDA: the pykokkos-base wheel (pip uninstall pykokkos-base-cu13, then pip install pykokkos-base), "
        "or pip install . from the source, which leaves CUDA out where there is no GPU",
    ),
    (
        r"undefined symbol: cu[A-Z]",
        "its Kokkos library was linked without the CUDA driver library (libcuda.so): rebuild it on a machine "
        "with the NVIDIA driver or the CUDA toolkit's stubs (lib64/stubs/libcuda.so)",
    ),
    (
        r"libcudart\.so[.0-9]*: cannot open shared object file",
        "the CUDA runtime its Kokkos was built with is not on the library path: add the CUDA toolkit's "
        "lib64 directory to LD_LIBRARY_PATH (or /etc/ld.so.conf.d), or install that CUDA version",
    ),
    (
        r"libkokkos[\w-]*\.so[.0-9]*: cannot open shared object file",
        "the Kokkos library it was built against is gone or moved: reinstall the package (pip install .) "
        "against the Kokkos you have, or put that Kokkos back",
    ),
)


# A Kokkos symbol the core needs is missing from the Kokkos library the
# loader found: a cause only when the library the package was built against
# is gone (the loader then found another Kokkos of the same file name, as
# Debian sid's libkokkoscore.so is, of another version).
_KOKKOS_SYMBOL = r"undefined symbol: _ZN\d*Kokkos"


def explain(exc, kokkos_library=None):
    """The message of an ImportError from loading kokkos._core, with the
    cause and the remedy where the loader's message shows one; None when it
    shows none (the original error then stands as it is). kokkos_library:
    the path of the Kokkos library the package was built against (its build
    record), if known."""
    import re  # here: only a failure needs it

    text = str(exc)
    for pattern, remedy in _CAUSES:
        if re.search(pattern, text):
            return f"kokkos: the core module could not load: {remedy}. The loader said: {text}"
    if kokkos_library and re.search(_KOKKOS_SYMBOL, text) and not os.path.exists(kokkos_library):
        return (
            f"kokkos: the core module could not load: the Kokkos library it was built against ({kokkos_library}) "
            "is gone or moved, and the loader found another Kokkos of that name, of another version, in its place: "
            "reinstall the package (pip install .) against the Kokkos you have, or put that Kokkos back. "
            f"The loader said: {text}"
        )
    return None


# The distributions that install the kokkos package: the CPU wheel and the
# CUDA 13 wheel (scripts/wheel.sh --cuda). They hold the same files.
_DISTRIBUTIONS = {"pykokkos_base": "pykokkos-base", "pykokkos_base_cu13": "pykokkos-base-cu13"}


def conflict(package_dir):
    """A message when more than one distribution of the kokkos package is
    installed where package_dir is (pykokkos-base and pykokkos-base-cu13:
    each install put its files over the other's, so what is there is a mix,
    and uninstalling one removes the other's files); None otherwise. Reads
    the directory's list of names only."""
    site = os.path.dirname(os.path.abspath(package_dir))
    try:
        names = os.listdir(site)
    except OSError:
        return None
    found = sorted(
        _DISTRIBUTIONS[name.split("-", 1)[0]]
        for name in names
        if name.endswith(".dist-info") and name.split("-", 1)[0] in _DISTRIBUTIONS
    )
    if len(found) < 2:
        return None
    return (
        f"kokkos: {' and '.join(found)} are both installed in {site}. They install the same files (the kokkos "
        "package, lib/, include/), so each install wrote over the other's and neither is whole. Remove both "
        f"(pip uninstall -y {' '.join(found)}), then install one: pykokkos-base-cu13 for NVIDIA GPUs (CUDA 13), "
        "pykokkos-base for the CPU."
    )
