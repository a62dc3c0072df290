"""The one seam to other projects' private or version-dependent APIs.

Every use of a JAX (or CuPy) internal in the runtime goes through this module. Each entry
says what it reaches, the versions it was tested on, and what happens where it is missing
or different: the runtime then keeps working, with the feature the entry serves switched
off, and (where the user would otherwise not know) one warning.

Tested (the whole CPU suite) on jax/jaxlib 0.7.2, 0.8.3, 0.9.2, 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0.1
and 0.12.1 (a subset on every other admitted release: docs/compatibility.md), and on 0.11.2
with CUDA; CuPy 14.2.
Public JAX API (``jax.ffi``, ``jax.extend.core``, ``jax.interpreters.*``) is used directly
elsewhere and is not listed here.
"""

from __future__ import annotations

import warnings

# --- jax._src.sharding_impls.ShardingContext -------------------------------------------
# What: the axis context of a lowering under jit over a mesh (SPMD), and its device count.
# Tested: 0.7.2-0.12.1. Missing: calls are lowered unpartitioned (XLA then gathers
# their operands onto each device: correct, slower), and delegated calls do not warn.
try:
    from jax._src.sharding_impls import ShardingContext as _ShardingContext
except ImportError:  # pragma: no cover - depends on the jax release
    _ShardingContext = None


def spmd_devices(ctx) -> int:
    """How many devices the SPMD partitioning of this lowering spans (1 when none)."""
    axis_context = getattr(ctx.module_context, "axis_context", None)
    if _ShardingContext is not None and isinstance(axis_context, _ShardingContext):
        return int(axis_context.num_devices)
    return 1


# --- output avals: varying manual axes and explicit sharding -------------------------------
# What: output avals that keep what JAX's own elementwise ops keep: the operands' varying
# manual axes (shard_map's check_vma; `aval.vma` up to jax 0.9, `aval.mat.varying` from
# 0.10) and, on meshes with Explicit axes, the operands' sharding broadcast to the output.
# Built with `aval.update`, which carries whatever else this jax keeps on an aval. Tested:
# 0.7.2-0.12.1. Anything unrecognised: a plain aval (shard_map then needs
# check_vma=False, and explicit meshes gather the operands).
def _varying(aval) -> frozenset:
    mat = getattr(aval, "mat", None)
    if mat is not None and hasattr(mat, "varying"):
        return frozenset(mat.varying)
    return frozenset(getattr(aval, "vma", ()) or ())


def _broadcast_spec(shape, avals):
    """The output spec of a broadcasting elementwise op: each output axis takes the mesh
    axes of the operands whose axis has the output's size; conflicts are an error."""
    rank = len(shape)
    spec = [None] * rank
    for a in avals:
        parts = tuple(getattr(getattr(a, "sharding", None), "spec", ()) or ())
        parts = (None,) * (a.ndim - len(parts)) + parts
        for k, (n, p) in enumerate(zip(a.shape, parts)):
            out_k = rank - a.ndim + k
            if p is None or n != shape[out_k]:
                continue
            if spec[out_k] is not None and spec[out_k] != p:
                raise ValueError(
                    f"operands are sharded differently along output axis {out_k} ({spec[out_k]} and {p}); "
                    "reshard one of them first (jax.sharding.reshard)"
                )
            spec[out_k] = p
    return spec


def _is_explicit(mesh) -> bool:
    from jax.sharding import AxisType

    return mesh is not None and not getattr(mesh, "empty", True) and AxisType.Explicit in tuple(getattr(mesh, "axis_types", ()))


def shaped_array(shape, dtype, avals, elementwise: bool):
    """The aval of an output of shape `shape` of a call on `avals` (see above)."""
    from jax.core import ShapedArray

    shape = tuple(shape)
    arrays = [a for a in avals if hasattr(a, "shape") and hasattr(a, "update")]
    union = frozenset().union(*(_varying(a) for a in arrays))
    base = next((a for a in arrays if _varying(a) == union), None)
    if base is None:
        raise ValueError(
            "the operands vary over different manual mesh axes "
            f"({', '.join(str(sorted(_varying(a))) for a in arrays)}); make them match with jax.lax.pvary"
        )
    try:
        mesh = getattr(getattr(base, "sharding", None), "mesh", None)
        if mesh is None:
            return base.update(shape=shape, dtype=dtype, weak_type=False)
        from jax.sharding import NamedSharding, PartitionSpec

        explicit = elementwise and any(_is_explicit(getattr(getattr(a, "sharding", None), "mesh", None)) for a in arrays)
        spec = _broadcast_spec(shape, arrays) if explicit else [None] * len(shape)
        return base.update(shape=shape, dtype=dtype, weak_type=False, sharding=NamedSharding(mesh, PartitionSpec(*spec)))
    except ValueError:
        raise
    except Exception:  # noqa: BLE001 - an aval this jax builds otherwise
        return ShapedArray(shape, dtype)


