"""Relative condition numbers by central differences: near a zero of f two correct
implementations may differ by about kappa ulps, so the accuracy tests (test_accuracy,
test_gpu) and the device-port test allow rtol * kappa there (kappa > KAPPA_NEAR_ZERO)."""

from __future__ import annotations

import importlib

import numpy as np

KAPPA_NEAR_ZERO = 10.0


def scipy_function(u):
    """The spec's `scipy` reference of ufunc u (scipy.special.<name> by default), as the
    newest SciPy we follow defines it (AS_IN_NEWER_SCIPY)."""
    path = u.get("scipy", f"scipy.special.{u['name']}")
    module, attr = path.rsplit(".", 1)
    f = getattr(importlib.import_module(module), attr)
    if u["name"] in AS_IN_NEWER_SCIPY:
        version, wrap = AS_IN_NEWER_SCIPY[u["name"]]
        if not scipy_at_least(version):
            return wrap(f)
    return f


def scipy_at_least(version):
    """Whether the installed SciPy is `version` (major, minor) or newer."""
    import scipy

    return tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= version


def _gegenbauer_by_integer_loop(f):
    """SciPy 1.18's eval_gegenbauer from an older SciPy's loops: for real x an integer degree
    in [0, 1e10) takes the integer-degree loop (what 1.18's real-degree loop does)."""

    def gegenbauer(n, alpha, x):
        n, alpha, x = np.broadcast_arrays(n, alpha, x)
        if n.dtype.kind == "i" or np.iscomplexobj(x):
            return f(n, alpha, x)
        whole = (n == np.round(n)) & (n >= 0) & (n < 1e10)
        out = np.array(f(n, alpha, x), dtype=np.float64)
        out[whole] = f(n[whole].astype(np.int64), alpha[whole], x[whole])
        return out

    return gegenbauer


# name -> (SciPy version, how to compute that version's values from an older SciPy's).
AS_IN_NEWER_SCIPY = {"eval_gegenbauer": ((1, 18), _gegenbauer_by_integer_loop)}


def condition_numbers(f, args, wants):
    """Per-element relative condition number of each output, by central differences."""
    kappa = [np.zeros(np.shape(w), dtype=np.float64) for w in wants]
    for j, a in enumerate(args):
        if a.dtype.kind == "i":
            continue
        scale = np.where(np.abs(a) > 1e-300, np.abs(a), 1.0)
        # A step of 1e-7 relative sees smooth variation; one of 16 ulps sees functions
        # that oscillate faster than that (j0 at 1e300).
        kj = [np.zeros(np.shape(w)) for w in wants]
        # Past 1e8 a step of 1e-3 relative also catches oscillation the others alias away.
        steps = [1e-7 * scale, 16 * np.spacing(scale), np.where(scale > 1e8, 1e-3 * scale, 1e-7 * scale)]
        for h in steps:
            up, down = list(args), list(args)
            with np.errstate(all="ignore"):
                up[j], down[j] = a + h, a - h
            with np.errstate(all="ignore"):
                fu, fd = f(*up), f(*down)
            fu = fu if isinstance(fu, tuple) else (fu,)
            fd = fd if isinstance(fd, tuple) else (fd,)
            for k, w in enumerate(wants):
                with np.errstate(all="ignore"):
                    deriv = (np.asarray(fu[k]) - np.asarray(fd[k])) / (2 * h)
                    kj[k] = np.maximum(kj[k], np.nan_to_num(np.abs(a * deriv / w), nan=np.inf, posinf=np.inf))
        for k in range(len(wants)):
            kappa[k] += kj[k]
    return kappa
