"""Choosing a type loop for a call, the way scipy.special's ufuncs do, with JAX's
weak-type rule for Python scalars.

- An argument is a JAX or NumPy array or scalar, or a Python bool/int/float/complex;
  anything else is a TypeError.
- Bool and integer arrays become the default float (float64 under ``jax_enable_x64``),
  unless the loop takes an integer there.
- Python scalars (and weakly typed JAX values) take the precision of the other
  inexact arguments; without one, they count as float64/int64/complex128.
- The first loop, in spec order, that every argument casts to safely wins.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import numpy as np

from . import _abi

# Loop type characters (runtime/abi.toml).
CODES = {code: np.dtype(name) for code, name in _abi.LOOP_DTYPES.items()}


@dataclass(frozen=True)
class Loop:
    """A type signature like ``dd->d``."""

    inputs: tuple[np.dtype, ...]
    outputs: tuple[np.dtype, ...]

    @classmethod
    def parse(cls, sig: str) -> "Loop":
        ins, outs = sig.split("->")
        return cls(tuple(CODES[c] for c in ins), tuple(CODES[c] for c in outs))

    def describe(self) -> str:
        return f"({', '.join(d.name for d in self.inputs)}) -> ({', '.join(d.name for d in self.outputs)})"


@dataclass(frozen=True)
class ArgType:
    kind: str  # "b", "i", "u", "f", "c"
    dtype: np.dtype
    weak: bool


def _canonical(dt) -> np.dtype:
    return np.dtype(jax.dtypes.canonicalize_dtype(dt))


def classify(arg, position: str) -> ArgType:
    """The kind and dtype of one argument, or TypeError naming what is accepted."""
    if isinstance(arg, bool):
        return ArgType("b", np.dtype(bool), True)
    if isinstance(arg, int) and not isinstance(arg, bool):
        return ArgType("i", _canonical(np.int64), True)
    if isinstance(arg, float):
        return ArgType("f", _canonical(np.float64), True)
    if isinstance(arg, complex):
        return ArgType("c", _canonical(np.complex128), True)
    if isinstance(arg, (jax.Array, np.ndarray, np.generic)):
        dt = np.dtype(arg.dtype)
        aval = getattr(arg, "aval", None)
        weak = bool(getattr(aval, "weak_type", getattr(arg, "weak_type", False)))
        if dt.kind in "biufc":
            return ArgType(dt.kind, dt, weak)
        raise TypeError(f"{position} has dtype {dt}, which is not numeric")
    raise TypeError(
        f"{position} is a {type(arg).__name__}; expected a JAX or NumPy array or a Python "
        "bool, int, float or complex"
    )


def _fits(a: ArgType, want: np.dtype, default_float: np.dtype, default_complex: np.dtype) -> bool:
    if want.kind == "i":
        return a.kind in "biu" and (a.weak or np.can_cast(a.dtype, want, "safe"))
    if a.kind in "biu":
        # Integers are promoted to the default float (complex) type, as scipy.special does.
        return want == (default_float if want.kind == "f" else default_complex)
    if a.kind == "c" and want.kind != "c":
        return False
    return a.weak or np.can_cast(a.dtype, want, "safe")


def resolve(name: str, loops: tuple[Loop, ...], args: tuple) -> Loop:
    """The loop for ``args``, or TypeError listing the loops ``name`` supports."""
    types = [classify(a, f"{name}: argument {i + 1}") for i, a in enumerate(args)]
    if not any(not t.weak and t.kind in "fc" for t in types):
        # No strong inexact argument to adopt the precision of: weak scalars count as
        # the default float64/int64/complex128.
        types = [ArgType(t.kind, t.dtype, False) for t in types]
    default_float = _canonical(np.float64)
    default_complex = _canonical(np.complex128)
    for loop in loops:
        # Skip loops JAX cannot represent right now (float64 with jax_enable_x64 off).
        if any(_canonical(d) != d for d in loop.inputs + loop.outputs):
            continue
        if all(_fits(t, w, default_float, default_complex) for t, w in zip(types, loop.inputs)):
            return loop
    got = ", ".join(("weak " if t.weak else "") + t.dtype.name for t in types)
    supported = "; ".join(lp.describe() for lp in loops)
    hint = ""
    if not jax.config.jax_enable_x64 and any(np.dtype(np.float64) in lp.inputs for lp in loops):
        hint = " (float64 loops need jax.config.update('jax_enable_x64', True))"
    raise TypeError(f"{name}: no type loop for arguments ({got}); supported loops: {supported}{hint}")
