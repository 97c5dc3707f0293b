"""kokkos.tools: Kokkos Tools from Python.

Mark regions, profile sections, events and metadata for Kokkos Tools, and
receive every Kokkos Tools callback in Python::

    import kokkos
    import kokkos.tools as kt

    kt.set_push_region_callback(lambda name: print("enter", name))
    with kt.region("solve"):          # Kokkos::Tools::pushRegion / popRegion
        ...

    @kt.region("assemble")            # the same, as a decorator
    def assemble(): ...

The functions are those of pykokkos-base (``Kokkos::Tools::pushRegion`` is
``push_region``, ``Kokkos::Tools::Experimental::set_push_region_callback``
is ``set_push_region_callback``, ...). A tool library named in
``KOKKOS_TOOLS_LIBS`` (Kokkos 4), ``KOKKOS_PROFILE_LIBRARY`` (Kokkos 3) or
``kokkos.initialize(tools_libs=...)`` sees Python's regions, sections,
events, metadata, View allocations (with their labels) and deep copies like
a C++ program's.

Callbacks: each ``set_<event>_callback`` takes a callable or None (None
removes it). Kokkos keeps one callback per event for the whole process: a
Python callback replaces a tool library's for that event, and a tool library
loaded at initialize replaces the Python callbacks set before it. Kokkos may
call from any thread; the callback runs with the GIL held and may do what a
Python program may (make and drop Views, call kokkos.tools, recurse: a chain
of events too deep ends in one RecursionError). An exception raised in a
callback is reported through ``sys.unraisablehook`` and never reaches Kokkos,
but a KeyboardInterrupt or SystemExit is raised in the program as soon as the
Kokkos call that ran the callback returns. Callbacks that return an id
(``begin_parallel_*``, ``begin_fence``, ``create_profile_section``) may
return an int or None (0); anything else is reported and Kokkos receives 0.
Every name given to Kokkos is a str without NUL characters or lone
surrogates (ValueError otherwise), as View labels are.

Tuning (Kokkos::Tools::Experimental): a Python callable can be the tuner,
and Python code can ask the tuner that is set::

    def tuner(context_id, inputs, outputs):   # lists of VariableValue
        for out in outputs:
            out.value = 128                   # checked against the variable's type

    kt.set_request_output_values_callback(tuner)
    block = kt.declare_output_type("block", kt.VariableInfo(int, "ordinal", [32, 128]))
    choice = [kt.VariableValue(block, 32)]
    kt.request_output_values(kt.get_new_context_id(), [], choice)   # choice[0].value == 128

Kokkos receives a request's outputs only if the tuner returns None without
raising; otherwise it keeps its own values. ``VariableInfo``,
``VariableValue``, ``ValueRange``, ``OptimizationGoal`` and the enums
``ValueType``, ``StatisticalCategory``, ``CandidateValueType``,
``OptimizationType`` mirror Kokkos' C structs. ``KOKKOS_ENABLE_TUNING`` says
whether Kokkos' own C++ tuning calls reach the callbacks (Kokkos compiles
them to no-ops without it); the Python calls reach them either way.

Profiling calls (``push_region``, ``mark_event``, ...) initialize Kokkos
with defaults if the program has not, so a tool library named in the
environment sees them; after ``kokkos.finalize()`` they raise RuntimeError.
"""

from __future__ import annotations

import contextlib
import functools
from collections import namedtuple
from collections.abc import Callable

from .. import _core

_t = _core._tools

DeviceInfo = _t.DeviceInfo
SpaceHandle = _t.SpaceHandle
ToolSettings = _t.ToolSettings
ToolProgrammingInterface = _t.ToolProgrammingInterface
KOKKOSP_INTERFACE_VERSION = _t.KOKKOSP_INTERFACE_VERSION

# tuning (Kokkos::Tools::Experimental; src/core/tools/tuning.c)
ValueType = _t.ValueType
StatisticalCategory = _t.StatisticalCategory
CandidateValueType = _t.CandidateValueType
OptimizationType = _t.OptimizationType
ValueRange = _t.ValueRange
OptimizationGoal = _t.OptimizationGoal
VariableInfo = _t.VariableInfo
VariableValue = _t.VariableValue
#: True if the installed Kokkos was built with KOKKOS_ENABLE_TUNING, so that
#: C++ calls to Kokkos' own tuning functions reach the callbacks (the calls
#: below reach them either way).
KOKKOS_ENABLE_TUNING: bool = _t.KOKKOS_ENABLE_TUNING
declare_output_type = _t.declare_output_type
declare_input_type = _t.declare_input_type
request_output_values = _t.request_output_values
begin_context = _t.begin_context
end_context = _t.end_context
declare_optimization_goal = _t.declare_optimization_goal
get_new_context_id = _t.get_new_context_id
get_current_context_id = _t.get_current_context_id
get_new_variable_id = _t.get_new_variable_id
have_tuning_tool = _t.have_tuning_tool

