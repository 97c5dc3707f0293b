"""kokkos: Kokkos Views in Python.

Create, index, copy and mirror Kokkos Views; exchange them zero-copy with
NumPy and other array libraries; pass them to and from C++ Kokkos code.
The API is that of pykokkos-base: code written for it runs unchanged.
"""

from . import _core
from . import _core as libpykokkos  # the original package's module name
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
from .runtime import (
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
from .interop import asarray, from_dlpack
from ._scalars import complex_float32, complex_float64  # Kokkos::complex<float>, <double>
from ._execution import ExecutionSpaceInstance
from . import _execution
from ._paths import get_cmake_dir, get_include  # for C and C++ modules (python -m kokkos)
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

from . import pickling as _pickling  # noqa: E402,F401  (pickle support for View / DynRankView)

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


def __getattr__(name):
    """The original's View classes by name: kokkos.KokkosView_float64_HostSpace_LayoutRight_2,
    kokkos.KokkosDynRankView_int32_HostSpace_LayoutRight (also what pickling a class looks up)."""
    from .utility import _view_class_by_name

    cls = _view_class_by_name(name)
    if cls is None:
        raise AttributeError(f"module 'kokkos' has no attribute {name!r}")
    return cls
