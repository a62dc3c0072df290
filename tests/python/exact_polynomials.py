"""Exact values of the classical orthogonal polynomials (SciPy's eval_*: the 2F1 family and
the Laguerre polynomials, 1F1), the arbiter where ours and SciPy's disagree: where a value
overflows, SciPy's Cephes 2F1 may return NaN (its series meets inf - inf) while ours
returns the infinity (a GPU run of 2026-12-07: eval_chebyu(32, 1e10), about 4.3e329, NaN in
SciPy, inf on the device); and where SciPy's value loses digits that ours keeps (its
recurrence near x = 0, its binomial normalisations near alpha = -1 and 2 alpha = 0). The
terminating hypergeometric series is summed in rational arithmetic (a float is a rational),
so the value's magnitude and sign are exact; at a complex x, in Gaussian rationals
(ComplexFraction). Python's Fraction suffices for degrees of the tests' ranges; no mpmath
dependency.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial


class ComplexFraction:
    """re + i im with Fraction parts: the series below at a complex x, exactly. Fraction's
    operators return NotImplemented for it, so mixed expressions land on its reflected ones."""

    __slots__ = ("re", "im")

    def __init__(self, re, im=0):
        self.re, self.im = Fraction(re), Fraction(im)

    @staticmethod
    def of(v) -> ComplexFraction:
        return v if isinstance(v, ComplexFraction) else ComplexFraction(v)

    def __add__(self, other):
        o = ComplexFraction.of(other)
        return ComplexFraction(self.re + o.re, self.im + o.im)

    __radd__ = __add__

    def __neg__(self):
        return ComplexFraction(-self.re, -self.im)

    def __sub__(self, other):
        return self + -ComplexFraction.of(other)

    def __rsub__(self, other):
        return ComplexFraction.of(other) + -self

    def __mul__(self, other):
        o = ComplexFraction.of(other)
        return ComplexFraction(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)

    __rmul__ = __mul__

    def __truediv__(self, other):  # by a rational: the series' denominators, the norms
        return ComplexFraction(self.re / other, self.im / other)

    def __eq__(self, other):
        o = ComplexFraction.of(other)
        return self.re == o.re and self.im == o.im

    __hash__ = None

    def __complex__(self):
        return complex(float(self.re), float(self.im))


def _rising(a: Fraction, k: int) -> Fraction:
    out = Fraction(1)
    for i in range(k):
        out *= a + i
    return out


def _f21(n: int, b: Fraction | None, c: Fraction, z: Fraction) -> Fraction | None:
    """2F1(-n, b; c; z), or 1F1(-n; c; z) where b is None: a polynomial of degree n; None
    where a denominator (c)_k is 0."""
    total, term = Fraction(0), Fraction(1)
    for k in range(n + 1):
        total += term
        den = (c + k) * (k + 1)
        if den == 0:
            return None
        term = term * (k - n) * (1 if b is None else b + k) / den * z
    return total


def _genlaguerre(n, alpha, x):
    f = _f21(n, None, alpha + 1, x)  # 1F1
    return None if f is None else _rising(alpha + 1, n) / factorial(n) * f


def _jacobi(n, alpha, beta, x):
    f = _f21(n, n + alpha + beta + 1, alpha + 1, (1 - x) / 2)
    return None if f is None else _rising(alpha + 1, n) / factorial(n) * f


def _gegenbauer(n, alpha, x):
    f = _f21(n, n + 2 * alpha, alpha + Fraction(1, 2), (1 - x) / 2)
    return None if f is None else _rising(2 * alpha, n) / factorial(n) * f


def _chebyt(n, x):
    return _f21(n, Fraction(n), Fraction(1, 2), (1 - x) / 2)


def _chebyu(n, x):
    f = _f21(n, Fraction(n + 2), Fraction(3, 2), (1 - x) / 2)
    return None if f is None else (n + 1) * f


def _legendre(n, x):
    return _f21(n, Fraction(n + 1), Fraction(1), (1 - x) / 2)


def _sh_jacobi(n, p, q, x):
    v = _jacobi(n, p - q, q - 1, 2 * x - 1)
    norm = _rising(n + p, n) / factorial(n)  # binom(2n + p - 1, n)
    return None if v is None or norm == 0 else v / norm


# SciPy's name -> the exact value from (degree, *parameters, x) as Fractions.
EXACT = {
    "eval_chebyt": _chebyt,
    "eval_chebyu": _chebyu,
    "eval_chebyc": lambda n, x: None if (v := _chebyt(n, x / 2)) is None else 2 * v,
    "eval_chebys": lambda n, x: _chebyu(n, x / 2),
    "eval_sh_chebyt": lambda n, x: _chebyt(n, 2 * x - 1),
    "eval_sh_chebyu": lambda n, x: _chebyu(n, 2 * x - 1),
    "eval_legendre": _legendre,
    "eval_sh_legendre": lambda n, x: _legendre(n, 2 * x - 1),
    "eval_gegenbauer": _gegenbauer,
    "eval_jacobi": _jacobi,
    "eval_sh_jacobi": _sh_jacobi,
    "eval_genlaguerre": _genlaguerre,
    "eval_laguerre": lambda n, x: _genlaguerre(n, Fraction(0), x),
}


def _rational(a) -> Fraction | ComplexFraction:
    c = complex(a)
    if c.imag == 0:
        return Fraction(float(c.real))
    return ComplexFraction(Fraction(float(c.real)), Fraction(float(c.imag)))


def exact_value(name: str, args) -> Fraction | ComplexFraction | None:
    """The exact value of `name` at one point (its arguments as Python or NumPy scalars, x
    real or complex); None where it is not one of these polynomials at a non-negative
    integer degree up to 200 with finite arguments."""
    f = EXACT.get(name)
    if f is None:
        return None
    try:
        n, *rest = (_rational(a) for a in args)
    except (ValueError, OverflowError):  # NaN or inf
        return None
    if not isinstance(n, Fraction) or n.denominator != 1 or not 0 <= n <= 200:
        return None
    return f(int(n), *rest)


def overflows_as(name: str, args, got: float, limit: float) -> bool:
    """Whether `got` is the infinity `name`'s exact value overflows to: |value| > limit (the
    output type's largest finite number) with got's sign."""
    v = exact_value(name, args)
    return v is not None and abs(v) > Fraction(float(limit)) and (v > 0) == (got > 0) and abs(got) == float("inf")