profile_library_loaded = _t.profile_library_loaded
push_region = _t.push_region
pop_region = _t.pop_region
create_profile_section = _t.create_profile_section
destroy_profile_section = _t.destroy_profile_section
start_section = _t.start_section
stop_section = _t.stop_section
mark_event = _t.mark_event
declare_metadata = _t.declare_metadata
pause_tools = _t.pause_tools
resume_tools = _t.resume_tools
tools_paused = _t.tools_paused
make_space_handle = _t.make_space_handle

#: Names of the events a callback can be set for, in Kokkos' EventSet order.
EVENTS: tuple = _t._events()

# How Kokkos calls each event's callback (for the setters' docstrings).
_CALLS = {
    "init": "callback(load_sequence, interface_version, device_info_count, device_info)"
    " with device_info a DeviceInfo or None",
    "finalize": "callback()",
    "parse_args": "callback(argc, argv) with argv a list of str",
    "print_help": "callback(program)",
    "begin_parallel_for": "callback(name, device_id) -> kernel id (int or None)",
    "end_parallel_for": "callback(kernel_id)",
    "begin_parallel_reduce": "callback(name, device_id) -> kernel id (int or None)",
    "end_parallel_reduce": "callback(kernel_id)",
    "begin_parallel_scan": "callback(name, device_id) -> kernel id (int or None)",
    "end_parallel_scan": "callback(kernel_id)",
    "push_region": "callback(name)",
    "pop_region": "callback()",
    "allocate_data": "callback(space_handle, label, ptr, size) with space_handle a SpaceHandle",
    "deallocate_data": "callback(space_handle, label, ptr, size) with space_handle a SpaceHandle",
    "create_profile_section": "callback(name) -> section id (int or None)",
    "start_profile_section": "callback(section_id)",
    "stop_profile_section": "callback(section_id)",
    "destroy_profile_section": "callback(section_id)",
    "profile_event": "callback(name)",
    "begin_deep_copy": "callback(dst_handle, dst_label, dst_ptr, src_handle, src_label, src_ptr, size)",
    "end_deep_copy": "callback()",
    "begin_fence": "callback(name, device_id) -> fence handle (int or None)",
    "end_fence": "callback(handle)",
    "dual_view_sync": "callback(label, ptr, to_device)",
    "dual_view_modify": "callback(label, ptr, on_device)",
    "declare_metadata": "callback(key, value)",
    "request_tool_settings": "callback(num_settings, settings) with settings a ToolSettings the callback may change",
    "provide_tool_programming_interface": "callback(num_actions, interface) with interface a"
    " ToolProgrammingInterface (interface.fence(device_id=0))",
    "declare_output_type": "callback(name, variable_id, info) with info a VariableInfo",
    "declare_input_type": "callback(name, variable_id, info) with info a VariableInfo",
    "request_output_values": "callback(context_id, inputs, outputs) with inputs and outputs lists"
    " of VariableValue; set outputs[i].value to choose what Kokkos receives, return None",
    "begin_context": "callback(context_id)",
    "end_context": "callback(context_id, value) with value the VariableValue of the context's optimization goal",
    "declare_optimization_goal": "callback(context_id, goal) with goal an OptimizationGoal(type_id, OptimizationType)",
}


def _make_setter(index: int, name: str) -> Callable[[Callable | None], None]:
    def setter(callback: Callable | None) -> None:
        _t._set_callback(index, callback)

    setter.__name__ = setter.__qualname__ = f"set_{name}_callback"
    setter.__module__ = __name__
    setter.__doc__ = (
        f"Kokkos::Tools::Experimental::set_{name}_callback: Kokkos calls "
        f"{_CALLS.get(name, 'callback(...)')}. Pass None to remove it."
    )
    return setter


_SETTERS = {}
for _i, _name in enumerate(EVENTS):
    if _t._available(_i):
        _SETTERS[_name] = globals()[f"set_{_name}_callback"] = _make_setter(_i, _name)
del _i, _name


