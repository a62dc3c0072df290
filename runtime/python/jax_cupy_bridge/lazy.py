"""Run any CuPy (GPU) or NumPy (CPU) function on JAX arrays inside ``jax.jit``, through an
XLA FFI handler: no host round trip on GPU, no ``pure_callback``.

- :func:`cupy_lazy_apply` — the bridge's own API: array arguments become zero-copy CuPy
  (or NumPy) views, everything else is static; ``func`` may write into ``out=`` or return
  arrays; it may allocate (routed to memory XLA owns for the duration of the call).
- :func:`lazy_apply` — the signature and behaviour of ``array_api_extra.lazy_apply``, as a
  drop-in that delegates through the same handler.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import sharding_impls
from jax.extend.core import Primitive
from jax.interpreters import batching, mlir

from . import _callback

_STATIC_TYPES = (int, float, bool, str, type(None), complex)

delegate_p = Primitive("bridgegen_delegate")
delegate_p.multiple_results = True


def _is_static(v) -> bool:
    if isinstance(v, tuple):
        return all(_is_static(x) for x in v)
    return isinstance(v, _STATIC_TYPES) and not isinstance(v, np.generic)


def _is_array(v) -> bool:
    return isinstance(v, (jax.Array, np.ndarray, np.generic)) or hasattr(v, "__jax_array__")


class Delegate:
    """One delegated call site: the callable, the static part of its arguments, and its
    declared outputs. Equal (and hashing equal) when all of those are, so a retrace with
    the same static values hits JAX's caches; registered under an id while alive."""

    def __init__(self, *, func, func_cpu, template, kwargs, outs, out_arg, workspace, graph_safe, lazy, name, vmap_method=None):
        self.func = func
        self.func_cpu = func_cpu
        # Positional arguments: ("array", None) for each operand, ("static", value) otherwise.
        self.template = template
        self.kwargs = kwargs
        self.outs = outs  # tuple of (shape, dtype)
        self.out_arg = out_arg
        self.workspace = workspace
        self.graph_safe = graph_safe
        self.lazy = lazy  # lazy_apply semantics (lenient return conversion)
        self.name = name
        self.vmap_method = vmap_method
        self.id = _callback.register(self)

    def _key(self):
        return (
            self.func, self.func_cpu, self.template, self.kwargs, self.outs, self.out_arg,
            self.workspace, self.graph_safe, self.lazy, self.vmap_method,
        )  # fmt: skip

    def batched(self, size: int) -> "Delegate":
        """The same call on operands with a leading batch axis of `size` (vmap)."""
        return Delegate(
            func=self.func, func_cpu=self.func_cpu, template=self.template, kwargs=self.kwargs,
            outs=tuple(((size,) + s, d) for s, d in self.outs), out_arg=self.out_arg,
            workspace=self.workspace, graph_safe=self.graph_safe, lazy=self.lazy, name=self.name,
            vmap_method=self.vmap_method,
        )  # fmt: skip

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, Delegate) and self._key() == other._key()

    def __repr__(self):
        return f"Delegate({self.name}, id={self.id})"

    # --- run time (called by the dispatcher, on XLA's thread, GIL held) ----------------

    def _fill(self, arrays):
        it = iter(arrays)
        return [next(it) if kind == "array" else value for kind, value in self.template]

    def _call(self, fn, arrays, outs):
        args = self._fill(arrays)
        kwargs = dict(self.kwargs) if isinstance(self.kwargs, tuple) else dict(self.kwargs.value)
        if self.out_arg:
            kwargs["out"] = outs[0] if len(outs) == 1 else tuple(outs)
        return fn(*args, **kwargs)

    def _store(self, result, outs, xp):
        if result is None:
            if not self.out_arg:
                raise TypeError(f"{self.name} returned None; return the result or declare out_arg=True and write into out=")
            return
        results = tuple(result) if len(outs) > 1 and isinstance(result, (tuple, list)) else (result,)
        if len(results) != len(outs):
            raise ValueError(f"{self.name} returned {len(results)} outputs; {len(outs)} were declared")
        for k, (r, o) in enumerate(zip(results, outs)):
            if r is o:
                continue
            if self.lazy and not hasattr(r, "shape"):
                r = xp.asarray(r, dtype=o.dtype)  # lazy_apply allows Python scalars and lists
            shape, dtype = tuple(getattr(r, "shape", ())), np.dtype(getattr(r, "dtype", type(r)))
            if shape != tuple(o.shape) or dtype != o.dtype:
                raise ValueError(
                    f"{self.name} returned output {k} of shape {shape} and dtype {dtype}; "
                    f"declared shape {tuple(o.shape)} and dtype {o.dtype}"
                )
            o[...] = r

    def run(self, call, args, rets):
        workspace = rets.pop() if self.workspace else None
        if call.platform == _callback.CPU:
            arrays = [_callback.host_view(b, writable=False) for b in args]
            outs = [_callback.host_view(b, writable=True) for b in rets]
            self._store(self._call(self.func_cpu or self.func, arrays, outs), outs, np)
        else:
            from . import _cupy

            with _cupy.CallContext(call, workspace) as view:
                arrays = [view(b) for b in args]
                outs = [view(b) for b in rets]
                if self.lazy == "numpy":
                    host = [a.get() for a in arrays]
                    res = self._call(self.func, host, [np.empty(o.shape, o.dtype) for o in outs])
                    res = res if isinstance(res, (tuple, list)) and len(outs) > 1 else (res,)
                    res = tuple(_cupy.cupy().asarray(np.asarray(r, dtype=o.dtype)) for r, o in zip(res, outs))
                    self._store(res if len(outs) > 1 else res[0], outs, _cupy.cupy())
                else:
                    self._store(self._call(self.func, arrays, outs), outs, _cupy.cupy())


