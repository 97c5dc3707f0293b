"""The Kokkos runtime from Python: initialize, finalize, fence, configuration.

Kokkos can be initialized once per process and never again after finalize.
Creating a View initializes Kokkos with defaults when the program has not;
an atexit handler finalizes it if the program did not, when this package
initialized it (a C++ application's Kokkos is left to the application). Views alive at
finalize are released first (Kokkos must free its memory before finalize);
using one afterwards raises RuntimeError naming its label.
"""

import atexit
import gc
import os
import sys
import warnings

from . import _core
from ._types import _BUILD, _EXEC_NAMES, _SPACE_NAMES

is_initialized = _core.is_initialized
is_finalized = _core.is_finalized
device_id = _core.device_id
fence = _core.fence
kokkos_version = _core.kokkos_version


def initialize(
    argv=None,
    *,
    num_threads=None,
    device_id=None,
    disable_warnings=None,
    print_configuration=None,
    tools_libs=None,
    tools_args=None,
):
    """Initialize Kokkos.

    ``argv`` defaults to ``sys.argv`` (Kokkos reads its ``--kokkos-*`` flags
    there, as in the original package). The keywords map onto the installed
    Kokkos' settings. Returns True if this call initialized Kokkos, False if it
    already was initialized; raises RuntimeError after finalize. Importing a
    C++ module built on the kokkos_python pybind11 or nanobind header
    initializes Kokkos too: call this first to choose settings (given after
    such an import, they cannot apply, and a RuntimeWarning names the module).
    """
    argv_given = argv is not None
    if argv is None:
        argv = list(sys.argv) if sys.argv and sys.argv[0] else ["python"]
    elif isinstance(argv, str):
        raise TypeError("kokkos.initialize(): argv must be a list of str, not a str")
    else:
        argv = list(argv)
    explicit = _explicit_settings(
        argv if argv_given else None,
        num_threads=num_threads,
        device_id=device_id,
        disable_warnings=disable_warnings,
        print_configuration=print_configuration,
        tools_libs=tools_libs,
        tools_args=tools_args,
    )
    libs = None if tools_libs is None else _tools_libs(tools_libs)
    initialized = _core._initialize(
        argv,
        num_threads,
        device_id,
        disable_warnings,
        print_configuration,
        libs,
        tools_args,
    )
    if initialized:
        # A Tools library asked for (tools_libs, or the variable this Kokkos
        # reads) but not loaded: Kokkos prints its error on stderr, if any,
        # and runs on without it. The core says which variable it reads.
        _core._tools._warn_unloaded("kokkos.initialize()", libs)
    elif explicit and _initialized_at_import is not None:
        warnings.warn(
            f"kokkos.initialize(): Kokkos was already initialized, with default settings, when "
            f"{_initialized_at_import} was imported (a module built on the kokkos_python pybind11 or nanobind header "
            f"initializes Kokkos at import); {', '.join(explicit)} cannot apply any more: call "
            f"kokkos.initialize(...) before importing {_initialized_at_import}",
            RuntimeWarning,
            stacklevel=2,
        )
    return initialized


# The module whose import initialized Kokkos (_initialize_at_import), or None.
_initialized_at_import = None


def _initialize_at_import(module):
    """Called by a C++ module built on the kokkos_python pybind11 or nanobind
    header while Python loads it: initializes Kokkos as a plain
    kokkos.initialize() would (sys.argv's --kokkos-* flags included) unless
    Kokkos is initialized or finalized, and remembers module for the warning
    of a later initialize() with settings. True if it initialized."""
    global _initialized_at_import
    if _core.is_initialized() or _core.is_finalized():
        return False
    initialize()
    _initialized_at_import = module
    return True


def _explicit_settings(argv, **settings):
    """The settings a kokkos.initialize() call asks for explicitly: its
    keywords that are not None, and the options of an argv it was given."""
    named = [f"{k}={v!r}" for k, v in settings.items() if v is not None]
    if argv is not None:
        named += [repr(a) for a in argv[1:] if isinstance(a, str) and a.startswith("-")]
    return named


def _tools_libs(libs):
    """tools_libs as Kokkos reads it (';'-separated), after checking that
    every entry naming a path (one with a '/') exists: Kokkos would only
    print an error and go on without the tool."""
    if isinstance(libs, (str, os.PathLike)):
        entries = [os.fspath(libs)]
    else:
        try:
            entries = [os.fspath(x) for x in libs]
        except TypeError:
            raise TypeError(
                f"kokkos.initialize(): tools_libs must be a path or a list of paths, got {type(libs).__name__}"
            ) from None
    parts = [p for e in entries for p in e.split(";") if p]
    for path in parts:
        if os.sep in path and not os.path.exists(path):
            raise ValueError(
                f"kokkos.initialize(): tools_libs: {path!r} does not exist; give the path of a Kokkos Tools "
                "library (a .so file) or a bare library name the dynamic loader finds"
            )
    return ";".join(parts)


def finalize():
    """Finalize Kokkos. Live Views are released first."""
    gc.collect()
    _core.finalize()


def print_configuration(detail=False, file=None):
    """Print Kokkos' configuration (Kokkos::print_configuration)."""
    print(_core._configuration(detail), end="", file=file if file is not None else sys.stdout)


def enabled_backends():
    """Names of the execution spaces (backends) in the installed Kokkos."""
    return [name for name, on in zip(_EXEC_NAMES, _BUILD["exec_available"], strict=True) if on]


def enabled_memory_spaces():
    """Names of the memory spaces in the installed Kokkos."""
    return [name for name, on in zip(_SPACE_NAMES, _BUILD["space_available"], strict=True) if on]


@atexit.register
def _finalize_at_exit():
    # Whoever initialized Kokkos finalizes it: a C++ application that
    # embeds Python (or a C++ library that initialized Kokkos first) keeps
    # its Kokkos running after the interpreter ends.
    if _core.is_initialized() and _core._initialized_here():
        try:
            finalize()
        except Exception as exc:  # never let exit fail over it
            sys.stderr.write(f"kokkos: finalize at exit failed: {exc}\n")
