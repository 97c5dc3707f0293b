# Type stubs of kokkos.tools: Kokkos Tools from Python (regions, sections,
# events, metadata, callbacks, tuning). Checked by `stubtest kokkos`.
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from enum import IntEnum
from typing import Any, NamedTuple, TypeVar, final

_F = TypeVar("_F", bound=Callable[..., Any])

# A callback: any callable (its arguments depend on the event) or None to remove it.
_Callback = Callable[..., Any] | None
# Each event's callback, as Kokkos calls it (docs/tools.md); None removes it.
# Events that hand out an id (begin_parallel_*, begin_fence,
# create_profile_section) take the int the callable returns (None: Kokkos'
# own numbering).
_Id = int | None
_InitCallback = Callable[[int, int, int, "DeviceInfo | None"], object] | None
_PlainCallback = Callable[[], object] | None
_ParseArgsCallback = Callable[[int, list[str]], object] | None
_NameCallback = Callable[[str], object] | None
_BeginCallback = Callable[[str, int], _Id] | None
_EndCallback = Callable[[int], object] | None
_DataCallback = Callable[["SpaceHandle", str, int, int], object] | None
_CreateSectionCallback = Callable[[str], _Id] | None
_DeepCopyCallback = Callable[["SpaceHandle", str, int, "SpaceHandle", str, int, int], object] | None
_DualViewCallback = Callable[[str, int, bool], object] | None
_MetadataCallback = Callable[[str, str], object] | None
_ToolSettingsCallback = Callable[[int, "ToolSettings"], object] | None
_ProgrammingInterfaceCallback = Callable[[int, "ToolProgrammingInterface"], object] | None
_DeclareTypeCallback = Callable[[str, int, "VariableInfo"], object] | None
_RequestOutputValuesCallback = Callable[[int, list["VariableValue"], list["VariableValue"]], object] | None
_ContextCallback = Callable[[int], object] | None
_EndContextCallback = Callable[[int, "VariableValue | None"], object] | None
_OptimizationGoalCallback = Callable[[int, "OptimizationGoal"], object] | None

KOKKOSP_INTERFACE_VERSION: int
KOKKOS_ENABLE_TUNING: bool
EVENTS: tuple[str, ...]

@final
class DeviceInfo:
    deviceID: int
    def __new__(cls, deviceID: int = ...) -> DeviceInfo: ...

@final
class SpaceHandle:
    name: str
    def __new__(cls, name: str = ...) -> SpaceHandle: ...

@final
class ToolSettings:
    requires_global_fencing: bool
    def __new__(cls, requires_global_fencing: bool = ...) -> ToolSettings: ...

@final
class ToolProgrammingInterface:
    def fence(self, device_id: int = ...) -> None: ...

class ValueType(IntEnum):
    double = 0
    int64 = 1
    string = 2

class StatisticalCategory(IntEnum):
    categorical = 0
    ordinal = 1
    interval = 2
    ratio = 3

class CandidateValueType(IntEnum):
    set = 0
    range = 1
    unbounded = 2

class OptimizationType(IntEnum):
    minimize = 0
    maximize = 1

class ValueRange(NamedTuple):
    lower: int | float
    upper: int | float
    step: int | float
    open_lower: bool = False
    open_upper: bool = False

class OptimizationGoal(NamedTuple):
    type_id: int
    goal: OptimizationType

class NativeCallback(NamedTuple):
    """A callback Kokkos holds that is not a Python callable (a tool library's function)."""

    library: str | None
    symbol: str | None
    address: int

@final
class VariableInfo:
    def __new__(
        cls,
        type: ValueType | type[int] | type[float] | type[str] | str,
        category: StatisticalCategory | str,
        candidates: Sequence[int | float | str] | ValueRange | None = ...,
    ) -> VariableInfo: ...
    @property
    def type(self) -> ValueType: ...
    @property
    def category(self) -> StatisticalCategory: ...
    @property
    def value_quantity(self) -> CandidateValueType: ...
    @property
    def candidates(self) -> tuple[int | float | str, ...] | ValueRange | None: ...

