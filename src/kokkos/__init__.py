"""kokkos: Kokkos Views in Python.

Create, index, copy and mirror Kokkos Views; exchange them zero-copy with
NumPy and other array libraries; pass them to and from C++ Kokkos code.
The API is that of pykokkos-base: code written for it runs unchanged.
"""

from . import _own_kokkos
from ._load_hint import conflict as _conflict

_clash = _conflict(__path__[0])  # pykokkos-base and pykokkos-base-cu13 installed over each other
if _clash:
    raise ImportError(_clash, name=__name__)
try:
    with _own_kokkos.loading():  # never RTLD_GLOBAL; next to another Kokkos, its own libraries first
        from . import _core
except ImportError as _exc:  # a library the core links is missing here: say which, and what to do
    from ._load_hint import explain as _explain

    try:
        from ._paths import build_config as _build_config

        _library = _build_config().get("kokkos_library")
    except Exception:  # no build record: the loader's words are all there is
        _library = None
    _why = _explain(_exc, _library)
    if _why is None:
        raise
    raise ImportError(_why, name=__name__) from _exc
from . import _core as libpykokkos  # the original package's module name
from . import _execution, _link_hint
from ._execution import ExecutionSpaceInstance
from ._paths import (  # for C and C++ modules (python -m kokkos; docs/cxx.md)
    build_config,
    cxx_standard,
    cxxflags,
    get_cmake_dir,
    get_include,
    get_kokkos_include,
    get_kokkos_library,
    include_dirs,
    ldflags,
)
from ._scalars import complex_float32, complex_float64  # Kokkos::complex<float>, <double>
from ._types import (
    Shape,
    all_dtypes,
    device,
    devices,
    dtype,
    dtypes,
    layout,
    layouts,
    memory_space,
    memory_spaces,
    memory_trait,
    memory_traits,
)
from .interop import asarray, from_dlpack
from .runtime import (
    device_id,
    enabled_backends,
    enabled_memory_spaces,
    fence,
    finalize,
    initialize,
    is_finalized,
    is_initialized,
    kokkos_version,
    print_configuration,
)
from .utility import (
    DynRankView,
    View,
    array,
    convert_dtype,
    create_mirror,
    create_mirror_view,
    create_mirror_view_and_copy,
    deep_copy,
    get_device_available,
    get_dtype,
    get_execution_space,
    get_execution_space_available,
    get_host_accessible,
    get_layout,
    get_layout_available,
    get_memory_space,
    get_memory_space_available,
    get_memory_trait,
    get_memory_trait_available,
    max_concrete_rank,
    read_dtype,
    unmanaged_array,
)

HostAccessError = _core.HostAccessError
DeviceAccessError = _core.DeviceAccessError

from . import pickling  # noqa: E402,F401  (kokkos.pickling.restore_space; View.__reduce_ex__ calls it)

__version__ = "0.1.0"
version = __version__
version_info = (0, 1, 0)

# Enumeration members as module attributes, as in pykokkos-base:
# kokkos.float64, kokkos.double, kokkos.HostSpace, kokkos.LayoutRight, ...
# As in the original, memory-space names win over execution-space names that
# are also memory-space aliases: kokkos.Cuda is memory_space.CudaSpace and
# kokkos.Serial is memory_space.HostSpace (kokkos.device.Cuda is the backend).
globals().update(dtype.__members__)
globals().update(device.__members__)
globals().update(memory_space.__members__)
globals().update(layout.__members__)
globals().update(memory_trait.__members__)
# kokkos.KokkosExecutionSpace_Serial, ..._OpenMP, ..._Cuda: one per enabled backend
globals().update(_execution.classes)

from . import tools  # noqa: E402  (kokkos.tools, as in pykokkos-base)

# pykokkos reads the Kokkos interface it generates code for from
# PK_KOKKOS_INTERFACE when it is imported (after this package), and takes
# 3.7 without it: View types with Kokkos::Experimental::DefaultViewHooks,
# which a Kokkos before 3.7 lacks, so every kernel with a View argument
# would fail to compile. Such a Kokkos names itself (unless the variable is
# set already).
if kokkos_version()[:2] < (3, 7):
    import os as _os

    _os.environ.setdefault("PK_KOKKOS_INTERFACE", "{}.{}".format(*kokkos_version()[:2]))

# The public API, for `from kokkos import *` and documentation tools. The
# enumeration members join it by name, except those that would shadow a
# built-in (kokkos.float, kokkos.int, kokkos.bool stay attributes only:
# a star import must leave Python's float, int and bool alone).
__all__ = [
    "DynRankView",
    "ExecutionSpaceInstance",
    "HostAccessError",
    "DeviceAccessError",
    "Shape",
    "View",
    "array",
    "all_dtypes",
    "asarray",
    "build_config",
    "complex_float32",
    "complex_float64",
    "convert_dtype",
    "create_mirror",
    "create_mirror_view",
    "create_mirror_view_and_copy",
    "deep_copy",
    "device",
    "device_id",
    "devices",
    "dtype",
    "dtypes",
    "enabled_backends",
    "enabled_memory_spaces",
    "fence",
    "finalize",
    "from_dlpack",
    "get_cmake_dir",
    "get_device_available",
    "get_dtype",
    "get_execution_space",
    "get_execution_space_available",
    "get_host_accessible",
    "get_include",
    "get_kokkos_include",
    "get_kokkos_library",
    "get_layout",
    "get_layout_available",
    "get_memory_space",
    "get_memory_space_available",
    "get_memory_trait",
    "get_memory_trait_available",
    "include_dirs",
    "initialize",
    "is_finalized",
    "is_initialized",
    "kokkos_version",
    "layout",
    "layouts",
    "ldflags",
    "cxx_standard",
    "cxxflags",
    "libpykokkos",
    "max_concrete_rank",
    "memory_space",
    "memory_spaces",
    "memory_trait",
    "memory_traits",
    "mpi",
    "pickling",
    "print_configuration",
    "read_dtype",
    "tools",
    "unmanaged_array",
    "version",
    "version_info",
]


def _enum_names() -> list[str]:
    import builtins

    seen = set(__all__)
    names = []
    for enum in (dtype, device, memory_space, layout, memory_trait):
        for name in enum.__members__:
            if name not in seen and not hasattr(builtins, name):
                seen.add(name)
                names.append(name)
    return names


__all__ += _enum_names()
__all__ += sorted(_execution.classes)  # KokkosExecutionSpace_<Backend>
del _enum_names

# A module linked without `python -m kokkos --ldflags`: an ImportError that says so.
_link_hint.install()

# The per-combination View classes (kokkos.KokkosView_float64_HostSpace_LayoutRight_2, ...)
# become module attributes when they are made, the first time a View of one exists. No module
# __getattr__ makes them on demand: with one, Python never caches a kokkos.<name> lookup.
_core._publish_view_classes(globals())
