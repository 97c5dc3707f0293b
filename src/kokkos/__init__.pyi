# Type stubs of the kokkos package (the pykokkos-base API). The View type
# and the runtime functions are in _core.pyi, Kokkos Tools in tools/.
# Checked against the installed package by `stubtest kokkos`
# (scripts/style.sh; stubtest-allowlist.txt says what cannot match).
#
# kokkos.float, kokkos.int and kokkos.bool are dtype members (float32,
# int32, bool) that shadow the built-ins here: annotations below spell the
# built-ins _float, _int, _bool.
from builtins import bool as _bool
from builtins import int as _int
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, TextIO, TypeAlias, TypeVar, final, overload

from . import _core as libpykokkos
from . import mpi as mpi
from . import pickling as pickling
from . import tools as tools
from ._core import DeviceAccessError as DeviceAccessError
from ._core import DynRankView as DynRankView
from ._core import HostAccessError as HostAccessError
from ._core import View as View
from ._core import array as array
from ._core import asarray as asarray
from ._core import create_mirror as create_mirror
from ._core import create_mirror_view as create_mirror_view
from ._core import create_mirror_view_and_copy as create_mirror_view_and_copy
from ._core import deep_copy as deep_copy
from ._core import device_id as device_id
from ._core import fence as fence
from ._core import from_dlpack as from_dlpack
from ._core import is_finalized as is_finalized
from ._core import is_initialized as is_initialized
from ._core import kokkos_version as kokkos_version
from ._core import unmanaged_array as unmanaged_array
from ._execution import ExecutionSpaceInstance as ExecutionSpaceInstance
from ._scalars import complex_float32 as complex_float32
from ._scalars import complex_float64 as complex_float64
from ._types import Shape as Shape

__version__: str
version: str
version_info: tuple[_int, _int, _int]

# ---- enumerations (their members are also module attributes, below) ----
# Integer enumerations, as IntEnum and IntFlag (kokkos/_types.py): the
# class is iterated, indexed by name and called with a value.

_E = TypeVar("_E")

class _EnumType(type):
    def __iter__(cls: type[_E]) -> Iterator[_E]: ...
    def __reversed__(cls: type[_E]) -> Iterator[_E]: ...
    def __len__(cls) -> _int: ...
    def __contains__(cls, value: object) -> _bool: ...
    def __getitem__(cls: type[_E], name: str) -> _E: ...
    @property
    def __members__(cls: type[_E]) -> Mapping[str, _E]: ...

class _Enum(_int, metaclass=_EnumType):
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> _int: ...

@final
class dtype(_Enum):
    """View element types (kokkos.float64 is also kokkos.double, ...)."""

    @property
    def dtype(self) -> Any: ...  # the numpy.dtype
    # generated: dtype members (tests/test_stubs.py --write)
    int8: ClassVar[_DType]
    int16: ClassVar[_DType]
    int32: ClassVar[_DType]
    int64: ClassVar[_DType]
    uint8: ClassVar[_DType]
    uint16: ClassVar[_DType]
    uint32: ClassVar[_DType]
    uint64: ClassVar[_DType]
    float32: ClassVar[_DType]
    float64: ClassVar[_DType]
    complex64: ClassVar[_DType]
    complex128: ClassVar[_DType]
    bool: ClassVar[_DType]
    float16: ClassVar[_DType]
    signed_char: ClassVar[_DType]
    char: ClassVar[_DType]
    short: ClassVar[_DType]
    int: ClassVar[_DType]
    long: ClassVar[_DType]
    long_long: ClassVar[_DType]
    unsigned_char: ClassVar[_DType]
    unsigned_short: ClassVar[_DType]
    unsigned: ClassVar[_DType]
    unsigned_int: ClassVar[_DType]
    unsigned_long: ClassVar[_DType]
    unsigned_long_long: ClassVar[_DType]
    float: ClassVar[_DType]
    single: ClassVar[_DType]
    double: ClassVar[_DType]
    complex_float: ClassVar[_DType]
    complex_float32_dtype: ClassVar[_DType]
    complex_float_dtype: ClassVar[_DType]
    complex_double: ClassVar[_DType]
    complex_float64_dtype: ClassVar[_DType]
    complex_double_dtype: ClassVar[_DType]
    bool_: ClassVar[_DType]
    half: ClassVar[_DType]
    # end of generated

# (inside dtype, the name dtype is its property)
_DType: TypeAlias = dtype

@final
class device(_Enum):
    """Kokkos execution spaces (backends)."""

    # generated: device members (tests/test_stubs.py --write)
    Serial: ClassVar[device]
    Threads: ClassVar[device]
    OpenMP: ClassVar[device]
    Cuda: ClassVar[device]
    HPX: ClassVar[device]
    HIP: ClassVar[device]
    SYCL: ClassVar[device]
    OpenMPTarget: ClassVar[device]
    DefaultExecutionSpace: ClassVar[device]
    DefaultHostExecutionSpace: ClassVar[device]
    # end of generated