@final
class VariableValue:
    value: int | float | str
    def __new__(cls, type_id: int, value: int | float | str) -> VariableValue: ...
    @property
    def type_id(self) -> int: ...
    @property
    def type(self) -> ValueType: ...
    @property
    def info(self) -> VariableInfo | None: ...
    @property
    def readonly(self) -> bool: ...

# ---- profiling (Kokkos::Tools) ----
def push_region(name: str) -> None: ...
def pop_region() -> None: ...
def create_profile_section(name: str) -> int: ...
def start_section(id: int) -> None: ...
def stop_section(id: int) -> None: ...
def destroy_profile_section(id: int) -> None: ...
def mark_event(name: str) -> None: ...
def declare_metadata(key: str, value: str) -> None: ...
def profile_library_loaded() -> bool: ...
def make_space_handle(name: str) -> SpaceHandle: ...
def pause_tools() -> None: ...
def resume_tools() -> None: ...
def tools_paused() -> bool: ...

class _Region:
    name: str
    def __enter__(self) -> _Region: ...
    def __exit__(self, *exc: object) -> None: ...
    def __call__(self, func: _F) -> _F: ...

def region(name: str) -> _Region: ...

class ProfilingSection:
    name: str
    def __init__(self, name: str) -> None: ...
    @property
    def id(self) -> int: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...
    def destroy(self) -> None: ...
    def __enter__(self) -> ProfilingSection: ...
    def __exit__(self, *exc: object) -> bool: ...

def profile_section(name: str) -> AbstractContextManager[ProfilingSection]: ...

# ---- tuning (Kokkos::Tools::Experimental) ----
def get_new_context_id() -> int: ...
def get_current_context_id() -> int: ...
def get_new_variable_id() -> int: ...
def begin_context(context_id: int) -> None: ...
def end_context(context_id: int) -> None: ...
def declare_input_type(name: str, info: VariableInfo) -> int: ...
def declare_output_type(name: str, info: VariableInfo) -> int: ...
def declare_optimization_goal(context_id: int, goal: OptimizationGoal) -> None: ...
def request_output_values(
    context_id: int, inputs: Sequence[VariableValue], outputs: Sequence[VariableValue]
) -> None: ...
def have_tuning_tool() -> bool: ...

# ---- callbacks ----
def set_callback(event: str, callback: _Callback) -> None: ...
def get_callbacks() -> dict[str, Callable[..., Any] | NativeCallback | None]: ...
def clear_callbacks() -> None: ...
def set_init_callback(callback: _InitCallback) -> None: ...
def set_finalize_callback(callback: _PlainCallback) -> None: ...
def set_parse_args_callback(callback: _ParseArgsCallback) -> None: ...
def set_print_help_callback(callback: _NameCallback) -> None: ...
def set_begin_parallel_for_callback(callback: _BeginCallback) -> None: ...
def set_end_parallel_for_callback(callback: _EndCallback) -> None: ...
def set_begin_parallel_reduce_callback(callback: _BeginCallback) -> None: ...
def set_end_parallel_reduce_callback(callback: _EndCallback) -> None: ...
def set_begin_parallel_scan_callback(callback: _BeginCallback) -> None: ...
def set_end_parallel_scan_callback(callback: _EndCallback) -> None: ...
def set_push_region_callback(callback: _NameCallback) -> None: ...
def set_pop_region_callback(callback: _PlainCallback) -> None: ...
def set_allocate_data_callback(callback: _DataCallback) -> None: ...
def set_deallocate_data_callback(callback: _DataCallback) -> None: ...
def set_create_profile_section_callback(callback: _CreateSectionCallback) -> None: ...
def set_start_profile_section_callback(callback: _EndCallback) -> None: ...
def set_stop_profile_section_callback(callback: _EndCallback) -> None: ...
def set_destroy_profile_section_callback(callback: _EndCallback) -> None: ...
def set_profile_event_callback(callback: _NameCallback) -> None: ...
def set_begin_deep_copy_callback(callback: _DeepCopyCallback) -> None: ...
def set_end_deep_copy_callback(callback: _PlainCallback) -> None: ...
def set_begin_fence_callback(callback: _BeginCallback) -> None: ...
def set_end_fence_callback(callback: _EndCallback) -> None: ...
def set_dual_view_sync_callback(callback: _DualViewCallback) -> None: ...
def set_dual_view_modify_callback(callback: _DualViewCallback) -> None: ...
def set_declare_metadata_callback(callback: _MetadataCallback) -> None: ...
def set_request_tool_settings_callback(callback: _ToolSettingsCallback) -> None: ...
def set_provide_tool_programming_interface_callback(callback: _ProgrammingInterfaceCallback) -> None: ...
def set_declare_output_type_callback(callback: _DeclareTypeCallback) -> None: ...
def set_declare_input_type_callback(callback: _DeclareTypeCallback) -> None: ...
def set_request_output_values_callback(callback: _RequestOutputValuesCallback) -> None: ...
def set_begin_context_callback(callback: _ContextCallback) -> None: ...
def set_end_context_callback(callback: _EndContextCallback) -> None: ...
def set_declare_optimization_goal_callback(callback: _OptimizationGoalCallback) -> None: ...

