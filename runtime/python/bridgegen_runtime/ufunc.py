"""Elementwise bridged functions ("ufuncs"): one JAX primitive shared by every generated
ufunc, its shape/dtype rule, batching rule and per-platform lowering to the package's
XLA FFI target.

Generated packages call :func:`load_ufuncs` with their ``_spec`` module; everything else
(argument checking, loop choice, broadcasting) happens here.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from types import ModuleType

import jax
import jax.ffi
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Primitive
from jax.experimental.custom_partitioning import custom_partitioning
from jax.interpreters import ad, batching, mlir

from . import _inplace, _jax_compat, _library
from ._dtypes import Loop, resolve
from .gufunc import Gufunc
from ._platforms import HOST_ONLY_WHY, LoopPlatforms, check_platforms

ufunc_p = Primitive("bridgegen_ufunc")
ufunc_p.multiple_results = True


class Ufunc:
    """A bridged elementwise function: checks and converts arguments at trace time and
    binds :data:`ufunc_p`."""

    def __init__(self, *, qualname, target, inputs, outputs, loops, platforms, built, cuda_loops=None):
        self.qualname = qualname
        self.target = target
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.loops = tuple(Loop.parse(s) for s in loops)
        self.platforms = tuple(platforms)
        self.built = tuple(built)
        self._where = LoopPlatforms(platforms, loops, cuda_loops)

    def __call__(self, *args, overwrite_input=None):
        if len(args) != len(self.inputs):
            raise TypeError(
                f"{self.qualname}() takes {len(self.inputs)} argument(s) ({', '.join(self.inputs)}), "
                f"got {len(args)}"
            )
        if overwrite_input is not None and not isinstance(overwrite_input, bool):
            raise TypeError(f"{self.qualname}: overwrite_input must be None, True or False, got {overwrite_input!r}")
        loop = resolve(self.qualname, self.loops, args)
        arrays = [jnp.asarray(a, dtype=dt) for a, dt in zip(args, loop.inputs)]
        try:
            shape = np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            shapes = ", ".join(str(tuple(a.shape)) for a in arrays)
            raise ValueError(f"{self.qualname}: argument shapes {shapes} do not broadcast together") from None
        platforms, extra = self._where.for_call(loop)
        outs = ufunc_p.bind(
            *arrays,
            name=self.qualname,
            target=self.target,
            platforms=platforms,
            built=self.built,
            out_shape=tuple(shape),
            out_dtypes=loop.outputs,
            alias=_alias([(a.shape, a.dtype) for a in arrays], tuple(shape), loop.outputs),
            overwrite=_OVERWRITE[overwrite_input],
            **extra,
        )
        return outs[0] if len(outs) == 1 else tuple(outs)


# `overwrite_input` as a primitive parameter: when the first output takes the buffer of
# operand `alias`. "in-loops" becomes "always" for a call in a loop body whose operand is
# carried and dies there (`_inplace`).
_OVERWRITE = {None: "in-loops", True: "always", False: "never"}


def _alias(inputs, out_shape, out_dtypes) -> int:
    """The input the first output may overwrite: the first with the output's shape and
    dtype, or -1 when none has them (`overwrite_input` then changes nothing)."""
    for k, (shape, dtype) in enumerate(inputs):
        if tuple(shape) == tuple(out_shape) and np.dtype(dtype) == np.dtype(out_dtypes[0]):
            return k
    return -1


def load_ufuncs(package: str, spec: ModuleType) -> dict[str, Ufunc]:
    """Load ``package``'s library, register its handlers, and build its ufuncs."""
    package_dir = os.path.dirname(sys.modules[package].__file__)
    lib = _library.load_library(package, package_dir, spec)
    # A library built without NVRTC has CUDA handlers but no kernels: leave them out, so
    # a CUDA call fails at lowering with a clear message instead of at run time.
    has_kernels = bool(_library.cuda_archs(lib, spec.CUDA_ARCHS_SYMBOL))
    ufuncs = {}
    for name, info in spec.UFUNCS.items():
        handlers = {p: s for p, s in info["handlers"].items() if p != "cuda" or has_kernels}
        for platform, symbol in handlers.items():
            _library.register_handler(lib, info["target"], symbol, platform)
        kind, extra = (Ufunc, {}) if "signature" not in info else (Gufunc, dict(signature=info["signature"], core=info["core"]))
        ufuncs[name] = kind(
            qualname=f"{package}.{name}",
            target=info["target"],
            inputs=info["inputs"],
            outputs=info["outputs"],
            loops=info["loops"],
            platforms=info["platforms"],
            built=tuple(handlers),
            cuda_loops=info.get("cuda_loops"),
            **extra,
        )
        if "host_only_why" in info:
            HOST_ONLY_WHY[f"{package}.{name}"] = info["host_only_why"]
        # The rules themselves arrive with install_rules, once the package's functions
        # (which they may call) exist.
        _RULES[f"{package}.{name}"] = _Rule(
            inputs=tuple(info["inputs"]), declared=tuple(info.get("derivatives", ())), nondiff=tuple(info.get("nondiff", ()))
        )
    return ufuncs