@final
class memory_space(_Enum):
    """Kokkos memory spaces."""

    # generated: memory_space members (tests/test_stubs.py --write)
    HostSpace: ClassVar[memory_space]
    CudaSpace: ClassVar[memory_space]
    CudaUVMSpace: ClassVar[memory_space]
    CudaHostPinnedSpace: ClassVar[memory_space]
    HBWSpace: ClassVar[memory_space]
    HIPSpace: ClassVar[memory_space]
    HIPHostPinnedSpace: ClassVar[memory_space]
    OpenMPTargetSpace: ClassVar[memory_space]
    SYCLSharedUSMSpace: ClassVar[memory_space]
    SYCLDeviceUSMSpace: ClassVar[memory_space]
    DefaultMemorySpace: ClassVar[memory_space]
    DefaultHostMemorySpace: ClassVar[memory_space]
    Host: ClassVar[memory_space]
    Serial: ClassVar[memory_space]
    OpenMP: ClassVar[memory_space]
    Threads: ClassVar[memory_space]
    HPX: ClassVar[memory_space]
    Cuda: ClassVar[memory_space]
    HIP: ClassVar[memory_space]
    OpenMPTarget: ClassVar[memory_space]
    SYCL: ClassVar[memory_space]
    HIPManagedSpace: ClassVar[memory_space]
    # end of generated

@final
class layout(_Enum):
    """Kokkos array layouts."""

    # generated: layout members (tests/test_stubs.py --write)
    LayoutRight: ClassVar[layout]
    LayoutLeft: ClassVar[layout]
    LayoutStride: ClassVar[layout]
    # end of generated

@final
class memory_trait(_Enum):
    """Kokkos memory traits; combine them with | as Kokkos::MemoryTraits."""

    def __or__(self, other: _int) -> memory_trait: ...
    def __ror__(self, other: _int) -> memory_trait: ...
    def __and__(self, other: _int) -> memory_trait: ...
    def __rand__(self, other: _int) -> memory_trait: ...
    def __xor__(self, other: _int) -> memory_trait: ...
    def __rxor__(self, other: _int) -> memory_trait: ...
    def __invert__(self) -> memory_trait: ...
    def __contains__(self, other: _int) -> _bool: ...
    def __iter__(self) -> Iterator[memory_trait]: ...
    def __len__(self) -> _int: ...

    # generated: memory_trait members (tests/test_stubs.py --write)
    Managed: ClassVar[memory_trait]
    Unmanaged: ClassVar[memory_trait]
    RandomAccess: ClassVar[memory_trait]
    Atomic: ClassVar[memory_trait]
    Restrict: ClassVar[memory_trait]
    Aligned: ClassVar[memory_trait]
    # end of generated

dtypes: tuple[dtype, ...]
all_dtypes: tuple[dtype, ...]
devices: tuple[device, ...]
memory_spaces: tuple[memory_space, ...]
layouts: tuple[layout, ...]
memory_traits: tuple[memory_trait, ...]

# the members as module attributes (memory spaces win over execution spaces of the same name)
# generated: module attributes (tests/test_stubs.py --write)
int8: dtype
int16: dtype
int32: dtype
int64: dtype
uint8: dtype
uint16: dtype
uint32: dtype
uint64: dtype
float32: dtype
float64: dtype
complex64: dtype
complex128: dtype
bool: dtype
float16: dtype
signed_char: dtype
char: dtype
short: dtype
int: dtype
long: dtype
long_long: dtype
unsigned_char: dtype
unsigned_short: dtype
unsigned: dtype
unsigned_int: dtype
unsigned_long: dtype
unsigned_long_long: dtype
float: dtype
single: dtype
double: dtype
complex_float: dtype
complex_float32_dtype: dtype
complex_float_dtype: dtype
complex_double: dtype
complex_float64_dtype: dtype
complex_double_dtype: dtype
bool_: dtype
half: dtype
Serial: memory_space
Threads: memory_space
OpenMP: memory_space
Cuda: memory_space
HPX: memory_space
HIP: memory_space
SYCL: memory_space
OpenMPTarget: memory_space
DefaultExecutionSpace: device
DefaultHostExecutionSpace: device
HostSpace: memory_space
CudaSpace: memory_space
CudaUVMSpace: memory_space
CudaHostPinnedSpace: memory_space
HBWSpace: memory_space
HIPSpace: memory_space
HIPHostPinnedSpace: memory_space
OpenMPTargetSpace: memory_space
SYCLSharedUSMSpace: memory_space
SYCLDeviceUSMSpace: memory_space
DefaultMemorySpace: memory_space
DefaultHostMemorySpace: memory_space
Host: memory_space
HIPManagedSpace: memory_space
LayoutRight: layout
LayoutLeft: layout
LayoutStride: layout
Managed: memory_trait
Unmanaged: memory_trait
RandomAccess: memory_trait
Atomic: memory_trait
Restrict: memory_trait
Aligned: memory_trait
# end of generated

# ---- the runtime ----