__all__ = [
    "CandidateValueType",
    "DeviceInfo",
    "EVENTS",
    "KOKKOSP_INTERFACE_VERSION",
    "KOKKOS_ENABLE_TUNING",
    "NativeCallback",
    "OptimizationGoal",
    "OptimizationType",
    "ProfilingSection",
    "SpaceHandle",
    "StatisticalCategory",
    "ToolProgrammingInterface",
    "ToolSettings",
    "ValueRange",
    "ValueType",
    "VariableInfo",
    "VariableValue",
    "begin_context",
    "clear_callbacks",
    "create_profile_section",
    "declare_input_type",
    "declare_metadata",
    "declare_optimization_goal",
    "declare_output_type",
    "destroy_profile_section",
    "end_context",
    "get_callbacks",
    "get_current_context_id",
    "get_new_context_id",
    "get_new_variable_id",
    "have_tuning_tool",
    "make_space_handle",
    "mark_event",
    "pause_tools",
    "pop_region",
    "profile_library_loaded",
    "profile_section",
    "push_region",
    "region",
    "request_output_values",
    "resume_tools",
    "set_callback",
    "start_section",
    "stop_section",
    "tools_paused",
    "set_init_callback",
    "set_finalize_callback",
    "set_parse_args_callback",
    "set_print_help_callback",
    "set_begin_parallel_for_callback",
    "set_end_parallel_for_callback",
    "set_begin_parallel_reduce_callback",
    "set_end_parallel_reduce_callback",
    "set_begin_parallel_scan_callback",
    "set_end_parallel_scan_callback",
    "set_push_region_callback",
    "set_pop_region_callback",
    "set_allocate_data_callback",
    "set_deallocate_data_callback",
    "set_create_profile_section_callback",
    "set_start_profile_section_callback",
    "set_stop_profile_section_callback",
    "set_destroy_profile_section_callback",
    "set_profile_event_callback",
    "set_begin_deep_copy_callback",
    "set_end_deep_copy_callback",
    "set_begin_fence_callback",
    "set_end_fence_callback",
    "set_dual_view_sync_callback",
    "set_dual_view_modify_callback",
    "set_declare_metadata_callback",
    "set_request_tool_settings_callback",
    "set_provide_tool_programming_interface_callback",
    "set_declare_output_type_callback",
    "set_declare_input_type_callback",
    "set_request_output_values_callback",
    "set_begin_context_callback",
    "set_end_context_callback",
    "set_declare_optimization_goal_callback",
]
