"""kokkos: Kokkos Views in Python.

Create, index, copy and mirror Kokkos Views; exchange them zero-copy with
NumPy and other array libraries; pass them to and from C++ Kokkos code.
The API is that of pykokkos-base: code written for it runs unchanged.
"""

from . import _core
from . import _core as libpykokkos  # the original package's module name
from ._types import (
    Shape,
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
from .interop import asarray, from_dlpack
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

from . import tools  # noqa: E402  (kokkos.tools, as in pykokkos-base)
