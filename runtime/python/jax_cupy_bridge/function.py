"""`[[function]]` specs at run time: named CuPy callables with checked inputs and static
parameters, output shapes and dtypes from the spec's rules, and workspace sizes, all
delegated through :func:`jax_cupy_bridge.cupy_lazy_apply`.

The spec's rules are functions of the inputs (their ``shape``, ``ndim``, ``size``,
``dtype``) and the parameters, in the generated package's ``_rules.py``, called at trace
time.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import jax.numpy as jnp
import numpy as np

from bridgegen_runtime._dtypes import CODES

from .lazy import cupy_lazy_apply


class LazyCallable:
    """A callable named by its import path, imported on first call (so CuPy is never
    imported on CPU-only machines); equal by path, so traces reuse JAX's caches."""

    def __init__(self, path: str):
        self.path = path
        self._fn = None

    def __call__(self, *args, **kwargs):
        if self._fn is None:
            module, attr = self.path.rsplit(".", 1)
            self._fn = getattr(importlib.import_module(module), attr)
        return self._fn(*args, **kwargs)

    def __eq__(self, other):
        return isinstance(other, LazyCallable) and other.path == self.path

    def __hash__(self):
        return hash(("LazyCallable", self.path))

    def __repr__(self):
        return self.path


_PY_TYPES = {"int": (int,), "float": (float, int), "bool": (bool,), "str": (str,)}


class Function:
    def __init__(self, qualname: str, info: dict):
        self.qualname = qualname
        self.cupy = LazyCallable(info["cupy"])
        self.cpu = LazyCallable(info["cpu"])
        self.inputs = info["inputs"]
        self.outputs = info["outputs"]
        self.workspace = info["workspace"]
        self.params = info["params"]
        self.platforms = info["platforms"]
        self.batching = info.get("batching", "sequential")
        self.rules = None  # dict(shapes=, dtypes=, workspace=), from the package's _rules.py

    def _check_params(self, params: dict) -> dict:
        out = {}
        for name, ty, _has_default, choices in self.params:
            v = params[name]
            if isinstance(v, bool) and ty != "bool" or not isinstance(v, _PY_TYPES[ty]):
                raise TypeError(f"{self.qualname}: parameter {name} must be a {ty}, got {v!r}")
            if choices and v not in choices:
                raise ValueError(f"{self.qualname}: parameter {name} must be one of {', '.join(map(repr, choices))}; got {v!r}")
            out[name] = float(v) if ty == "float" else v
        return out

    def __call__(self, *arrays, **params):
        if len(arrays) != len(self.inputs):
            names = ", ".join(n for n, _, _ in self.inputs)
            raise TypeError(f"{self.qualname}() takes {len(self.inputs)} array argument(s) ({names}), got {len(arrays)}")
        xs = []
        for a, (name, codes, rank) in zip(arrays, self.inputs):
            if not hasattr(a, "dtype") and not isinstance(a, (int, float, complex)):
                raise TypeError(f"{self.qualname}: {name} must be an array, got {type(a).__name__}")
            x = jnp.asarray(a)
            accepted = [np.dtype(CODES[c]) for c in codes]
            if x.dtype not in accepted:
                raise TypeError(
                    f"{self.qualname}: {name} has dtype {x.dtype}; accepted: {', '.join(str(d) for d in accepted)}"
                )
            if rank is not None and x.ndim != rank:
                raise ValueError(f"{self.qualname}: {name} must have rank {rank}, got shape {x.shape}")
            xs.append(x)
        statics = self._check_params(params)

        def rule(fn):
            try:
                return fn(*xs, **statics)
            except Exception as e:
                raise ValueError(f"{self.qualname}: the spec's rule {fn.__name__} failed: {e}") from e

        shapes, dtypes = [], []
        for shape_rule, dtype_rule in zip(self.rules["shapes"], self.rules["dtypes"]):
            s = rule(shape_rule)
            shapes.append(tuple(int(n) for n in (s if isinstance(s, tuple) else (s,))))
            dtypes.append(np.dtype(CODES[dtype_rule]) if isinstance(dtype_rule, str) else np.dtype(rule(dtype_rule)))
        workspace = sum(int(rule(b)) for b in self.rules["workspace"])
        multi = len(self.outputs) > 1
        return cupy_lazy_apply(
            self.cupy, *xs, shape=tuple(shapes) if multi else shapes[0], dtype=tuple(dtypes) if multi else dtypes[0],
            func_cpu=self.cpu, out_arg=False, workspace=workspace, vmap_method=self.batching, **statics,
        )  # fmt: skip


def load_functions(package: str, spec: ModuleType) -> dict[str, Function]:
    return {name: Function(f"{package}.{name}", info) for name, info in getattr(spec, "FUNCTIONS", {}).items()}
