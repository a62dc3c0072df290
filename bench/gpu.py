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
import time

import jax

jax.config.update("jax_enable_x64", True)
import cupy  # noqa: E402
import cupyx.scipy.special as cps  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.special as sc  # noqa: E402
from jax.experimental.buffer_callback import buffer_callback  # noqa: E402

import jax_xsf  # noqa: E402
from timing import cupy_sync, jax_sync  # noqa: E402
from timing import median_time as timeit  # noqa: E402
from timing import pipelined_time as timeit_pipelined  # noqa: E402

SIZES = [1 << 10, 1 << 20, 1 << 26]
DTYPES = ["float32", "float64"]


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
# Paths also timed back to back (`timeit_pipelined`) at the largest size.
PIPELINED = ["bridge", "jax.scipy", "cupy eager"]
THROUGHPUT = ["digamma", "ndtr", "expit", "cbrt", "exp2", "cosdg"]


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


# Loop bodies: "fused" feeds each call `acc * 0.5 + v`, which XLA fuses into its own
# gammaln kernel but must launch separately before a custom call (two kernels per
# iteration against one); "chained" calls the function on the previous result alone, one
# kernel per iteration on every path.
LOOP_BODIES = {
    "fused": lambda f, acc, v: f(acc * 0.5 + v),
    "chained": lambda f, acc, v: f(acc),
}


def loop_paths(body, n=1 << 10, iters=100):
    x = jax.device_put(np.linspace(2.5, 3.5, n).astype(np.float32), jax.devices("cuda")[0])
    bc = buffer_callback_fn(cps.gammaln, (n,), np.float32)

    def looped(f):
        return jax.jit(lambda v: jax.lax.fori_loop(0, iters, lambda i, acc: body(f, acc, v), v))

    return {
        "bridge": looped(jax_xsf.gammaln),  # in place where the carry dies at the call
        "bridge, never in place": looped(lambda v: jax_xsf.gammaln(v, overwrite_input=False)),
        "bridge, always in place": looped(lambda v: jax_xsf.gammaln(v, overwrite_input=True)),
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
                    row = dict(function=name, dtype=dtype, n=n, path=path, seconds=t)
                    if n == sizes[-1] and path in PIPELINED:
                        row["seconds_pipelined"] = timeit_pipelined(fn, sync)
                    rows.append(row)
                    piped = f"{row['seconds_pipelined'] * 1e6:10.1f} us back to back" if "seconds_pipelined" in row else ""
                    print(f"{name:8s} {dtype:8s} 2^{n.bit_length() - 1:<3d} {path:16s} {t * 1e6:10.1f} us {piped}", flush=True)
    loop_rows = []
    for body in LOOP_BODIES:
        loops, x, iters = loop_paths(LOOP_BODIES[body])
        for path, f in loops.items():
            t = timeit(lambda f=f: f(x), jax_sync)
            loop_rows.append(dict(body=body, path=path, seconds_per_iteration=t / iters))
            print(f"fori_loop {body:8s} {path:24s} {t / iters * 1e6:8.2f} us/iteration", flush=True)
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
    lines.append("| fori_loop of 100 gammaln calls, 2^10 float32 | loop body | µs per iteration | / native |")
    lines.append("|---|---|---|---|")
    for r in res["loop"]:
        native = next(q["seconds_per_iteration"] for q in res["loop"] if q["path"] == "jax.scipy" and q["body"] == r["body"])
        lines.append(
            f"| {r['path']} | {r['body']} | {r['seconds_per_iteration'] * 1e6:.2f} | {r['seconds_per_iteration'] / native:.2f}× |"
        )
    lines.append("")
    n = max(r["n"] for r in res["rows"])
    piped = {(r["function"], r["dtype"], r["path"]): r["seconds_pipelined"] for r in res["rows"] if "seconds_pipelined" in r}
    if piped:
        lines.append(f"Back to back at 2^{n.bit_length() - 1} (10 calls, one wait; µs per call):")
        lines.append("")
        lines.append("| function | dtype | " + " | ".join(PIPELINED) + " | bridge / cupy | bridge / jax.scipy |")
        lines.append("|---|---|" + "---|" * (len(PIPELINED) + 2))
        for f, d in sorted({(f, d) for f, d, _ in piped}, key=lambda k: (k[0] != "gammaln", k)):
            b, j, c = (piped.get((f, d, p)) for p in PIPELINED)
            cells = [f"{piped[(f, d, p)] * 1e6:,.1f}" if (f, d, p) in piped else "—" for p in PIPELINED]
            lines.append(f"| {f} | {d} | " + " | ".join(cells) + f" | {b / c:.2f}× | " + (f"{b / j:.2f}× |" if j else "— |"))
        lines.append("")
    lines.append(f"Effective bandwidth at 2^{n.bit_length() - 1} (bytes read + written / time) against a device-to-device copy:")
    lines.append("")
    for f in THROUGHPUT:
        for d in DTYPES:
            if (f, d, n, "bridge") in by:
                size = np.dtype(d).itemsize
                bw = 2 * n * size / by[(f, d, n, "bridge")]
                cbw = 2 * n * size / by[(f, d, n, "cupy eager")]
                copy = res["copy_bandwidth"][d]
                line = (
                    f"- {f} {d}: bridge {bw / 1e9:.0f} GB/s ({bw / copy:.0%} of the copy's {copy / 1e9:.0f} GB/s)"
                )
                if (f, d, "bridge") in piped:
                    pbw = 2 * n * size / piped[(f, d, "bridge")]
                    line += f", back to back {pbw / 1e9:.0f} GB/s ({pbw / copy:.0%})"
                line += f"; CuPy {cbw / 1e9:.0f} GB/s ({cbw / copy:.0%})"
                if (f, d, "jax.scipy") in piped:
                    jbw = 2 * n * size / piped[(f, d, "jax.scipy")]
                    line += f"; jax.scipy back to back {jbw / 1e9:.0f} GB/s ({jbw / copy:.0%})"
                lines.append(line)
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="2^10 and 2^20 only")
    args = ap.parse_args()
    env = environment()
    res = run(args.quick)
    res["environment"] = env
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    print()
    print(json.dumps(env))
    print(table(res))
