# Type stubs of kokkos._core, the C extension: the View type and the
# functions the package re-exports. Checked against the built module by
# `stubtest kokkos` (scripts/style.sh).
from builtins import bool as _bool
from builtins import float as _float
from builtins import int as _int
from collections.abc import Sequence
from types import EllipsisType, ModuleType
from typing import Any, Literal, Protocol, SupportsIndex, TypeAlias, final, overload

from typing_extensions import Buffer, Self, disjoint_base

from kokkos import dtype as _dtype_enum
from kokkos import layout as _layout_enum
from kokkos import memory_space as _memory_space_enum
from kokkos import memory_trait as _memory_trait_enum
from kokkos._types import Shape

# What the functions taking a dtype, memory space, layout or trait accept:
# the kokkos enum member, its name, or (dtype) a Python or NumPy type.
_DTypeLike: TypeAlias = _dtype_enum | str | type
_MemorySpaceLike: TypeAlias = _memory_space_enum | str
_LayoutLike: TypeAlias = _layout_enum | str
_TraitLike: TypeAlias = _memory_trait_enum | _int | str
# An index or slice into a View (NumPy rules: ints, slices, Ellipsis).
_Index: TypeAlias = (
    SupportsIndex | slice | None | EllipsisType | tuple[SupportsIndex | slice | None | EllipsisType, ...]
)
_Scalar: TypeAlias = _bool | _int | _float | complex

# What kokkos.array takes as memory: anything exposing the buffer protocol,
# __array_interface__, DLPack or __cuda_array_interface__ (a NumPy, CuPy or
# PyTorch array, a memoryview, a View).
class _SupportsArrayInterface(Protocol):
    @property
    def __array_interface__(self) -> dict[str, Any]: ...

class _SupportsCudaArrayInterface(Protocol):
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...

class _SupportsDLPack(Protocol):
    def __dlpack__(self) -> object: ...

_ArrayLike: TypeAlias = Buffer | _SupportsArrayInterface | _SupportsCudaArrayInterface | _SupportsDLPack

max_rank: _int

class HostAccessError(RuntimeError):
    """Host code tried to read or export memory of a space the host cannot
    access (a device View)."""

class DeviceAccessError(ValueError, BufferError, RuntimeError):
    """Device code (a kernel, a device copy, a GPU consumer) was given memory
    the device cannot read (pageable host memory on a GPU without pageable
    memory access)."""

@final
class Allocation:
    """The owner of a View's memory, shared by every View, subview and export."""

    @property
    def released(self) -> _bool: ...
    @property
    def exports(self) -> _int: ...
    @property
    def exporter(self) -> object: ...

