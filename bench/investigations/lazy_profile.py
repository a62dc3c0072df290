"""Where a delegated call's time goes (run on the GPU machine).

First, what one CuPy view of a buffer costs, made anew or found in the bridge's cache. For
2^10 and 2^26 float32 elements, the wall time per jitted call (call plus wait,
medians) of: a delegated function that does nothing (the dispatch floor), `cupy.sin`
writing into `out=` through `cupy_lazy_apply`, the same through `buffer_callback`, a
native `jnp.sin`, and eager `cupy.sin` into a preallocated output; and which thread ran
the delegated function (on GPU: the caller's, so no GIL hand-over between threads and no
Python thread state built per call). Last, cProfile over many 2^10 calls, sorted by own time.

Run: python bench/lazy_profile.py [--calls 3000]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
import cupy  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from gpu import buffer_callback_fn, cupy_sync, jax_sync, timeit  # noqa: E402

from jax_cupy_bridge import cupy_lazy_apply  # noqa: E402

threads: set[int] = set()


def nothing(x, out):
    threads.add(threading.get_ident())


def sin_out(x, out):
    cupy.sin(x, out=out)


def time_paths(label, paths):
    for name, (fn, sync) in paths.items():
        print(f"{label:5s} {name:34s} {timeit(fn, sync) * 1e6:9.1f} us per call", flush=True)


def view_cost(reps=20000):
    """What making a CuPy view of an XLA buffer costs per call, against finding the one
    made for the same buffer on an earlier call (what the bridge does since 2026-12-03)."""
    import timeit as _timeit

    a = cupy.empty(1 << 10, cupy.float32)
    ptr, shape, dtype = a.data.ptr, a.shape, a.dtype

    def fresh():
        mem = cupy.cuda.UnownedMemory(ptr, a.nbytes, None, 0)
        return cupy.ndarray(shape, dtype, memptr=cupy.cuda.MemoryPointer(mem, 0))

    cache = {(ptr, shape, dtype, 0): fresh()}

    def cached():
        v = cache.get((ptr, shape, dtype, 0))
        return v if v is not None and v.shape == shape else fresh()

    for name, f in (("new view", fresh), ("cached view", cached)):
        t = min(_timeit.repeat(f, number=reps, repeat=5)) / reps
        print(f"{name:12s} {t * 1e6:6.2f} us per buffer", flush=True)


def main(calls):
    view_cost()
    dev = jax.devices("cuda")[0]
    inputs = {}
    for log2 in (10, 26):
        host = np.linspace(-3, 3, 1 << log2, dtype=np.float32)
        inputs[log2] = (jax.device_put(host, dev), cupy.asarray(host), cupy.empty_like(cupy.asarray(host)))
    lazy = {
        "cupy_lazy_apply(nothing)": jax.jit(lambda v: cupy_lazy_apply(nothing, v, out_arg=True)),
        "cupy_lazy_apply(cupy.sin, out=)": jax.jit(lambda v: cupy_lazy_apply(sin_out, v, out_arg=True)),
    }
    for log2, (x, xc, oc) in inputs.items():
        bc = buffer_callback_fn(cupy.sin, x.shape, x.dtype)
        native = jax.jit(jnp.sin)
        paths = {name: (lambda f=f, x=x: f(x), jax_sync) for name, f in lazy.items()}
        paths["buffer_callback(cupy.sin)"] = (lambda x=x, bc=bc: bc(x), jax_sync)
        paths["jnp.sin"] = (lambda x=x, f=native: f(x), jax_sync)
        paths["eager cupy.sin(out=)"] = (lambda xc=xc, oc=oc: cupy.sin(xc, out=oc), cupy_sync)
        time_paths(f"2^{log2}", paths)
    main_thread = threading.get_ident()
    where = "the calling (main) thread" if threads == {main_thread} else f"{len(threads - {main_thread})} other thread(s)"
    print(f"delegated functions ran on {where}", flush=True)
    f = lazy["cupy_lazy_apply(cupy.sin, out=)"]
    x = inputs[10][0]
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        jax.block_until_ready(f(x))
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=3000)
    main(ap.parse_args().calls)
