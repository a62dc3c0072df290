"""yv's device kernel after the bessel_jy prelude (Temme's method; specs/xsf/bessel.toml):
its error against SciPy on the inputs where cephes' yv, the kernel before, lost digits
(orders within 1e-12..1e-1 of an integer) and on the spec's random range, and its kernel
time beside jv's (one cephes jv a call; cephes' yv took two). cupyx has no yv, so there is
no peer to time against.

The error is scaled as the GPU accuracy test scales it, but by the condition number in x
alone (the test's, from conditioning.py, counts v too, so it allows as much or more): relative,
divided by kappa (from SciPy's own yv at v -+ 1) where kappa > KAPPA_NEAR_ZERO; "over"
counts points past the GPU test's float64 tolerance (test_accuracy.RTOL). SciPy's AMOS is
itself some eps kappa off.

Run on the GPU machine after `source scripts/gpu_site.sh`:
    python3 bench/investigations/yv_port.py [--json out.json]   (LOG2N=, default 20)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests" / "python")]
import numpy as np  # noqa: E402
import scipy.special as sc  # noqa: E402

import timing  # noqa: E402
from conditioning import KAPPA_NEAR_ZERO  # noqa: E402

N = 1 << int(os.environ.get("LOG2N", "20"))


def inputs(rng):
    near = np.round(rng.uniform(-20, 20, N)) + rng.choice([-1.0, 1.0], N) * 10 ** rng.uniform(-12, -1, N)
    return {
        "random": (rng.uniform(-20, 20, N), rng.uniform(0, 60, N)),
        "near_integer": (near, 10 ** rng.uniform(-3, np.log10(60), N)),
        # The H200 GPU test's failure of 2026-12-06 09:20 UTC, on a grid around it.
        "h200_point": (np.repeat(2.9994159, N), np.linspace(12.0, 14.5, N)),
    }


def errors(v, x, got, rtol):
    with np.errstate(all="ignore"):
        ref = sc.yv(v, x)
        kappa = np.abs(x * (sc.yv(v - 1, x) - sc.yv(v + 1, x)) / 2 / ref)
        rel = np.abs(got - ref) / np.abs(ref)
        scaled = rel / np.where(kappa > KAPPA_NEAR_ZERO, kappa, 1.0)
    fin = np.isfinite(ref) & (ref != 0)
    nan_pattern = int((np.isnan(got) != np.isnan(ref)).sum())
    s = scaled[fin]
    worst = int(np.argmax(s))
    return {
        "points": int(fin.sum()),
        "max_scaled": float(s[worst]),
        "at": [float(v[fin][worst]), float(x[fin][worst])],
        "p999_scaled": float(np.quantile(s, 0.999)),
        "over_tolerance": int((s > rtol).sum()),
        "nan_pattern_differs": nan_pattern,
    }


def main():
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax_xsf
    from test_accuracy import RTOL  # the GPU test's default tolerances

    gpu = jax.devices()[0]  # the GPU on the GPU machine
    rng = np.random.default_rng()
    yv = jax.jit(jax_xsf.yv)
    out = {"environment": timing.environment(), "n": N, "accuracy": {}, "kernel_ms": {}}
    for label, (v, x) in inputs(rng).items():
        got = np.asarray(yv(jax.device_put(v, gpu), jax.device_put(x, gpu)))
        out["accuracy"][label] = errors(v, x, got, RTOL["cuda"][0])
        print(label, out["accuracy"][label], flush=True)
    big = 1 << 22
    for dtype in ("float32", "float64"):
        v = jax.device_put(rng.uniform(-20, 20, big).astype(dtype), gpu)
        x = jax.device_put(rng.uniform(0, 60, big).astype(dtype), gpu)
        for name in ("yv", "jv"):
            f = jax.jit(getattr(jax_xsf, name))
            ms = 1e3 * timing.median_time(lambda f=f: f(v, x), timing.jax_sync, budget=2.0)
            out["kernel_ms"][f"{name} {dtype} 2^22"] = ms
            print(name, dtype, f"{ms:.3f} ms a call (2^22, synchronized)", flush=True)
    if "--json" in sys.argv:
        Path(sys.argv[sys.argv.index("--json") + 1]).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