class _Hidden:
    """Holds values JAX must not hash or look into (lazy_apply's kwargs), by identity."""

    def __init__(self, value):
        self.value = value


# --- primitive rules ------------------------------------------------------------------


def _abstract_eval(*avals, delegate):
    outs = [jax.core.ShapedArray(s, d) for s, d in delegate.outs]
    if delegate.workspace:
        outs.append(jax.core.ShapedArray((delegate.workspace,), np.uint8))
    return outs


delegate_p.def_abstract_eval(_abstract_eval)
delegate_p.def_impl(lambda *args, delegate: jax.jit(lambda *a: delegate_p.bind(*a, delegate=delegate))(*args))


def _lowering(ctx, *args, delegate):
    platforms = ctx.module_context.platforms
    target = _callback.TARGET_GRAPH if delegate.graph_safe and set(platforms) == {"cuda"} else _callback.TARGET
    for p in platforms:
        if p not in ("cpu", "cuda"):
            raise NotImplementedError(f"{delegate.name}: delegation runs on cpu and cuda, not {p!r}")
    axis_context = ctx.module_context.axis_context
    if isinstance(axis_context, sharding_impls.ShardingContext) and axis_context.num_devices > 1:
        warnings.warn(
            f"{delegate.name}: delegated calls have no sharding rule yet; under this {axis_context.num_devices}-device "
            "jit the call runs replicated (its operands are gathered to every device). Inside shard_map it runs per shard.",
            stacklevel=2,
        )
    return jax.ffi.ffi_lowering(target)(ctx, *args, callback_id=np.int64(delegate.id))


mlir.register_lowering(delegate_p, _lowering)

VMAP_METHODS = ("sequential", "expand_dims", "broadcast_all")


def _batch(args, dims, *, delegate):
    method = delegate.vmap_method
    if method is None:
        raise NotImplementedError(
            f"{delegate.name} under vmap: pass vmap_method= to cupy_lazy_apply, one of {', '.join(VMAP_METHODS)} "
            "('sequential' calls the function once per element; the others once, with a leading batch axis)"
        )
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    moved = [a if d is None else jnp.moveaxis(a, d, 0) for a, d in zip(args, dims)]
    if method == "sequential":
        mapped = [i for i, d in enumerate(dims) if d is not None]

        def one(xs):
            full = list(moved)
            for i, x in zip(mapped, xs):
                full[i] = x
            return delegate_p.bind(*full, delegate=delegate)

        outs = jax.lax.map(one, [moved[i] for i in mapped])
    else:
        if method == "expand_dims":
            full = [m if d is not None else jnp.expand_dims(m, 0) for m, d in zip(moved, dims)]
        else:
            full = [m if d is not None else jnp.broadcast_to(m, (size,) + m.shape) for m, d in zip(moved, dims)]
        outs = delegate_p.bind(*full, delegate=delegate.batched(size))
    return list(outs), [0] * len(outs)


