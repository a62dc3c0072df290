"""What jax.scipy.special's speed in issue 17's device table buys: its error and the bridge's
against SciPy (float64 reference) on the table's own draws (bench/device_table.py's
`arguments`, the spec's test ranges), for every table function jax.scipy.special also has,
float32 and float64.

jax.scipy computes float32 in float32 (betainc's continued fraction, gammainc's series
stopped at float32's epsilon); the bridge, as SciPy's and cupyx's loops, computes float32 in
double and rounds once. The table's float32 ratios against jax.scipy compare those two.

Per function and dtype: the largest relative error and its 99.9th percentile, in units of the
dtype's epsilon, over points where SciPy's value lies between the dtype's smallest normal
(relative error means nothing in the subnormals) and its largest (past it both overflow to
inf in float32), and the points where the NaN pattern differs from SciPy's. Runs on JAX's
default device: the GPU machine after `source scripts/gpu_site.sh` (about 4 minutes); on a
CPU jax.scipy's float64 exp1 alone takes minutes per 2^12 points, so there `LOG2N=12` and
`ONLY=` (device_table.py's) for a check:
    python bench/investigations/jax_scipy_accuracy.py [--json OUT]   (LOG2N=, default 18)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.scipy.special as jsp  # noqa: E402
import jax_xsf  # noqa: E402
import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.special as sc  # noqa: E402

import device_table  # noqa: E402


def errors(y, ref, dtype) -> dict:
    info = np.finfo(dtype)
    y = np.asarray(y, dtype=np.float64)
    nan_differs = int((np.isnan(y) != np.isnan(ref)).sum())
    ok = (np.abs(ref) >= info.tiny) & (np.abs(ref) <= info.max) & ~np.isnan(y)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.abs(y[ok] - ref[ok]) / np.abs(ref[ok]) / info.eps
    if not e.size:
        return {"max_eps": None, "p999_eps": None, "nan_differs": nan_differs}
    return {"max_eps": json_number(e.max()), "p999_eps": json_number(np.percentile(e, 99.9)), "nan_differs": nan_differs}


def json_number(v) -> float | str:
    """inf where a result is inf and SciPy's finite: strict JSON has no inf, so a string."""
    return float(v) if np.isfinite(v) else str(v)


def show(e: dict) -> str:
    if e["max_eps"] is None:
        return f"no comparable points, NaN pattern {e['nan_differs']}"
    return f"max {float(e['max_eps']):.3g} eps (99.9 % {float(e['p999_eps']):.3g}), NaN pattern {e['nan_differs']}"


def main() -> None:
    n = 1 << int(os.environ.get("LOG2N", "18"))
    rng = np.random.default_rng(20261206)
    rows = []
    for name in device_table.cases():
        j = getattr(jsp, name, None)
        if j is None:
            continue
        u = device_table.UFUNCS[name]
        for dtype in device_table.DTYPES:
            codes = device_table.loop_for(u, dtype)
            if codes is None or any(c in "il" for c in codes):
                continue
            xs = device_table.arguments(u, codes, n, rng)
            with np.errstate(all="ignore"):
                ref = np.asarray(getattr(sc, name)(*(x.astype(np.float64) for x in xs)), dtype=np.float64)
            row = {"function": name, "dtype": dtype, "n": n}
            for path, f in (("bridge", getattr(jax_xsf, name)), ("jax.scipy", j)):
                row[path] = errors(jax.jit(f)(*xs), ref, np.dtype(dtype))
            rows.append(row)
            print(f"{name:12s} {dtype:8s} bridge {show(row['bridge'])}; jax.scipy {show(row['jax.scipy'])}", flush=True)
    if "--json" in sys.argv:
        env = {"jax": jax.__version__, "device": str(jax.devices()[0]), "scipy": scipy.__version__, "log2n": n.bit_length() - 1}
        Path(sys.argv[sys.argv.index("--json") + 1]).write_text(json.dumps({"environment": env, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
