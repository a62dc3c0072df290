"""The statistics and other device functions of issue 17 on the GPU: the bridge against eager
cupyx.scipy.special and jax.scipy.special, back to back (10 calls, one wait) at 2^22
elements, float32 and float64. Run on the GPU machine: `python bench/stats_gpu.py`.
Prints the run's environment and a markdown table (ratios within this run only).
`ONLY=gammaincc,pdtr python bench/stats_gpu.py` times those functions alone.
"""

from __future__ import annotations

import os
import sys

import jax

jax.config.update("jax_enable_x64", True)

import cupy  # noqa: E402
import cupyx.scipy.special as cps  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402

import jax_xsf  # noqa: E402
import timing  # noqa: E402

N = 1 << 22
# name -> argument samplers (rng, n, dtype) -> array; integer arguments as int64 (the
# bridge's integer loops) and as the float CuPy takes.
CASES = {
    "betainc": [(0.5, 20.0), (0.5, 20.0), (0.0, 1.0)],
    "betaincinv": [(0.5, 20.0), (0.5, 20.0), (0.0, 1.0)],
    "fdtr": [(1.0, 30.0), (1.0, 30.0), (0.0, 10.0)],
    "fdtri": [(1.0, 30.0), (1.0, 30.0), (0.0, 1.0)],
    "bdtr": [(0.0, 30.0), ("int", 30, 60), (0.0, 1.0)],
    "nbdtr": [("int", 0, 30), ("int", 1, 30), (0.0, 1.0)],
    "pdtri": [("int", 0, 30), (0.0, 1.0)],
    "erfinv": [(-1.0, 1.0)],
    "expn": [("int", 0, 10), (0.0, 10.0)],
    "stdtr": [(1.0, 50.0), (-5.0, 5.0)],
    "stdtrit": [(1.0, 50.0), (0.0, 1.0)],
    # Device functions added after the first run (real-order Bessel through cephes, CUDA's
    # math library for log1p/expm1/xlogy, the std:: shim for entr/boxcox).
    "jv": [(0.0, 20.0), (0.0, 50.0)],
    "yv": [(0.0, 20.0), (0.1, 50.0)],
    "iv": [(0.0, 20.0), (0.0, 50.0)],
    "yn": [("int", 0, 20), (0.1, 50.0)],
    "log1p": [(-0.9, 10.0)],
    "expm1": [(-5.0, 5.0)],
    "xlogy": [(0.0, 10.0), (0.1, 10.0)],
    "entr": [(0.0, 10.0)],
    "boxcox": [(0.1, 10.0), (-2.0, 2.0)],
    # The rest of the incomplete gamma/beta families, capped at 40 registers on 2026-12-04.
    "gammainc": [(0.5, 20.0), (0.0, 30.0)],
    "gammaincc": [(0.5, 20.0), (0.0, 30.0)],
    "gammaincinv": [(0.5, 20.0), (0.0, 1.0)],
    "gammainccinv": [(0.5, 20.0), (0.0, 1.0)],
    "chdtr": [(0.5, 50.0), (0.0, 100.0)],
    "chdtrc": [(0.5, 50.0), (0.0, 100.0)],
    "chdtri": [(0.5, 50.0), (0.0, 1.0)],
    "gdtr": [(0.5, 5.0), (0.5, 20.0), (0.0, 20.0)],
    "gdtrc": [(0.5, 5.0), (0.5, 20.0), (0.0, 20.0)],
    "pdtr": [(0.0, 50.0), (0.0, 50.0)],
    "pdtrc": [(0.0, 50.0), (0.0, 50.0)],
    "bdtrc": [(0.0, 30.0), ("int", 30, 60), (0.0, 1.0)],
    "bdtri": [(0.0, 30.0), ("int", 30, 60), (0.0, 1.0)],
    "fdtrc": [(1.0, 30.0), (1.0, 30.0), (0.0, 10.0)],
    "nbdtrc": [("int", 0, 30), ("int", 1, 30), (0.0, 1.0)],
    "nbdtri": [("int", 0, 30), ("int", 1, 30), (0.0, 1.0)],
    # On the device since 2026-12-04 (a port of specfun's lpmv); integral float orders.
    "lpmv": [("intf", 0, 5), (0.0, 10.0), (-1.0, 1.0)],
}


def args_for(name, dtype, rng):
    out = []
    for spec in CASES[name]:
        if spec[0] == "int":
            out.append(rng.integers(spec[1], spec[2], N).astype(np.int64))
        elif spec[0] == "intf":
            out.append(rng.integers(spec[1], spec[2], N).astype(dtype))
        else:
            out.append(rng.uniform(spec[0], spec[1], N).astype(dtype))
    return out


def main():
    rng = np.random.default_rng(0)
    dev = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(timing.environment(gpu=dev, cupy=cupy.__version__))
    rows = [
        "| function | dtype | bridge µs | cupyx µs | jax.scipy µs | bridge / cupyx | bridge / jax.scipy |",
        "|---|---|---|---|---|---|---|",
    ]
    only = [f for f in os.environ.get("ONLY", "").split(",") if f]
    for name in (n for n in CASES if not only or n in only):
        for dtype in (np.float32, np.float64):
            host = args_for(name, dtype, rng)
            xs = [jax.device_put(a, jax.devices("cuda")[0]) for a in host]
            f = jax.jit(getattr(jax_xsf, name))
            t_b = timing.pipelined_time(lambda: f(*xs), timing.jax_sync)
            t_c = t_j = None
            if hasattr(cps, name):
                # CuPy's loops take floats where ours take integers.
                cs = [cupy.asarray(a.astype(dtype) if a.dtype.kind == "i" else a) for a in host]
                t_c = timing.pipelined_time(lambda: getattr(cps, name)(*cs), timing.cupy_sync)
            if hasattr(jsp, name) and all(a.dtype.kind == "f" for a in host):
                g = jax.jit(getattr(jsp, name))
                t_j = timing.pipelined_time(lambda: g(*xs), timing.jax_sync)
            fmt = lambda t: f"{t * 1e6:,.1f}" if t else "—"  # noqa: E731
            ratio = lambda t: f"{t_b / t:.2f}×" if t else "—"  # noqa: E731
            rows.append(
                f"| {name} | {np.dtype(dtype).name} | {fmt(t_b)} | {fmt(t_c)} | {fmt(t_j)} | {ratio(t_c)} | {ratio(t_j)} |"
            )
            print(rows[-1], flush=True)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
