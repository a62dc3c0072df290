"""Generalized ufuncs: bridged functions with core dimensions (``signature = "(n)->(n+1)"``
in the spec), NumPy's gufunc semantics under ``jax.jit``.

Each argument's last axes are its core dimensions, which the C++ code sees whole (as an
mdspan-like view); the leading axes broadcast like an elementwise call's, and ``jax.vmap``
adds leading axes. Core sizes are checked at trace time, so a mismatch is a ValueError
naming the signature, never a kernel reading past a buffer (the handlers check again).
"""

from __future__ import annotations

import functools

import jax
import jax.ffi
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from . import _jax_compat
from ._dtypes import Loop, resolve
from ._platforms import LoopPlatforms, check_platforms

gufunc_p = Primitive("bridgegen_gufunc")
gufunc_p.multiple_results = True


class Gufunc:
    """A bridged generalized ufunc: checks types and core shapes at trace time and binds
    :data:`gufunc_p`."""

    def __init__(self, *, qualname, target, inputs, outputs, loops, platforms, built, signature, core, cuda_loops=None):
        self.qualname = qualname
        self.target = target
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.loops = tuple(Loop.parse(s) for s in loops)
        self.platforms = tuple(platforms)
        self.built = tuple(built)
        self.signature = signature
        # Per input and output: ((name or None, add), ...), as the generator wrote them.
        self.core_in = tuple(tuple(tuple(d) for d in dims) for dims in core["inputs"])
        self.core_out = tuple(tuple(tuple(d) for d in dims) for dims in core["outputs"])
        self._where = LoopPlatforms(platforms, loops, cuda_loops)

    def __call__(self, *args):
        if len(args) != len(self.inputs):
            raise TypeError(
                f"{self.qualname}() takes {len(self.inputs)} argument(s) ({', '.join(self.inputs)}), got {len(args)}"
            )
        loop = resolve(self.qualname, self.loops, args)
        arrays = [jnp.asarray(a, dtype=dt) for a, dt in zip(args, loop.inputs)]
        out_shapes = self.shapes([a.shape for a in arrays])
        platforms, extra = self._where.for_call(loop)
        outs = gufunc_p.bind(
            *arrays,
            name=self.qualname,
            target=self.target,
            platforms=platforms,
            built=self.built,
            out_shapes=out_shapes,
            out_dtypes=loop.outputs,
            core_ranks=tuple(len(d) for d in self.core_in + self.core_out),
            **extra,
        )
        return outs[0] if len(outs) == 1 else tuple(outs)

    def shapes(self, in_shapes) -> tuple:
        """The outputs' shapes for inputs of `in_shapes`, or ValueError saying which core
        dimension does not fit the signature."""
        sizes: dict[str, tuple[int, str]] = {}
        outer = []
        for arg, shape, dims in zip(self.inputs, in_shapes, self.core_in):
            shape = tuple(shape)
            if len(shape) < len(dims):
                raise ValueError(
                    f"{self.qualname}: {arg} has shape {shape}; signature {self.signature} needs "
                    f"{len(dims)} core dimension(s) as its last axes"
                )
            split = len(shape) - len(dims)
            for (name, add), n in zip(dims, shape[split:]):
                if name is None and n != add:
                    raise ValueError(
                        f"{self.qualname}: {arg} has core shape {shape[split:]}; signature {self.signature} fixes that axis to {add}"
                    )
                if name is not None:
                    first = sizes.setdefault(name, (n, arg))
                    if first[0] != n:
                        raise ValueError(
                            f"{self.qualname}: core dimension {name} of signature {self.signature} is {first[0]} "
                            f"in {first[1]} but {n} in {arg}"
                        )
            outer.append(shape[:split])
        try:
            batch = tuple(np.broadcast_shapes(*outer))
        except ValueError:
            shapes = ", ".join(str(tuple(s)) for s in in_shapes)
            raise ValueError(
                f"{self.qualname}: the leading (non-core) axes of argument shapes {shapes} do not broadcast "
                f"together (signature {self.signature})"
            ) from None
        out = []
        for res, dims in zip(self.outputs, self.core_out):
            core = tuple(add if name is None else sizes[name][0] + add for name, add in dims)
            if any(n < 0 for n in core):
                raise ValueError(f"{self.qualname}: output {res} would have core shape {core} (signature {self.signature})")
            out.append(batch + core)
        return tuple(out)


# --- primitive rules --------------------------------------------------------------


def _abstract_eval(*avals, out_shapes, out_dtypes, **_):
    return [_jax_compat.shaped_array(s, dt, avals, elementwise=False) for s, dt in zip(out_shapes, out_dtypes)]


gufunc_p.def_abstract_eval(_abstract_eval)


@functools.lru_cache(maxsize=None)
def _jitted(params: tuple):
    kw = dict(params)
    return jax.jit(lambda *args: gufunc_p.bind(*args, **kw))


gufunc_p.def_impl(lambda *args, **params: _jitted(tuple(sorted(params.items())))(*args))


def _lowering(ctx, *args, name, target, platforms, built, note="", **_):
    check_platforms(ctx, name, platforms, built, note)
    # Under an SPMD partitioning XLA gathers the operands of this custom call onto every
    # device (no sharding rule yet): correct, not partitioned.
    return jax.ffi.ffi_lowering(target)(ctx, *args)


mlir.register_lowering(gufunc_p, _lowering)


def _batch(args, dims, *, out_shapes, core_ranks, **params):
    # The batch axis joins the leading (outer) axes: move it to the front, and give every
    # batched operand the full outer rank so the batch axes line up (unbatched operands
    # broadcast against them).
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    nin = len(args)
    outer_rank = len(out_shapes[0]) - core_ranks[nin]
    moved = []
    for a, d, r in zip(args, dims, core_ranks):
        if d is None:
            moved.append(a)
            continue
        a = jnp.moveaxis(a, d, 0)
        pad = outer_rank - (a.ndim - 1 - r)
        moved.append(a.reshape((a.shape[0],) + (1,) * pad + a.shape[1:]))
    out_shapes = tuple((size,) + tuple(s) for s in out_shapes)
    outs = gufunc_p.bind(*moved, out_shapes=out_shapes, core_ranks=core_ranks, **params)
    return outs, [0] * len(outs)


batching.primitive_batchers[gufunc_p] = _batch


def _jvp(primals, tangents, *, name, **params):
    arg = next(i for i, t in enumerate(tangents) if type(t) is not ad.Zero)
    raise TypeError(
        f"{name}: cannot differentiate with respect to argument {arg + 1}: generalized ufuncs have no "
        "derivative rules (pass jax.lax.stop_gradient(x) for an argument x whose gradient is not needed)"
    )


ad.primitive_jvps[gufunc_p] = _jvp