batching.primitive_batchers[delegate_p] = _batch


# --- public API ------------------------------------------------------------------------


def _outputs(shape, dtype, arrays) -> tuple[tuple[tuple[int, ...], np.dtype], ...]:
    multi = isinstance(shape, (list, tuple)) and len(shape) > 0 and all(isinstance(s, (list, tuple)) for s in shape)
    if shape is None:
        shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    if dtype is None:
        dtype = jnp.result_type(*arrays)
    shapes = [tuple(s) for s in shape] if multi else [tuple(shape)]
    dtypes = list(dtype) if isinstance(dtype, (list, tuple)) else [dtype] * len(shapes)
    if len(dtypes) != len(shapes):
        raise ValueError(f"{len(shapes)} output shapes but {len(dtypes)} dtypes")
    for s in shapes:
        if not all(isinstance(n, (int, np.integer)) and n >= 0 for n in s):
            raise ValueError(f"output shape {s} must be fully known non-negative integers")
    return tuple((tuple(int(n) for n in s), np.dtype(jax.dtypes.canonicalize_dtype(d))) for s, d in zip(shapes, dtypes))


def _accepts_out(func) -> bool:
    if isinstance(func, np.ufunc) or type(func).__name__ == "ufunc":
        return True
    try:
        return "out" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def _bind(
    func, args, *, shape, dtype, kwargs, func_cpu=None, out_arg=None, workspace=0, graph_safe=False, lazy=False,
    name=None, vmap_method=None,
):  # fmt: skip
    template, arrays = [], []
    for i, a in enumerate(args):
        if _is_array(a):
            template.append(("array", None))
            arrays.append(jnp.asarray(a))
        elif _is_static(a):
            template.append(("static", a))
        else:
            raise TypeError(
                f"argument {i} of {name} is a {type(a).__name__}: pass arrays (jax/numpy) or static values "
                "(int, float, bool, str, None, or tuples of them)"
            )
    if not arrays:
        raise ValueError(f"{name}: at least one array argument is needed")
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ValueError(f"vmap_method must be one of {', '.join(VMAP_METHODS)} or None, got {vmap_method!r}")
    if not isinstance(workspace, (int, np.integer)) or workspace < 0:
        raise ValueError(f"workspace must be a number of bytes >= 0, got {workspace!r}")
    outs = _outputs(shape, dtype, arrays)
    d = Delegate(
        func=func,
        func_cpu=func_cpu,
        template=tuple(template),
        kwargs=kwargs,
        outs=outs,
        out_arg=_accepts_out(func) if out_arg is None else bool(out_arg),
        workspace=int(workspace),
        graph_safe=bool(graph_safe),
        lazy=lazy,
        name=name or getattr(func, "__qualname__", repr(func)),
        vmap_method=vmap_method,
    )
    _callback.library()
    res = delegate_p.bind(*arrays, delegate=d)
    if d.workspace:
        res = res[:-1]
    return res