class NativeCallback(namedtuple("NativeCallback", ["library", "symbol", "address"])):
    """A callback Kokkos holds that is not a Python callable: a tool
    library's function (or one set from C++): ``library``, the shared object
    holding it ("" if unknown); ``symbol``, its name, e.g.
    "kokkosp_push_profile_region" ("" if unknown); ``address``, an int."""

    __slots__ = ()


def get_callbacks() -> dict:
    """What Kokkos calls for each event now: {event: callable, NativeCallback
    or None}, read from Kokkos' own table (so a tool library's functions
    show, and Python callbacks a tool library replaced do not)."""
    out: dict[str, object] = {}
    for i, name in enumerate(EVENTS):
        if name not in _SETTERS:
            continue
        kind, address, library, symbol = _t._slot(i)
        if kind == 0:
            out[name] = None
        elif kind == 1:
            out[name] = _t._get_callback(i)
        else:
            out[name] = NativeCallback(library, symbol, address)
    return out


def set_callback(event: str, callback: Callable | None) -> None:
    """set_<event>_callback(callback) by name (see EVENTS)."""
    try:
        setter = _SETTERS[event]
    except (KeyError, TypeError):
        raise ValueError(
            f"kokkos.tools.set_callback(): unknown event {event!r}; expected one of {', '.join(_SETTERS)}"
        ) from None
    setter(callback)


def clear_callbacks() -> None:
    """Removes every callback (Python callables and tool-library functions)."""
    for setter in _SETTERS.values():
        setter(None)


def _wraps_region(func: Callable, name: str) -> Callable:
    @functools.wraps(func)
    def wrapper(*args: object, **kwargs: object) -> object:
        push_region(name)
        try:
            return func(*args, **kwargs)
        finally:
            pop_region()

    return wrapper


class _Region(_t.Region):
    """Kokkos::Tools::pushRegion on enter, popRegion on exit (both in C);
    decorates too."""

    __slots__ = ()

    def __call__(self, func: Callable) -> Callable:
        if not callable(func):
            raise TypeError(f"kokkos.tools.region({self.name!r}) decorates a callable, got {type(func).__name__}")
        return _wraps_region(func, self.name)

    def __repr__(self) -> str:
        return f"kokkos.tools.region({self.name!r})"


def region(name):
    """A Kokkos Tools region: ``with region("solve"): ...``, ``@region("solve")``,
    or bare ``@region`` (named after the function's qualified name). The region
    is popped even when the body raises."""
    if isinstance(name, str):
        return _Region(name)
    if callable(name):
        return _Region(getattr(name, "__qualname__", repr(name)))(name)
    raise TypeError(f"kokkos.tools.region(): name must be a str (or a function to decorate), got {type(name).__name__}")


class ProfilingSection:
    """A Kokkos Tools profile section (Kokkos::Profiling::ProfilingSection):
    created once, started and stopped any number of times, destroyed at the end.

    ``with section: ...`` starts and stops it. ``destroy()`` (or leaving a
    ``with kokkos.tools.profile_section(name)`` block) destroys it."""

    __slots__ = ("name", "_id", "_destroyed")

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"kokkos.tools.ProfilingSection(): name must be a str, got {type(name).__name__}")
        self.name = name
        self._id = create_profile_section(name)
        self._destroyed = False

    @property
    def id(self) -> int:
        """The section id Kokkos (or the tool) assigned."""
        return self._id

    def _check(self, what: str) -> None:
        if self._destroyed:
            raise RuntimeError(
                f"kokkos.tools.ProfilingSection.{what}(): section {self.name!r} was destroyed; create a new one"
            )

    def start(self) -> None:
        self._check("start")
        start_section(self._id)

    def stop(self) -> None:
        self._check("stop")
        stop_section(self._id)

    def destroy(self) -> None:
        """Destroys the section; later calls do nothing."""
        if not self._destroyed:
            self._destroyed = True
            destroy_profile_section(self._id)

    def __enter__(self) -> ProfilingSection:
        self.start()
        return self

    def __exit__(self, *exc: object) -> bool:
        self.stop()
        return False

    def __repr__(self) -> str:
        state = ", destroyed" if self._destroyed else ""
        return f"kokkos.tools.ProfilingSection({self.name!r}, id={self._id}{state})"


@contextlib.contextmanager
def profile_section(name: str):
    """``with profile_section("assemble") as s:`` creates and starts a profile
    section; leaving the block stops and destroys it."""
    section = ProfilingSection(name)
    try:
        with section:
            yield section
    finally:
        section.destroy()


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
] + [f"set_{name}_callback" for name in _SETTERS]

from . import _internal  # noqa: E402,F401  (the original package's C++ self-test)
