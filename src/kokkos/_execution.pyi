from typing import ClassVar

__all__ = ["ExecutionSpaceInstance"]

class ExecutionSpaceInstance:
    backend: ClassVar[str | None]
    def __init__(self, stream: int | None = ..., manage_stream: bool = ...) -> None: ...
    @property
    def stream(self) -> int | None: ...
    @property
    def released(self) -> bool: ...
    def fence(self) -> None: ...

classes: dict[str, type[ExecutionSpaceInstance]]