def initialize(
    argv: Sequence[str] | None = ...,
    *,
    num_threads: _int | None = ...,
    device_id: _int | None = ...,
    disable_warnings: _bool | None = ...,
    print_configuration: _bool | None = ...,
    tools_libs: str | Sequence[str] | None = ...,
    tools_args: str | None = ...,
) -> _bool: ...
def finalize() -> None: ...
def print_configuration(detail: _bool = ..., file: TextIO | None = ...) -> None: ...
def enabled_backends() -> list[str]: ...
def enabled_memory_spaces() -> list[str]: ...

# ---- Views ----

max_concrete_rank: _int

# array, unmanaged_array, asarray and the mirror functions: kokkos._core (_core.pyi).

# ---- names and availability ----

@overload
def get_dtype(value: str) -> dtype: ...
@overload
def get_dtype(value: dtype | _int) -> str: ...
@overload
def get_memory_space(value: str) -> memory_space: ...
@overload
def get_memory_space(value: memory_space | _int) -> str: ...
@overload
def get_layout(value: str) -> layout: ...
@overload
def get_layout(value: layout | _int) -> str: ...
@overload
def get_memory_trait(value: str) -> memory_trait: ...
@overload
def get_memory_trait(value: memory_trait | _int) -> str: ...
@overload
def get_execution_space(value: str) -> device: ...
@overload
def get_execution_space(value: device | _int) -> str: ...
def get_memory_space_available(space: memory_space | _int | str) -> _bool: ...
def get_host_accessible(space: memory_space | _int | str) -> _bool: ...
def get_execution_space_available(space: device | _int | str) -> _bool: ...
def get_device_available(space: device | _int | str) -> _bool: ...
def get_layout_available(value: layout | _int | str) -> _bool: ...
def get_memory_trait_available(value: memory_trait | _int | str) -> _bool: ...
def convert_dtype(_dtype: dtype | _int | str, _module: Any = ...) -> Any: ...
def read_dtype(_dtype: object) -> Any: ...

# ---- building C and C++ modules (docs/cxx.md) ----

def get_include() -> str: ...
def get_cmake_dir() -> str: ...
def get_kokkos_include() -> str: ...
def get_kokkos_library() -> str: ...
def include_dirs() -> list[str]: ...
def ldflags() -> list[str]: ...
def cxx_standard() -> _int: ...
def cxxflags() -> list[str]: ...
def build_config() -> dict[str, Any]: ...

# generated: __all__ (tests/test_stubs.py --write)
# fmt: off
__all__ = [
    "DynRankView", "ExecutionSpaceInstance", "HostAccessError", "DeviceAccessError", "Shape", "View", "array",
    "all_dtypes", "asarray", "build_config", "complex_float32", "complex_float64", "convert_dtype", "create_mirror",
    "create_mirror_view", "create_mirror_view_and_copy", "deep_copy", "device", "device_id", "devices", "dtype",
    "dtypes", "enabled_backends", "enabled_memory_spaces", "fence", "finalize", "from_dlpack", "get_cmake_dir",
    "get_device_available", "get_dtype", "get_execution_space", "get_execution_space_available", "get_host_accessible",
    "get_include", "get_kokkos_include", "get_kokkos_library", "get_layout", "get_layout_available",
    "get_memory_space", "get_memory_space_available", "get_memory_trait", "get_memory_trait_available", "include_dirs",
    "initialize", "is_finalized", "is_initialized", "kokkos_version", "layout", "layouts", "ldflags", "cxx_standard",
    "cxxflags", "libpykokkos", "max_concrete_rank", "memory_space", "memory_spaces", "memory_trait", "memory_traits",
    "mpi", "pickling", "print_configuration", "read_dtype", "tools", "unmanaged_array", "version", "version_info",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "complex64",
    "complex128", "float16", "signed_char", "char", "short", "long", "long_long", "unsigned_char", "unsigned_short",
    "unsigned", "unsigned_int", "unsigned_long", "unsigned_long_long", "single", "double", "complex_float",
    "complex_float32_dtype", "complex_float_dtype", "complex_double", "complex_float64_dtype", "complex_double_dtype",
    "bool_", "half", "Serial", "Threads", "OpenMP", "Cuda", "HPX", "HIP", "SYCL", "OpenMPTarget",
    "DefaultExecutionSpace", "DefaultHostExecutionSpace", "HostSpace", "CudaSpace", "CudaUVMSpace",
    "CudaHostPinnedSpace", "HBWSpace", "HIPSpace", "HIPHostPinnedSpace", "OpenMPTargetSpace", "SYCLSharedUSMSpace",
    "SYCLDeviceUSMSpace", "DefaultMemorySpace", "DefaultHostMemorySpace", "Host", "HIPManagedSpace", "LayoutRight",
    "LayoutLeft", "LayoutStride", "Managed", "Unmanaged", "RandomAccess", "Atomic", "Restrict", "Aligned",
    "KokkosExecutionSpace_Serial",
]
# fmt: on
# end of generated

# The backends' execution-space classes, one per enabled backend
# (KokkosExecutionSpace_Serial, ..._OpenMP, ..._Cuda, ...); the stubs are
# checked against CI's build, which has Serial only.
# generated: execution-space classes (tests/test_stubs.py --write)
KokkosExecutionSpace_Serial: type[ExecutionSpaceInstance]
# end of generated
