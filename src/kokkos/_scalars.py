"""The original package's complex scalar classes (Kokkos::complex<float> and
Kokkos::complex<double> as Python objects): ``kokkos.complex_float32`` and
``kokkos.complex_float64``.

pykokkos builds its complex64 / complex128 scalars on them: it constructs
``complex_float32(real, imag)``, combines them with ``+ - * /`` (and the
in-place forms) and reads ``real_const()`` / ``imag_const()``. The parts of a
``complex_float32`` are rounded to float32 after every operation, as
Kokkos::complex<float> holds them.
"""

import struct

__all__ = ["complex_float32", "complex_float64"]

_F32 = struct.Struct("f")


def _round32(x):
    return _F32.unpack(_F32.pack(x))[0]


class _ComplexBase:
    __slots__ = ("_value",)
    _round = staticmethod(float)

    def __init__(self, real=0.0, imag=0.0):
        if isinstance(real, _ComplexBase):
            if imag != 0.0:
                raise TypeError(f"{type(self).__name__}(): give either a complex scalar or (real, imag), not both")
            real, imag = real._value.real, real._value.imag
        elif isinstance(real, complex):
            if imag != 0.0:
                raise TypeError(f"{type(self).__name__}(): give either a complex or (real, imag), not both")
            real, imag = real.real, real.imag
        for what, part in (("real", real), ("imag", imag)):
            if isinstance(part, (str, bytes)) or not hasattr(part, "__float__"):
                raise TypeError(
                    f"{type(self).__name__}(): {what} part must be a real number, got {type(part).__name__}"
                )
        self._value = complex(self._round(float(real)), self._round(float(imag)))

    @classmethod
    def _make(cls, value):
        return cls(value.real, value.imag)

    def real_const(self):
        """The real part (Kokkos::complex::real() const)."""
        return self._value.real

    def imag_const(self):
        """The imaginary part (Kokkos::complex::imag() const)."""
        return self._value.imag

    @property
    def real(self):
        return self._value.real

    @property
    def imag(self):
        return self._value.imag

    def __complex__(self):
        return self._value

    def _other(self, other):
        if isinstance(other, _ComplexBase):
            return other._value
        if isinstance(other, (int, float, complex)) and not isinstance(other, bool):
            return complex(other)
        return None

    def __add__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._make(self._value + o)

    def __sub__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._make(self._value - o)

    def __mul__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._make(self._value * o)

    def __truediv__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._make(self._value / o)

    def __radd__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._make(o + self._value)

    def __rsub__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._make(o - self._value)

    def __rmul__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._make(o * self._value)

    def __rtruediv__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._make(o / self._value)

    def __neg__(self):
        return self._make(-self._value)

    def __eq__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._value == o

    def __hash__(self):
        return hash(self._value)

    def __repr__(self):
        return f"kokkos.{type(self).__name__}({self._value.real!r}, {self._value.imag!r})"


class complex_float32(_ComplexBase):
    """Kokkos::complex<float>: complex_float32(real=0.0, imag=0.0)."""

    __slots__ = ()
    _round = staticmethod(_round32)


class complex_float64(_ComplexBase):
    """Kokkos::complex<double>: complex_float64(real=0.0, imag=0.0)."""

    __slots__ = ()


complex_float32.__module__ = complex_float64.__module__ = "kokkos"
