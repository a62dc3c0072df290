"""Cost of JAX transformations of a bridged function against the plain call, on one
platform (default: CPU), in one run: vmap over rows vs one call on the broadcast shape,
and grad (elementwise, via vmap) vs the plain call.

Run: python bench/transforms.py [--platform cpu|cuda] [--n 1000]
"""

from __future__ import annotations

import argparse
import platform as pf
import time

import jax

jax.config.update("jax_enable_x64", True)
import numpy as np  # noqa: E402

import jax_xsf  # noqa: E402
import timing  # noqa: E402


def median_time(fn, *args, reps=30):
    return timing.median_time(lambda: fn(*args), timing.jax_sync, budget=0.0, min_reps=reps)


def main(platform="cpu", n=1000):
    dev = jax.devices(platform)[0]
    x = jax.device_put(np.random.default_rng(0).uniform(0.5, 50.0, (n, n)), dev)
    row = jax.device_put(np.linspace(0.5, 2.0, n), dev)
    cases = {
        "gammaln(X), one call on (n, n)": (jax.jit(jax_xsf.gammaln), (x,)),
        "vmap(gammaln) over the rows of X": (jax.jit(jax.vmap(jax_xsf.gammaln)), (x,)),
        "vmap(gammaincinv, in_axes=(0, None)) (X, row)": (jax.jit(jax.vmap(jax_xsf.gammaincinv, in_axes=(0, None))), (x, row / 2.5)),
        "gammaincinv(X, row), broadcast": (jax.jit(jax_xsf.gammaincinv), (x, row / 2.5)),
        "vmap(vmap(grad(gammaln)))(X)": (jax.jit(jax.vmap(jax.vmap(jax.grad(jax_xsf.gammaln)))), (x,)),
        "digamma(X) (what grad computes)": (jax.jit(jax_xsf.digamma), (x,)),
    }
    res = {k: median_time(f, *a) for k, (f, a) in cases.items()}
    print(f"{time.strftime('%Y-%m-%d')}, {pf.machine()}, jax {jax.__version__}, platform {platform}, n = {n} ({n * n} elements)")
    print("| call | median | ratio |")
    print("|---|---|---|")
    pairs = [
        ("vmap(gammaln) over the rows of X", "gammaln(X), one call on (n, n)"),
        ("vmap(gammaincinv, in_axes=(0, None)) (X, row)", "gammaincinv(X, row), broadcast"),
        ("vmap(vmap(grad(gammaln)))(X)", "digamma(X) (what grad computes)"),
    ]
    for a, b in pairs:
        print(f"| {b} | {res[b] * 1e3:.2f} ms | 1.00× |")
        print(f"| {a} | {res[a] * 1e3:.2f} ms | {res[a] / res[b]:.2f}× |")
    return res


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--platform", default="cpu")
    ap.add_argument("--n", type=int, default=1000)
    a = ap.parse_args()
    main(a.platform, a.n)
