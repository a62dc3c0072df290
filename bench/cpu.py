"""CPU benchmark: the jitted bridge against eager scipy.special, jax.pure_callback(scipy)
and jax.scipy.special, at 1e3 and 1e7 float64 elements, all in one run.

Run: python bench/cpu.py [--sizes 1000 10000000] [--json out.json]
Prints a markdown table of medians and ratios (for docs/benchmarks.md). The bridge is
timed twice: with its default thread pool, and pinned to one core (RAYON_NUM_THREADS=1,
in a child process), because the target is scipy's single-core eager throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.special as sc  # noqa: E402

import jax_xsf  # noqa: E402
import timing  # noqa: E402

CASES = {
    # name: (input ranges, jax.scipy equivalent or None)
    "gammaln": ([(0.1, 100.0)], jsp.gammaln),
    "erf": ([(-5.0, 5.0)], jsp.erf),
    "ndtri": ([(0.0, 1.0)], jsp.ndtri),
    "gammaincinv": ([(0.5, 20.0), (0.0, 1.0)], None),
    "kv": ([(0.0, 5.0), (0.1, 20.0)], None),
}


def median_time(fn, args, budget=2.0, min_reps=3, max_reps=50):
    return timing.median_time(lambda: fn(*args), budget=budget, min_reps=min_reps, max_reps=max_reps)


def inputs(name, n):
    rng = np.random.default_rng(0)
    return [rng.uniform(lo, hi, n) for lo, hi in CASES[name][0]]


def bridge_only(sizes):
    out = {}
    for name in CASES:
        f = jax.jit(getattr(jax_xsf, name))
        for n in sizes:
            args = [jnp.asarray(a) for a in inputs(name, n)]
            out[f"{name}/{n}"] = median_time(lambda *a: f(*a).block_until_ready(), args)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000_000])
    p.add_argument("--json")
    p.add_argument("--bridge-only", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.bridge_only:
        print(json.dumps(bridge_only(a.sizes)))
        return
    env = {**os.environ, "RAYON_NUM_THREADS": "1"}
    one_core = json.loads(
        subprocess.run([sys.executable, __file__, "--bridge-only", "--sizes", *map(str, a.sizes)],
                       env=env, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    )
    rows = []
    for name, (_, jfn) in CASES.items():
        scipy_fn = getattr(sc, name)
        bridge = jax.jit(getattr(jax_xsf, name))
        for n in a.sizes:
            np_args = inputs(name, n)
            j_args = [jnp.asarray(x) for x in np_args]
            r = {"function": name, "n": n}
            r["bridge"] = median_time(lambda *x: bridge(*x).block_until_ready(), j_args)
            r["bridge_1core"] = one_core[f"{name}/{n}"]
            r["scipy"] = median_time(scipy_fn, np_args)
            shape = jax.ShapeDtypeStruct((n,), jnp.float64)
            cb = jax.jit(lambda *x: jax.pure_callback(lambda *y: scipy_fn(*y), shape, *x))
            r["pure_callback"] = median_time(lambda *x: cb(*x).block_until_ready(), j_args)
            # What any jitted op producing a fresh n-element output costs (allocation,
            # first touch, one pass over memory): the floor under every jitted path.
            floor = jax.jit(lambda v: v * 2.0)
            r["xla_floor"] = median_time(lambda v: floor(v).block_until_ready(), j_args[-1:])
            out = np.empty(n)
            r["scipy_out"] = median_time(lambda *x: scipy_fn(*x, out=out), np_args)
            if jfn is not None:
                jf = jax.jit(jfn)
                r["jax_scipy"] = median_time(lambda *x: jf(*x).block_until_ready(), j_args)
            rows.append(r)
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or 'cpu'}",
        "python": platform.python_version(),
        "jax": jax.__version__,
        "scipy": scipy.__version__,
        "numpy": np.__version__,
    }
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
    print(" ".join(f"{k}={v}" for k, v in meta.items()))
    print()
    print("| function | n | bridge | bridge, 1 core | scipy eager | scipy, out= | pure_callback | jax.scipy | jit x*2 (floor) | scipy / bridge 1-core | pure_callback / bridge |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    us = lambda t: f"{t * 1e6:,.0f} µs" if t < 1e-2 else f"{t * 1e3:,.1f} ms"  # noqa: E731
    for r in rows:
        js = us(r["jax_scipy"]) if "jax_scipy" in r else "—"
        print(
            f"| {r['function']} | {r['n']:.0e} | {us(r['bridge'])} | {us(r['bridge_1core'])} | {us(r['scipy'])} | "
            f"{us(r['scipy_out'])} | {us(r['pure_callback'])} | {js} | {us(r['xla_floor'])} | "
            f"{r['scipy'] / r['bridge_1core']:.2f}× | {r['pure_callback'] / r['bridge']:.2f}× |"
        )


if __name__ == "__main__":
    main()
