"""An ImportError that says what to do when a C or C++ module was linked
without the Kokkos library (`python -m kokkos --ldflags` forgotten).

Such a module fails inside the dynamic loader, before any of its code
runs ("undefined symbol: _ZN6Kokkos..."), so kokkos_python::import() in the
module cannot catch it. Instead, once `kokkos` is imported, extension
modules load through this finder, which stands in for importlib's
PathFinder (it finds exactly what PathFinder finds, once) and gives
extension modules a loader that turns that ImportError into one naming the
flags. Modules imported before `kokkos` keep Python's own message.
"""

import importlib.machinery
import sys

from . import _own_kokkos

# A C++ symbol in namespace Kokkos (Itanium mangling: _ZN6Kokkos..., and
# _ZNK6Kokkos... for const members); matched only when a load failed
_KOKKOS_SYMBOL = r"undefined symbol: (_ZN[KVR]*6Kokkos\w*)"


class _LinkHintLoader(importlib.machinery.ExtensionFileLoader):
    """ExtensionFileLoader whose create_module explains a missing Kokkos link."""

    def create_module(self, spec):
        try:
            # a module that links this package's Kokkos never brings it into
            # the global scope, and next to another Kokkos there it binds to
            # its own first (_own_kokkos)
            # (asked only where the package carries its own Kokkos: the
            # question imports ctypes, whose own _ctypes comes through here)
            if _own_kokkos.own_soname():
                foreign = _own_kokkos.kokkos_in_global_scope()
                if (foreign or sys.getdlopenflags() & _own_kokkos.RTLD_GLOBAL) and _own_kokkos.links_own_kokkos(
                    self.path
                ):
                    with _own_kokkos.loading(deep=foreign):
                        return super().create_module(spec)
            return super().create_module(spec)
        except ImportError as exc:
            import re  # here: only a failure needs it

            found = re.search(_KOKKOS_SYMBOL, str(exc))
            if not found:
                raise
            raise ImportError(
                f"{spec.name}: the Kokkos library is not linked into {self.path} (undefined symbol "
                f"{found.group(1)}): add the flags of `python -m kokkos --ldflags` (kokkos.ldflags() in "
                "setup.py) to its link line, or link kokkos_python::kokkos_python in CMake (docs/building.md)",
                name=spec.name,
                path=self.path,
            ) from exc


class _LinkHintFinder:
    """Finds what importlib.machinery.PathFinder finds; an extension
    module's spec gets a _LinkHintLoader. Sits just before PathFinder in
    sys.meta_path, so every other finder keeps its turn."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and type(spec.loader) is importlib.machinery.ExtensionFileLoader:
            spec.loader = _LinkHintLoader(spec.loader.name, spec.loader.path)
        return spec

    @classmethod
    def invalidate_caches(cls):
        pass  # PathFinder's own entry in sys.meta_path does it


def install():
    """Puts _LinkHintFinder before PathFinder in sys.meta_path (once)."""
    if any(f is _LinkHintFinder for f in sys.meta_path):
        return
    where = next((i for i, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder), None)
    if where is not None:
        sys.meta_path.insert(where, _LinkHintFinder)