# --- LoweringParameters.for_export ---------------------------------------------------------
# What: whether this lowering is for jax.export. Tested: 0.7.2-0.12.1. Missing: False
# (a sharded export then fails in jax.export with its own message about host callbacks).
def lowering_for_export(ctx) -> bool:
    params = getattr(ctx.module_context, "lowering_parameters", None)
    return bool(getattr(params, "for_export", False))


# --- jax._src.dispatch.prim_requires_devices_during_lowering ----------------------------
# What: tells jit that a primitive's lowering needs the device assignment (as
# custom_partitioning's does). Tested: 0.7.2-0.12.1. Missing: nothing is registered;
# the partitioned lowering then fails under a mesh with JAX's own error.
def require_devices_during_lowering(prim) -> None:
    try:
        from jax._src import dispatch
    except ImportError:  # pragma: no cover
        return
    registry = getattr(dispatch, "prim_requires_devices_during_lowering", None)
    if registry is not None:
        registry.add(prim)


# --- ModuleContext.add_keepalive ---------------------------------------------------------
# What: an object kept alive as long as the executable compiled from this lowering (JAX's
# own host callbacks use it). Tested: 0.7.2-0.12.1. Missing: the object is not kept by
# the executable (delegation's registry still keeps recently used call sites; see
# _callback.py).
def add_keepalive(ctx, obj) -> bool:
    add = getattr(ctx.module_context, "add_keepalive", None)
    if add is None:
        return False
    add(obj)
    return True


# --- jax._src.interpreters.mlir._lowerings[lax.while_p] ------------------------------------
# What: the registered while-loop lowering rule, wrapped so that bridged calls in a loop
# body may write over a dying loop-carried operand (_inplace.py). Tested: 0.7.2-0.12.1,
# where the table maps primitives to LoweringRuleEntry(rule, inline). Missing or of
# another form: nothing is wrapped, one warning says so, and bridged calls in loops copy
# their result into the carry (correct, slower).
def wrap_while_lowering(make_wrapper) -> bool:
    """Replace the while-loop rule by ``make_wrapper(rule)``, keeping the entry's other
    fields; False (and one warning) where this jax keeps its rules otherwise."""
    try:
        from jax import lax
        from jax._src.interpreters import mlir as _mlir

        table = _mlir._lowerings
        entry = table[lax.while_p]
        rule = entry.rule
        if getattr(rule, "_bridgegen_inplace", False):
            return True
        if not callable(rule) or not hasattr(entry, "inline"):
            raise TypeError(f"unrecognised lowering entry {type(entry).__name__}")
        wrapper = make_wrapper(rule)
        wrapper._bridgegen_inplace = True
        wrapper._bridgegen_wrapped = rule
        # The same constructor JAX's own register_lowering uses, so `inline` is kept.
        table[lax.while_p] = type(entry)(wrapper, entry.inline)
        return True
    except Exception as e:  # noqa: BLE001 - any change in JAX's internals lands here
        warnings.warn(
            f"bridgegen_runtime: cannot wrap this jax's while-loop lowering ({type(e).__name__}: {e}); "
            "bridged calls in loop bodies will not write in place (results are unchanged)",
            RuntimeWarning,
            stacklevel=3,
        )
        return False


def unwrap_while_lowering() -> None:
    """Put JAX's own while-loop rule back (tests; `BRIDGEGEN_INPLACE_LOOPS=0` never wraps)."""
    from jax import lax
    from jax._src.interpreters import mlir as _mlir

    entry = _mlir._lowerings.get(lax.while_p)
    inner = getattr(getattr(entry, "rule", None), "_bridgegen_wrapped", None)
    if inner is not None:
        _mlir._lowerings[lax.while_p] = type(entry)(inner, entry.inline)


# --- cupy.cuda.memory._get/_set_thread_local_allocator ----------------------------------
# What: CuPy's per-thread allocator, switched for the duration of a delegated call so that
# its allocations come from memory XLA owns. Tested: CuPy 13.x, 14.2. Missing: the public,
# process-wide cupy.cuda.set_allocator would race with other threads, so delegated calls
# fail with an error naming the CuPy version instead.
def cupy_thread_allocator(cp):
    """(get, set) of CuPy's thread-local allocator."""
    memory = cp.cuda.memory
    get = getattr(memory, "_get_thread_local_allocator", None)
    set_ = getattr(memory, "_set_thread_local_allocator", None)
    if get is None or set_ is None:
        raise RuntimeError(
            f"jax_cupy_bridge: CuPy {cp.__version__} has no thread-local allocator hook (tested on 14.2); "
            "delegated calls cannot route CuPy's allocations to XLA's memory"
        )
    return get, set_
