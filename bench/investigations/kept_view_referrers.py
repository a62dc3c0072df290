"""Which objects hold a delegated call's CuPy views after the call (run on the GPU machine,
plain and under compute-sanitizer): a plain call, captured graph_safe calls, a plain call,
an uncapturable graph_safe call, a plain call; for every view the kept-view check reports,
prints its referrers. The open question of docs/gpu.md (memcheck of 2026-12-03).

Run: python bench/investigations/kept_view_referrers.py
"""

from __future__ import annotations

import gc
import types

import cupy
import jax
import numpy as np

from jax_cupy_bridge import _cupy, cupy_lazy_apply


def _gpu(x):
    return jax.device_put(x, jax.devices("cuda")[0])


_release = _cupy.DeviceViews.release


def _describe(o):
    if isinstance(o, dict):
        return f"dict {list(o)[:4]}"
    if isinstance(o, types.FrameType):
        return f"frame {o.f_code.co_name} ({o.f_code.co_filename}:{o.f_lineno})"
    if isinstance(o, types.TracebackType):
        return "traceback"
    return type(o).__name__ + " " + str(o)[:60].replace("\n", " ")


def _chain(obj, depth, indent, seen):
    """Print who refers to `obj`, `depth` levels up (this module's own frames left out)."""
    if depth == 0:
        return
    for r in gc.get_referrers(obj):
        if id(r) in seen or r is seen or isinstance(r, types.FrameType) and r.f_code.co_filename == __file__:
            continue
        seen.add(id(r))
        print(" " * indent + "<- " + _describe(r))
        if not (isinstance(r, dict) and len(r) > 64):  # the view cache, a module's globals
            _chain(r, depth - 1, indent + 2, seen)


def _reporting_release(self):
    for key, (what, counts) in self._handed.items():
        v = _cupy._views.get(key)
        if v is None:
            continue
        print(" ", what, "at hand-out", counts, "now", self._counts(v))
        seen = {id(self._handed), id(_cupy._views)}
        _chain(v, 4, 4, seen)
        del v  # this frame's references would count as kept ones
    return _release(self)


def plain(tag, fn):
    print(tag)
    try:
        print("  ok", np.asarray(fn(_gpu(np.arange(1 << 20, dtype=np.float64))))[:2])
    except Exception as e:  # noqa: BLE001 - reported
        print("  ERR", str(e)[:200])


def uncapturable(a, out):
    cupy.multiply(a, 2.0, out=out)
    float(out[0])  # a host read under capture


def main():
    _cupy.DeviceViews.release = _reporting_release
    add = jax.jit(lambda v: cupy_lazy_apply(lambda a, out: cupy.add(a, 1.0, out=out), v, out_arg=True))
    plain("plain call, fresh process", add)
    cap = jax.jit(lambda v: cupy_lazy_apply(lambda a, out: cupy.multiply(a, 2.0, out=out), v, out_arg=True, graph_safe=True))
    xs = _gpu(np.arange(256.0))
    for _ in range(3):
        np.asarray(cap(xs))
    plain("plain call after captured graph_safe calls", add)
    g = jax.jit(lambda v: cupy_lazy_apply(uncapturable, v, graph_safe=True))
    for _ in range(2):
        try:
            np.asarray(g(_gpu(np.arange(256.0))))
        except Exception as e:  # noqa: BLE001 - reported
            print("graph_safe ERR", str(e)[:300])
    plain("plain call after an uncapturable graph_safe call", add)


if __name__ == "__main__":
    main()