def cupy_lazy_apply(
    func: Callable,
    *args: Any,
    shape=None,
    dtype=None,
    func_cpu: Callable | None = None,
    out_arg: bool | None = None,
    workspace: int = 0,
    graph_safe: bool = False,
    vmap_method: str | None = None,
    **static: Any,
):
    """Call ``func(*args, **static)`` on CuPy views of JAX's device buffers (GPU) or NumPy
    views of its host buffers (CPU), inside ``jax.jit``, with no host round trip.

    - Array arguments (JAX or NumPy arrays) become zero-copy views; other positional and
      keyword arguments must be static (int, float, bool, str, None, tuples of them): they
      reach ``func`` unchanged and a new value retraces.
    - ``shape``/``dtype``: the output; a sequence of shapes (and of dtypes) for several.
      Default: the broadcast shape and result dtype of the array arguments.
    - ``func`` either writes into ``out=`` (used when its signature has ``out``, or when
      ``out_arg=True``) or returns arrays, which are copied into XLA's outputs on XLA's
      stream; a shape or dtype that differs from the declaration is an error naming both.
    - On GPU ``func`` runs on XLA's stream in the device's context; CuPy allocations inside
      it come from a bump arena over a ``workspace``-byte scratch buffer XLA owns, then from
      XLA's allocator, and are released when the call returns.
    - On CPU ``func_cpu`` (default: ``func``, for array-API-generic functions) gets NumPy views.
    - ``graph_safe=True`` promises that ``func`` issues the same device work every time
      (CuPy kernels with ``out=`` and the workspace arena: yes; cuBLAS, cuFFT, CuPy's pool,
      synchronisation, host reads: no). The call is then captured into a CUDA graph, by
      XLA's command buffers or else by the bridge, and Python runs only when a graph is
      made: later calls on the same buffers replay it, at the cost of a native op. A
      ``func`` whose capture fails runs uncaptured, every time.
    - Under ``jax.vmap`` ``vmap_method`` says how: ``"sequential"`` (one call per element),
      ``"expand_dims"`` (one call; unbatched arrays get a leading axis of 1) or
      ``"broadcast_all"`` (one call; every array gets the full batch axis). Without it,
      vmap raises NotImplementedError.
    - An exception in ``func`` fails the computation with an error that names the exception
      type and carries its message and traceback; the process keeps working.
    """
    for k, v in static.items():
        if not _is_static(v):
            raise TypeError(
                f"keyword argument {k!r} of cupy_lazy_apply is a {type(v).__name__}: keyword arguments must be "
                "static (int, float, bool, str, None, or tuples of them); pass arrays positionally"
            )
    res = _bind(
        func, args, shape=shape, dtype=dtype, kwargs=tuple(sorted(static.items())), func_cpu=func_cpu,
        out_arg=out_arg, workspace=workspace, graph_safe=graph_safe, vmap_method=vmap_method,
    )  # fmt: skip
    return res[0] if len(res) == 1 else tuple(res)


def lazy_apply(func: Callable, *args: Any, shape=None, dtype=None, as_numpy: bool = False, xp=None, **kwargs: Any):
    """Drop-in for ``array_api_extra.lazy_apply`` on JAX: ``func(*args, **kwargs)`` runs on
    CuPy arrays on GPU (NumPy with ``as_numpy=True``) and on NumPy arrays on CPU, through
    the bridge's FFI handler instead of ``jax.pure_callback``.

    Python scalars among ``args`` arrive as 0-d arrays and None as None, as under
    array-api-extra's JAX path; ``kwargs`` reach ``func`` verbatim (they may be anything
    but arrays, and are hidden from JAX). ``func`` may return arrays, scalars or lists.
    Returns one array, or a tuple when ``shape`` is a sequence of shapes.
    """
    del xp  # the namespace is JAX's; func sees CuPy or NumPy
    for k, v in kwargs.items():
        if isinstance(v, (jax.Array, np.ndarray)) or hasattr(v, "__jax_array__"):
            raise ValueError(f"lazy_apply: keyword argument {k!r} is an array; pass arrays positionally")
    args = tuple(jnp.asarray(a) if isinstance(a, (int, float, complex)) and not isinstance(a, bool) else a for a in args)
    multi = isinstance(shape, (list, tuple)) and len(shape) > 0 and all(isinstance(s, (list, tuple)) for s in shape)
    res = _bind(
        func, args, shape=shape, dtype=dtype, kwargs=_Hidden(kwargs), out_arg=False,
        lazy="numpy" if as_numpy else True, name=getattr(func, "__qualname__", "lazy_apply"),
    )  # fmt: skip
    return tuple(res) if multi else res[0]


__all__ = ["cupy_lazy_apply", "lazy_apply", "Delegate", "delegate_p"]