def install_rules(package: str, rules: ModuleType, functions: dict | None = None) -> None:
    """Give `package`'s ufuncs their derivative rules and its `[[function]]` wrappers
    their shape, dtype and workspace rules: the functions of its generated `_rules.py`."""
    for name, per_input in rules.DERIVATIVES.items():
        rule = _RULES[f"{package}.{name}"]
        missing = set(rule.declared) - set(per_input)
        if missing:
            raise ImportError(f"{package}._rules has no derivative rule of {name} for {sorted(missing)}; regenerate the package")
        rule.derivatives = dict(per_input)
    for name, table in getattr(rules, "FUNCTIONS", {}).items():
        functions[name].rules = table


def export_disabled_checks(targets) -> list:
    """The `disabled_checks` `jax.export.export` needs for calls of `targets`: XLA gives
    custom calls outside its own library no compatibility guarantee, so an export of them
    must say it accepts that. The artifact then runs wherever the same package is imported
    (its handlers registered under the same names)."""
    import jax.export

    return [jax.export.DisabledSafetyCheck.custom_call(t) for t in targets]


# --- primitive rules --------------------------------------------------------------


def _abstract_eval(*avals, out_shape, out_dtypes, **_):
    # Outputs vary over the manual axes of their operands (shard_map) and, on explicit
    # meshes, are sharded like a broadcasting elementwise op's.
    return [_jax_compat.shaped_array(out_shape, dt, avals, elementwise=True) for dt in out_dtypes]


ufunc_p.def_abstract_eval(_abstract_eval)


@functools.lru_cache(maxsize=None)
def _jitted(params: tuple):
    kw = dict(params)
    return jax.jit(lambda *args: ufunc_p.bind(*args, **kw))


def _impl(*args, **params):
    return _jitted(tuple(sorted(params.items())))(*args)


ufunc_p.def_impl(_impl)


def _lowering(
    ctx, *args, name, target, platforms, built, out_shape, out_dtypes, alias=-1, overwrite="never", partitioned=False, note=""
):
    check_platforms(ctx, name, platforms, built, note)
    devices = _jax_compat.spmd_devices(ctx)
    if devices > 1 and not partitioned and _jax_compat.lowering_for_export(ctx):
        # custom_partitioning runs Python during XLA's partitioning, which an exported
        # artifact cannot carry: the call is exported unpartitioned instead (XLA gathers
        # its operands; the result is the same).
        warnings.warn(
            f"{name}: exported for {devices} devices without its sharding rule (jax.export cannot serialize "
            "custom_partitioning): XLA gathers its operands onto each device; results are unchanged",
            stacklevel=2,
        )
    elif not partitioned and out_shape and devices > 1:
        # Under an SPMD partitioning (jit over a mesh) the call is partitioned like any
        # elementwise op: each device runs the handler on its shard, no all-gather.
        in_shapes = tuple(tuple(a.shape) for a in ctx.avals_in)
        fn = _partitioned(name, target, platforms, built, tuple(out_shape), tuple(out_dtypes), in_shapes)
        return mlir.lower_fun(fn, multiple_results=True)(ctx, *args)
    # `alias`: the call writes its first output over that operand's buffer. Without it a
    # custom call never writes in place, so in a loop XLA copies its result into the
    # loop-carried buffer on every iteration; with it XLA copies the operand first
    # wherever the operand is still needed (a jit argument that is not donated, a value
    # used again), so the result is the same either way.
    aliases = {alias: 0} if alias >= 0 and overwrite == "always" else None
    return jax.ffi.ffi_lowering(target, operand_output_aliases=aliases)(ctx, *args)


