from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["restore_space"]

@contextmanager
def restore_space(space: Any) -> Iterator[str]: ...