@disjoint_base
class View:
    """A Kokkos View: dtype, rank 0..8, layout, memory space and traits are
    run-time values of one type."""

    @overload
    def __new__(
        cls,
        shape: Sequence[SupportsIndex] | SupportsIndex,
        dtype: _DTypeLike = ...,
        *,
        label: str = ...,
        space: _MemorySpaceLike = ...,
        layout: _LayoutLike = ...,
        trait: _TraitLike = ...,
        initialize: _bool = ...,
    ) -> Self: ...
    @overload
    def __new__(
        cls,
        label: str,
        shape: Sequence[SupportsIndex] | SupportsIndex,
        /,
        *,
        dtype: _DTypeLike = ...,
        space: _MemorySpaceLike = ...,
        layout: _LayoutLike = ...,
        trait: _TraitLike = ...,
        initialize: _bool = ...,
    ) -> Self: ...  # the original package's (label, shape) order
    # description
    @property
    def label(self) -> str: ...
    @property
    def dtype(self) -> _dtype_enum: ...
    @property
    def shape(self) -> Shape: ...
    @property
    def strides(self) -> tuple[_int, ...]: ...
    @property
    def ndim(self) -> _int: ...
    @property
    def rank(self) -> _int: ...
    @property
    def size(self) -> _int: ...
    @property
    def itemsize(self) -> _int: ...
    @property
    def nbytes(self) -> _int: ...
    @property
    def data(self) -> _int: ...
    @property
    def layout(self) -> _layout_enum: ...
    @property
    def space(self) -> _memory_space_enum: ...
    @property
    def memory_space(self) -> _memory_space_enum: ...
    @property
    def trait(self) -> _memory_trait_enum: ...
    @property
    def memory_trait(self) -> _memory_trait_enum: ...
    @property
    def dynamic(self) -> _bool: ...
    @property
    def readonly(self) -> _bool: ...
    @property
    def released(self) -> _bool: ...
    @property
    def host_accessible(self) -> _bool: ...
    @property
    def is_contiguous(self) -> _bool: ...
    @property
    def allocation(self) -> Allocation | None: ...
    def extent(self, r: SupportsIndex, /) -> _int: ...
    def stride(self, r: SupportsIndex, /) -> _int: ...
    def span(self) -> _int: ...
    def span_is_contiguous(self) -> _bool: ...
    def use_count(self) -> _int: ...
    # copies and mirrors
    def create_mirror(self, copy: _bool = ..., space: _MemorySpaceLike | None = ...) -> View: ...
    def create_mirror_view(self, copy: _bool = ..., space: _MemorySpaceLike | None = ...) -> View: ...
    def deep_copy(self, src: object) -> None: ...
    # elements
    # A slice (or ..., None) anywhere gives a subview; integers only give a
    # Python scalar when there is one per dimension, else a subview (the rank
    # is a run-time value, so the type says both).
    @overload
    def __getitem__(self, key: slice | EllipsisType | None, /) -> Self: ...
    @overload
    def __getitem__(  # type: ignore[overload-overlap]
        self, key: SupportsIndex | tuple[SupportsIndex, ...], /
    ) -> _Scalar | Self: ...
    @overload
    def __getitem__(self, key: tuple[SupportsIndex | slice | None | EllipsisType, ...], /) -> Self: ...
    def __setitem__(self, key: _Index, value: object, /) -> None: ...
    def __delitem__(self, key: _Index, /) -> None: ...
    def __len__(self) -> _int: ...
    def __bool__(self) -> _bool: ...
    def __int__(self) -> _int: ...
    def __float__(self) -> _float: ...
    def __complex__(self) -> complex: ...
    def __index__(self) -> _int: ...
    # exchange protocols
    @property
    def __array_interface__(self) -> dict[str, Any]: ...
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...
    __dlpack_c_exchange_api__: object  # a PyCapsule
    def __dlpack__(
        self,
        *,
        stream: _int | Any | None = ...,
        max_version: tuple[_int, _int] | None = ...,
        dl_device: tuple[_int, _int] | None = ...,
        copy: _bool | None = ...,
    ) -> object: ...  # a PyCapsule named dltensor or dltensor_versioned
    def __dlpack_device__(self) -> tuple[_int, _int]: ...
    def __reduce_ex__(self, protocol: SupportsIndex, /) -> str | tuple[Any, ...]: ...

class DynRankView(View):
    """A View whose rank is a run-time value (Kokkos::DynRankView, rank 0..7)."""

def deep_copy(dst: View, src: object) -> None: ...
def fence(label: str | None = ...) -> None: ...
def finalize() -> None: ...
def is_initialized() -> _bool: ...
def is_finalized() -> _bool: ...
def device_id() -> int | None: ...
def kokkos_version() -> tuple[_int, _int, _int]: ...
def from_dlpack(
    x: object, /, *, device: tuple[_int, _int] | None = ..., copy: _bool | None = ..., label: str | None = ...
) -> View: ...

_tools: ModuleType

# ---- kokkos.array and friends (array.c) ----

def array(
    shape_label_or_array: str | Sequence[SupportsIndex] | _ArrayLike,
    shape: Sequence[SupportsIndex] | None = ...,
    label: str | None = ...,
    array: object = ...,
    dtype: _DTypeLike | None = ...,
    space: _MemorySpaceLike | None = ...,
    layout: _LayoutLike | None = ...,
    trait: _TraitLike | None = ...,
    dynamic: _bool = ...,
    order: Literal["C", "F"] | None = ...,
    copy: _bool = ...,
) -> View: ...

unmanaged_array = array  # the same signature (a separate C function that always wraps)

def asarray(
    obj: object,
    /,
    *,
    dtype: _DTypeLike | None = ...,
    space: _MemorySpaceLike | None = ...,
    layout: _LayoutLike | None = ...,
    copy: _bool | None = ...,
    label: str | None = ...,
) -> View: ...
def create_mirror(src: View, copy: _bool = ..., space: _MemorySpaceLike | None = ...) -> View: ...
def create_mirror_view(src: View, copy: _bool = ..., space: _MemorySpaceLike | None = ...) -> View: ...
def create_mirror_view_and_copy(space: _MemorySpaceLike, src: View) -> View: ...