@functools.lru_cache(maxsize=None)
def _partitioned(name, target, platforms, built, out_shape, out_dtypes, in_shapes):
    def call(*xs):
        shape = np.broadcast_shapes(*(x.shape for x in xs))
        return tuple(
            ufunc_p.bind(
                *xs, name=name, target=target, platforms=platforms, built=built,
                out_shape=tuple(shape), out_dtypes=out_dtypes, partitioned=True,
            )
        )  # fmt: skip

    def partition(mesh, arg_shapes, result_shape):
        results = result_shape if isinstance(result_shape, (list, tuple)) else [result_shape]
        return mesh, call, tuple(r.sharding for r in results), tuple(a.sharding for a in arg_shapes)

    def infer(mesh, arg_shapes, result_shape):
        # Without Shardy: the output takes the sharding of a full-rank operand.
        full = [a.sharding for a in arg_shapes if len(a.shape) == len(out_shape)]
        return (full[0] if full else jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec()),) * len(out_dtypes)

    cp = custom_partitioning(call)
    cp.def_partition(
        partition=partition,
        infer_sharding_from_operands=infer,
        sharding_rule=_elementwise_rule(in_shapes, out_shape, len(out_dtypes)),
    )
    return cp


def _elementwise_rule(in_shapes, out_shape, nout) -> str:
    """Shardy rule of a broadcasting elementwise op, e.g. `a b, b -> a b, a b`: output
    axes are shared factors; an operand axis of size 1 against a larger output axis gets
    a factor of its own."""
    names = [chr(ord("a") + k) for k in range(len(out_shape))]
    spare = iter(chr(ord("n") + k) for k in range(13))
    ops = []
    for s in in_shapes:
        off = len(out_shape) - len(s)
        ops.append(" ".join(names[off + k] if n == out_shape[off + k] else next(spare) for k, n in enumerate(s)))
    out = " ".join(names)
    return ", ".join(ops) + " -> " + ", ".join([out] * nout)


mlir.register_lowering(ufunc_p, _lowering)
_inplace.install(ufunc_p)
# The partitioned lowering needs the device assignment (as custom_partitioning does).
_jax_compat.require_devices_during_lowering(ufunc_p)


def _batch(args, dims, *, out_shape, **params):
    # Elementwise with broadcasting: move every batch axis to the front; unbatched
    # operands broadcast against it (right-aligned), so no per-element loop is needed.
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    rank = len(out_shape)
    moved = []
    for a, d in zip(args, dims):
        if d is None:
            moved.append(a)
        else:
            a = jnp.moveaxis(a, d, 0)
            # Give the operand the full per-example rank so its batch axis lines up.
            pad = rank - (a.ndim - 1)
            moved.append(a.reshape((a.shape[0],) + (1,) * pad + a.shape[1:]))
    out_shape = (size,) + tuple(out_shape)
    if params.get("alias", -1) >= 0:
        # The candidate operand may now be broadcast against the batch: check it again.
        params["alias"] = _alias([(a.shape, a.dtype) for a in moved], out_shape, params["out_dtypes"])
    outs = ufunc_p.bind(*moved, out_shape=out_shape, **params)
    return outs, [0] * len(outs)


batching.primitive_batchers[ufunc_p] = _batch


# --- differentiation: JVPs from the spec's derivative rules ------------------------------


class _Rule:
    def __init__(self, *, inputs, declared, nondiff):
        self.inputs, self.declared, self.nondiff = inputs, declared, nondiff
        self.derivatives: dict = {}  # input -> f(*inputs, out=...), from the package's _rules.py


_RULES: dict[str, _Rule] = {}


def _jvp(primals, tangents, *, name, **params):
    outs = ufunc_p.bind(*primals, name=name, **params)
    rule = _RULES.get(name)
    tangents_out = None
    for arg, t in zip(rule.inputs if rule else [f"argument {i}" for i in range(len(primals))], tangents):
        if type(t) is ad.Zero:
            continue
        if rule is None or arg not in rule.derivatives:
            why = (
                "it is declared not differentiable (nondiff)"
                if rule is not None and arg in rule.nondiff
                else "the spec gives no derivative rule for it"
            )
            raise TypeError(f"{name}: cannot differentiate with respect to {arg!r}: {why}")
        # A rule takes the inputs then the outputs and gives one partial per output (a
        # tuple when there are several; the generator checks the count).
        d = rule.derivatives[arg](*primals, *outs)
        terms = d if len(outs) > 1 else (d,)
        terms = [p * t for p in terms]
        tangents_out = terms if tangents_out is None else [a + b for a, b in zip(tangents_out, terms)]
    if tangents_out is None:
        return outs, [ad.Zero.from_primal_value(o) for o in outs]
    return outs, [jnp.broadcast_to(t, o.shape).astype(o.dtype) for t, o in zip(tangents_out, outs)]


ad.primitive_jvps[ufunc_p] = _jvp
