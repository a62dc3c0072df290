"""One delegated call at 2^26 float32, taken apart (run on the GPU machine): host
timestamps at the jitted call, entry to and exit from the delegated function, the return
of the call and the end of the wait, plus CUDA events around the CuPy work on XLA's
stream, for `cupy.sin` over the whole array, over its first 2^20 elements, and nothing;
beside jitted `jnp.sin` and `jax_xsf.expit` (return and wait) and the same `cupy.sin`
launched eagerly by CuPy (events and wall time).
Medians over many calls, in µs from the start of the call.

Run: python bench/lazy_timeline.py [--reps 50] [--log2 26]
"""

from __future__ import annotations

import argparse
import statistics
import time

import cupy
import jax
import jax.numpy as jnp
import numpy as np

import jax_xsf
from jax_cupy_bridge import cupy_lazy_apply

stamps: dict[str, float] = {}
events = {}


def timed(work):
    def func(x, out):
        stamps["enter"] = time.perf_counter()
        stream = cupy.cuda.get_current_stream()
        events["start"].record(stream)
        work(x, out)
        events["end"].record(stream)
        stamps["exit"] = time.perf_counter()

    return func


VARIANTS = {
    "sin": lambda x, out: cupy.sin(x, out=out),
    "sin of 2^20": lambda x, out: cupy.sin(x[: 1 << 20], out=out[: 1 << 20]),
    "nothing": lambda x, out: None,
}


def report(label, rows):
    keys = rows[0].keys()
    print(f"{label}: " + ", ".join(f"{k} {statistics.median(r[k] for r in rows):.1f}" for k in keys) + " (µs)", flush=True)


def jitted_rows(f, x, reps, delegated):
    """Per call: when it returned and when its wait ended; for a delegated call also when
    the function was entered and left, and the kernel time between its CUDA events."""
    jax.block_until_ready(f(x))
    rows = []
    for _ in range(reps):
        t0 = time.perf_counter()
        y = f(x)
        t1 = time.perf_counter()
        jax.block_until_ready(y)
        t2 = time.perf_counter()
        row = dict(returned=(t1 - t0) * 1e6, ready=(t2 - t0) * 1e6)
        if delegated:
            events["end"].synchronize()
            row.update(enter=(stamps["enter"] - t0) * 1e6, exit=(stamps["exit"] - t0) * 1e6,
                       kernel=cupy.cuda.get_elapsed_time(events["start"], events["end"]) * 1e3)  # fmt: skip
        rows.append(row)
        del y
    return rows


def main(reps, log2):
    events["start"], events["end"] = cupy.cuda.Event(), cupy.cuda.Event()
    host = np.linspace(-3, 3, 1 << log2, dtype=np.float32)
    x = jax.device_put(host, jax.devices("cuda")[0])
    for name, work in VARIANTS.items():
        f = jax.jit(lambda v, work=work: cupy_lazy_apply(timed(work), v, out_arg=True))
        report(f"lazy {name} 2^{log2}", jitted_rows(f, x, reps, delegated=True))
    for name, f in {"jnp.sin": jax.jit(jnp.sin), "jax_xsf.expit": jax.jit(jax_xsf.expit)}.items():
        report(f"{name} 2^{log2}", jitted_rows(f, x, reps, delegated=False))
    xc, oc = cupy.asarray(host), cupy.empty(host.shape, host.dtype)
    stream = cupy.cuda.get_current_stream()
    eager = []
    for _ in range(reps):
        t0 = time.perf_counter()
        events["start"].record(stream)
        cupy.sin(xc, out=oc)
        events["end"].record(stream)
        t1 = time.perf_counter()
        stream.synchronize()
        t2 = time.perf_counter()
        eager.append(dict(returned=(t1 - t0) * 1e6, ready=(t2 - t0) * 1e6,
                          kernel=cupy.cuda.get_elapsed_time(events["start"], events["end"]) * 1e3))  # fmt: skip
    report(f"eager 2^{log2}", eager)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--log2", type=int, default=26)
    a = ap.parse_args()
    main(a.reps, a.log2)
