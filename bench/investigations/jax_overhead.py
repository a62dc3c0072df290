"""Calibration at 2^26 on the GPU machine: wall time per jitted call (with a wait for the
result) of bridged functions beside native XLA ops and CuPy, to separate what a kernel
costs from what a JAX call adds at large sizes. With --ncu, a few calls for
`ncu --metrics gpu__time_duration.sum` to time the kernels inside those calls.

Run: python bench/jax_overhead.py [--ncu]
"""

import os
import sys

import jax

jax.config.update("jax_enable_x64", True)
import cupy  # noqa: E402
import cupyx.scipy.special as cps  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import jax_xsf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
import timing  # noqa: E402

N = 1 << 26
NCU = "--ncu" in sys.argv


def wall(fn, sync, reps=40):
    return timing.median_time(fn, sync, budget=0.0, min_reps=3 if NCU else reps) * 1e6


def cusync(_):
    cupy.cuda.get_current_stream().synchronize()


for dtype in ["float32", "float64"]:
    host = np.random.default_rng(0).uniform(0.5, 8.0, N).astype(dtype)
    x = jax.device_put(host, jax.devices("cuda")[0])
    xc = cupy.asarray(host)
    cases = {
        "jax v*2": (jax.jit(lambda v: v * 2), jax.block_until_ready, x),
        "jax exp2": (jax.jit(jnp.exp2), jax.block_until_ready, x),
        "bridge exp2": (jax.jit(jax_xsf.exp2), jax.block_until_ready, x),
        "bridge digamma": (jax.jit(jax_xsf.digamma), jax.block_until_ready, x),
        "cupy x*2": (lambda v: v * 2, cusync, xc),
        "cupy exp2": (cps.exp2, cusync, xc),
        "cupy digamma": (cps.digamma, cusync, xc),
    }
    for name, (f, sync, arg) in cases.items():
        print(f"{dtype} {name:16s} {wall(lambda: f(arg), sync):9.1f} us", flush=True)
