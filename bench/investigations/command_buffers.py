"""What XLA's command buffers (CUDA graphs) do to bridged calls (run on the GPU machine,
with XLA_FLAGS set by the caller, e.g. scripts/gpu_profile.sh runs it with and without
`--xla_gpu_graph_min_graph_size=1 --xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL`).

Per jitted call at 2^10 float32 (call plus wait, medians): `cupy_lazy_apply(cupy.sin,
out=)` with and without `graph_safe=True`, `buffer_callback` running the same, native
`jnp.sin` and the bridge's `gammaln`; for the delegated calls also how many times the
Python function ran per jitted call (a replayed graph does not enter Python). Then a
fori_loop of 100 chained gammaln calls, bridge (in place by default) against native.

Run: python bench/command_buffers.py
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
import cupy  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402
from gpu import buffer_callback_fn, jax_sync, timeit  # noqa: E402

import jax_xsf  # noqa: E402
from jax_cupy_bridge import cupy_lazy_apply  # noqa: E402

runs = {"count": 0}


def sin_out(x, out):
    runs["count"] += 1
    cupy.sin(x, out=out)


def main():
    print("XLA_FLAGS:", os.environ.get("XLA_FLAGS", ""), flush=True)
    x = jax.device_put(np.linspace(0.5, 3, 1 << 10, dtype=np.float32), jax.devices("cuda")[0])
    bc = buffer_callback_fn(cupy.sin, x.shape, x.dtype)
    paths = {
        "cupy_lazy_apply": jax.jit(lambda v: cupy_lazy_apply(sin_out, v, out_arg=True)),
        "cupy_lazy_apply, graph_safe": jax.jit(lambda v: cupy_lazy_apply(sin_out, v, out_arg=True, graph_safe=True)),
        "buffer_callback": jax.jit(lambda v: bc(v)),
        "jnp.sin": jax.jit(jnp.sin),
        "jax_xsf.gammaln": jax.jit(jax_xsf.gammaln),
        "jax.scipy gammaln": jax.jit(jsp.gammaln),
    }
    for name, f in paths.items():
        runs["count"] = 0
        calls = 0

        def call(f=f):
            nonlocal calls
            calls += 1
            return f(x)

        t = timeit(call, jax_sync)
        python = f", Python entered {runs['count'] / calls:.2f}× per call" if "lazy" in name else ""
        print(f"2^10 {name:30s} {t * 1e6:8.1f} us per call{python}", flush=True)
    iters = 100
    loops = {
        "bridge": jax.jit(lambda v: jax.lax.fori_loop(0, iters, lambda i, a: jax_xsf.gammaln(a), v)),
        "jax.scipy": jax.jit(lambda v: jax.lax.fori_loop(0, iters, lambda i, a: jsp.gammaln(a), v)),
    }
    for name, f in loops.items():
        t = timeit(lambda f=f: f(x), jax_sync)
        print(f"fori_loop chained {name:24s} {t / iters * 1e6:8.2f} us/iteration", flush=True)


if __name__ == "__main__":
    main()
