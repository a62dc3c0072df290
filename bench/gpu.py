"""GPU benchmark (run on the GPU machine): the jitted bridge against native
jax.scipy.special, eager cupyx.scipy.special, jax.experimental.buffer_callback + CuPy on
XLA's stream, and jax.pure_callback + scipy (today's lazy_apply), float32 and float64,
at 2^10, 2^20 and 2^26 elements; a fori_loop of 100 calls on 2^10 elements; and the
throughput of cheap functions at 2^26 against CuPy's kernels and the device-to-device
copy bandwidth. All in one run.

Run: python bench/gpu.py [--json out.json] [--quick]
Prints markdown tables (for docs/benchmarks.md). Every sample is one call followed by a
wait for its result (block_until_ready / stream synchronize), the median of many.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import jax

jax.config.update("jax_enable_x64", True)
import cupy  # noqa: E402
import cupyx.scipy.special as cps  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.special as sc  # noqa: E402
from jax.experimental.buffer_callback import buffer_callback  # noqa: E402

import jax_xsf  # noqa: E402

SIZES = [1 << 10, 1 << 20, 1 << 26]
DTYPES = ["float32", "float64"]


def timeit(fn, sync, budget=1.0, min_reps=5, max_reps=2000):
    fn()
    sync(fn())
    times = []
    start = time.perf_counter()
    while len(times) < min_reps or (time.perf_counter() - start < budget and len(times) < max_reps):
        t0 = time.perf_counter()
        sync(fn())
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def jax_sync(x):
    return jax.block_until_ready(x)


def cupy_sync(_):
    cupy.cuda.get_current_stream().synchronize()


class _Stream:
    """`__cuda_stream__` shim for cupy.cuda.Stream.from_external."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __cuda_stream__(self):
        return (0, self.ptr)


def buffer_callback_fn(cupy_fn, shape, dtype):
    def cb(ctx, out, x):
        xs = cupy.asarray(x)
        os_ = cupy.asarray(out)
        with cupy.cuda.Stream.from_external(_Stream(ctx.stream)):
            cupy_fn(xs, out=os_)

    return jax.jit(buffer_callback(cb, jax.ShapeDtypeStruct(shape, dtype)))


# Input ranges; other functions use [-8, 8].
RANGES = {"gammaln": (0.1, 100.0), "digamma": (0.1, 100.0), "cosdg": (-720.0, 720.0), "exp2": (-20.0, 20.0)}
# Kernel throughput at the largest size: functions CuPy also implements (digamma with the
# same xsf code; the others with CUDA's math library or its own Cephes ports).
THROUGHPUT = ["digamma", "ndtr", "cbrt", "exp2", "cosdg"]


def paths(name, n, dtype, full=True):
    """name -> (callable, sync) for one function, size and dtype. `full`: all five paths;
    else the bridge, jax.scipy (where it has the function) and eager CuPy."""
    rng = np.random.default_rng(0)
    lo, hi = RANGES.get(name, (-8.0, 8.0))
    host = rng.uniform(lo, hi, n).astype(dtype)
    x = jax.device_put(host, jax.devices("cuda")[0])
    xc = cupy.asarray(host)
    bridge = jax.jit(getattr(jax_xsf, name))
    cufn = getattr(cps, name)
    out = {"bridge": (lambda: bridge(x), jax_sync)}
    if hasattr(jsp, name):
        native = jax.jit(getattr(jsp, name))
        out["jax.scipy"] = (lambda: native(x), jax_sync)
    out["cupy eager"] = (lambda: cufn(xc), cupy_sync)
    if not full:
        return out
    bc = buffer_callback_fn(cufn, host.shape, host.dtype)
    out["buffer_callback"] = (lambda: bc(x), jax_sync)
    if n <= 1 << 20:
        pc = jax.jit(lambda v: jax.pure_callback(lambda a: getattr(sc, name)(a).astype(a.dtype), jax.ShapeDtypeStruct(v.shape, v.dtype), v))
        out["pure_callback"] = (lambda: pc(x), jax_sync)
    return out


def loop_paths(n=1 << 10, iters=100):
    x = jax.device_put(np.linspace(0.5, 5.0, n).astype(np.float32), jax.devices("cuda")[0])
    bc = buffer_callback_fn(cps.gammaln, (n,), np.float32)

    def looped(f):
        return jax.jit(lambda v: jax.lax.fori_loop(0, iters, lambda i, acc: f(acc * 0.5 + v), v))

    return {
        "bridge": looped(jax_xsf.gammaln),
        "jax.scipy": looped(jsp.gammaln),
        "buffer_callback": looped(bc),
    }, x, iters


