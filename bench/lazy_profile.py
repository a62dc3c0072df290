"""Where a delegated call's time goes (run on the GPU machine): cProfile over many jitted
`cupy_lazy_apply(cupy.sin, x, out_arg=True)` calls at 2^10 float32, sorted by own time,
beside the wall time per call of the same call, an empty delegated function (the
dispatch floor), and a native `jnp.sin`.

Run: python bench/lazy_profile.py [--calls 3000]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys

sys.path.insert(0, os.path.dirname(__file__))
import cupy  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from gpu import jax_sync, timeit  # noqa: E402

from jax_cupy_bridge import cupy_lazy_apply  # noqa: E402


def nothing(x, out):
    pass


def main(calls):
    x = jax.device_put(np.linspace(-3, 3, 1 << 10, dtype=np.float32), jax.devices("cuda")[0])
    paths = {
        "cupy_lazy_apply(cupy.sin, out=)": jax.jit(lambda v: cupy_lazy_apply(cupy.sin, v, out_arg=True)),
        "cupy_lazy_apply(nothing)": jax.jit(lambda v: cupy_lazy_apply(nothing, v, out_arg=True)),
        "jnp.sin": jax.jit(jnp.sin),
    }
    for name, f in paths.items():
        print(f"{name:34s} {timeit(lambda f=f: f(x), jax_sync) * 1e6:8.1f} us per call", flush=True)
    f = paths["cupy_lazy_apply(cupy.sin, out=)"]
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
