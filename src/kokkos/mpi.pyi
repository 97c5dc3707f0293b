from collections.abc import Iterator
from contextlib import contextmanager

from ._core import View

__all__ = ["buffer", "cuda_aware", "staged"]

def cuda_aware() -> bool: ...
def buffer(view: View) -> View: ...
@contextmanager
def staged(view: View, *, copy_in: bool = True, copy_out: bool = True) -> Iterator[View]: ...
