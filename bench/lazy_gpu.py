"""GPU benchmark of delegation (run on the GPU machine): per jitted call, the same CuPy
function through jax_cupy_bridge.cupy_lazy_apply, jax.experimental.buffer_callback + CuPy
on XLA's stream, and jax.pure_callback (host round trip), plus eager CuPy, at 2^10, 2^20
and 2^26 float32 elements, in one run.

`cupy_lazy_apply` and buffer_callback both run `cupy.sin(x, out=out)` into XLA's output;
"lazy, graph_safe" is the same call declared `graph_safe=True` (captured into a CUDA graph
once, then replayed without Python); "lazy, returning" lets cupy.sin allocate its result (from the call's arena) and copies it.
At 2^26 the CuPy paths are also timed back to back (10 calls, one wait).
Run: python bench/lazy_gpu.py [--json out.json]. Targets (issue: delegation): at 2^10
<= 0.8 x buffer_callback, never slower than it, and within 5 % of eager CuPy at 2^26.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import cupy  # noqa: E402
import jax  # noqa: E402
import numpy as np  # noqa: E402
from gpu import buffer_callback_fn, cupy_sync, environment, jax_sync, timeit, timeit_pipelined  # noqa: E402

from jax_cupy_bridge import cupy_lazy_apply  # noqa: E402

SIZES = [1 << 10, 1 << 20, 1 << 26]
BACK_TO_BACK = ", back to back"
PIPELINED = ("cupy_lazy_apply", "lazy, graph_safe", "buffer_callback", "cupy eager")


def run():
    rows = []
    for n in SIZES:
        host = np.random.default_rng(0).uniform(-3, 3, n).astype(np.float32)
        x = jax.device_put(host, jax.devices("cuda")[0])
        xc = cupy.asarray(host)
        # Same work as the buffer_callback path: cupy.sin writing into XLA's output.
        bridge = jax.jit(lambda v: cupy_lazy_apply(cupy.sin, v, out_arg=True))
        # The same declared graph_safe: captured once, then replayed without Python.
        graph = jax.jit(lambda v: cupy_lazy_apply(cupy.sin, v, out_arg=True, graph_safe=True))
        # cupy.sin returning a new array (from the call's arena), copied into XLA's output.
        returning = jax.jit(lambda v: cupy_lazy_apply(cupy.sin, v))
        bc = buffer_callback_fn(cupy.sin, host.shape, host.dtype)
        paths = {
            "cupy_lazy_apply": (lambda: bridge(x), jax_sync),
            "lazy, graph_safe": (lambda: graph(x), jax_sync),
            "lazy, returning": (lambda: returning(x), jax_sync),
            "buffer_callback": (lambda: bc(x), jax_sync),
            "cupy eager": (lambda: cupy.sin(xc), cupy_sync),
        }
        if n <= 1 << 20:
            pc = jax.jit(lambda v: jax.pure_callback(np.sin, jax.ShapeDtypeStruct(v.shape, v.dtype), v))
            paths["pure_callback"] = (lambda: pc(x), jax_sync)
        for path, (fn, sync) in paths.items():
            t = timeit(fn, sync)
            rows.append(dict(n=n, path=path, seconds=t))
            print(f"2^{n.bit_length() - 1:<3d} {path:16s} {t * 1e6:10.1f} us", flush=True)
        if n == SIZES[-1]:
            # Steady state: 10 calls back to back and one wait, so each call's host work
            # overlaps the previous call's kernel (JAX's wait alone adds tens of µs to a
            # single synchronous call at this size).
            for path in PIPELINED:
                fn, sync = paths[path]
                t = timeit_pipelined(fn, sync)
                rows.append(dict(n=n, path=path + BACK_TO_BACK, seconds=t))
                print(f"2^{n.bit_length() - 1:<3d} {path + BACK_TO_BACK:16s} {t * 1e6:10.1f} us", flush=True)
    return rows


def table(rows):
    by = {(r["n"], r["path"]): r["seconds"] for r in rows}
    cols = ["cupy_lazy_apply", "lazy, graph_safe", "lazy, returning", "buffer_callback", "pure_callback", "cupy eager"]
    ratios = "lazy / buffer_callback | graph_safe / buffer_callback | lazy / eager CuPy | graph_safe / eager CuPy"
    out = ["| n (float32) | " + " | ".join(cols) + f" | {ratios} |", "|---|" + "---|" * (len(cols) + 4)]
    for n in SIZES:
        cells = [f"{by[(n, c)] * 1e6:,.1f} µs" if (n, c) in by else "—" for c in cols]
        lz, gs, bc, eager = (by[(n, c)] for c in ("cupy_lazy_apply", "lazy, graph_safe", "buffer_callback", "cupy eager"))
        out.append(f"| 2^{n.bit_length() - 1} | " + " | ".join(cells) + f" | {lz / bc:.2f}× | {gs / bc:.2f}× | {lz / eager:.2f}× | {gs / eager:.2f}× |")
    n = SIZES[-1]
    paths = [p + BACK_TO_BACK for p in PIPELINED]
    if all((n, p) in by for p in paths):
        lz, gs, bc, eager = (by[(n, p)] for p in paths)
        out += ["", f"Back to back at 2^{n.bit_length() - 1} (10 calls, one wait; per call):", "",
                "| cupy_lazy_apply | lazy, graph_safe | buffer_callback | cupy eager | lazy / eager CuPy | graph_safe / eager CuPy |",
                "|---|---|---|---|---|---|",
                f"| {lz * 1e6:,.1f} µs | {gs * 1e6:,.1f} µs | {bc * 1e6:,.1f} µs | {eager * 1e6:,.1f} µs | {lz / eager:.2f}× | {gs / eager:.2f}× |"]  # fmt: skip
    return "\n".join(out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    a = ap.parse_args()
    env = environment()
    rows = run()
    print(json.dumps(env))
    print(table(rows))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(environment=env, rows=rows), f, indent=1)