def run(quick=False):
    sizes = SIZES[:2] if quick else SIZES
    rows = []
    for name in ["gammaln"] + THROUGHPUT:
        for dtype in DTYPES:
            for n in sizes if name == "gammaln" else sizes[-1:]:
                for path, (fn, sync) in paths(name, n, dtype, full=name == "gammaln").items():
                    t = timeit(fn, sync)
                    rows.append(dict(function=name, dtype=dtype, n=n, path=path, seconds=t))
                    print(f"{name:8s} {dtype:8s} 2^{n.bit_length() - 1:<3d} {path:16s} {t * 1e6:10.1f} us", flush=True)
    loops, x, iters = loop_paths()
    loop_rows = []
    for path, f in loops.items():
        t = timeit(lambda f=f: f(x), jax_sync)
        loop_rows.append(dict(path=path, seconds_per_iteration=t / iters))
        print(f"fori_loop {path:16s} {t / iters * 1e6:8.2f} us/iteration", flush=True)
    # Device-to-device copy bandwidth (read + write), as the memory-bound yardstick.
    n = sizes[-1]
    copies = {}
    for dtype in DTYPES:
        a = cupy.ones(n, dtype=dtype)
        b = cupy.empty_like(a)
        t = timeit(lambda: b.data.copy_from_device_async(a.data, a.nbytes), cupy_sync)
        copies[dtype] = 2 * a.nbytes / t
    return dict(rows=rows, loop=loop_rows, copy_bandwidth=copies)


def environment():
    dev = cupy.cuda.runtime.getDeviceProperties(0)
    return dict(
        date=time.strftime("%Y-%m-%d"),
        gpu=dev["name"].decode(),
        driver=cupy.cuda.runtime.driverGetVersion(),
        python=platform.python_version(),
        jax=jax.__version__,
        cupy=cupy.__version__,
    )


def table(res):
    by = {(r["function"], r["dtype"], r["n"], r["path"]): r["seconds"] for r in res["rows"]}
    keys = sorted({(f, d, n) for f, d, n, _ in by}, key=lambda k: (k[0] != "gammaln", k[0], k[1], k[2]))
    cols = ["bridge", "jax.scipy", "cupy eager", "buffer_callback", "pure_callback"]
    lines = [
        "| function | dtype | n | " + " | ".join(cols) + " | bridge / cupy | bridge / jax.scipy |",
        "|---|---|---|" + "---|" * (len(cols) + 2),
    ]
    for f, d, n in keys:
        cells = [f"{by[(f, d, n, c)] * 1e6:,.1f} µs" if (f, d, n, c) in by else "—" for c in cols]
        b = by[(f, d, n, "bridge")]
        vs_jax = f"{b / by[(f, d, n, 'jax.scipy')]:.2f}×" if (f, d, n, "jax.scipy") in by else "—"
        lines.append(
            f"| {f} | {d} | 2^{n.bit_length() - 1} | " + " | ".join(cells)
            + f" | {b / by[(f, d, n, 'cupy eager')]:.2f}× | {vs_jax} |"
        )
    lines.append("")
    native = next(r["seconds_per_iteration"] for r in res["loop"] if r["path"] == "jax.scipy")
    lines.append("| fori_loop of 100 gammaln calls, 2^10 float32 | µs per iteration | / native |")
    lines.append("|---|---|---|")
    for r in res["loop"]:
        lines.append(f"| {r['path']} | {r['seconds_per_iteration'] * 1e6:.2f} | {r['seconds_per_iteration'] / native:.2f}× |")
    lines.append("")
    n = max(r["n"] for r in res["rows"])
    lines.append(f"Effective bandwidth at 2^{n.bit_length() - 1} (bytes read + written / time) against a device-to-device copy:")
    lines.append("")
    for f in THROUGHPUT:
        for d in DTYPES:
            if (f, d, n, "bridge") in by:
                size = np.dtype(d).itemsize
                bw = 2 * n * size / by[(f, d, n, "bridge")]
                cbw = 2 * n * size / by[(f, d, n, "cupy eager")]
                lines.append(
                    f"- {f} {d}: bridge {bw / 1e9:.0f} GB/s ({bw / res['copy_bandwidth'][d]:.0%} of the copy's "
                    f"{res['copy_bandwidth'][d] / 1e9:.0f} GB/s), CuPy {cbw / 1e9:.0f} GB/s ({cbw / res['copy_bandwidth'][d]:.0%})"
                )
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="2^10 and 2^20 only")
    args = ap.parse_args()
    env = environment()
    res = run(args.quick)
    res["environment"] = env
    print()
    print(json.dumps(env))
    print(table(res))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
