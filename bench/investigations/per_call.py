"""Is a cheap bridged call at 2^22 dearer than a native jax.scipy call, or is the table's
back-to-back figure noise (issue 17 item 5)? device_table.py times each case's paths once,
one after another (5 calls back to back, 0.1 s), and the bridge / jax.scipy ratio of the
cheap functions ranged 0.6-2.8x between two runs on the same wheel for the same kernels.
This times them interleaved: ROUNDS rounds of (bridge, jax.scipy, cupyx), each 10 calls back
to back and one wait, the median of each path's rounds; and, to tell the host from the
device, the time to issue 10 calls without waiting (the host's per-call cost when the GPU
keeps up). Kernels are not timed here (device_table.py's Nsight pass does that).

Run on the GPU machine after `source scripts/gpu_site.sh`:
    python3 bench/investigations/per_call.py [--json out.json]   (ONLY=, ROUNDS=, LOG2N=)
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/
import numpy as np  # noqa: E402

import device_table  # noqa: E402
import timing  # noqa: E402

# Cheap functions of the 2026-12-06 08:52 UTC table (kernel under 200 us at 2^22) that came
# out over 1.1x jax.scipy back to back, and some at or under 1x as controls.
DEFAULT = "boxcox1p,rel_entr,i0e,kl_div,boxcox,i1,logit,xlog1py,erf,log_ndtr,gammaln,expit,ndtri,erfc,i0,xlogy"
ONLY = os.environ.get("ONLY", DEFAULT).split(",")
ROUNDS = int(os.environ.get("ROUNDS", "5"))
N = 1 << int(os.environ.get("LOG2N", "22"))
K = 10


def issue_time(fn, sync):
    """Seconds per call to issue K calls without waiting (then one wait, not counted)."""
    sync(fn())
    t0 = time.perf_counter()
    outs = [fn() for _ in range(K)]
    t = (time.perf_counter() - t0) / K
    sync(outs[-1])
    return t


def main(argv):
    import cupy
    import jax

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    env = timing.environment(gpu=cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(), cupy=cupy.__version__)
    print(env, flush=True)
    rows = []
    for name in ONLY:
        for dtype in device_table.DTYPES:
            calls = device_table.setup(name, dtype, N, rng)
            if calls is None or "jax.scipy" not in calls:
                continue
            b2b = {p: [] for p in calls}
            issue = {p: [] for p in calls}
            for _ in range(ROUNDS):
                for path, fn in calls.items():
                    sync = device_table.sync_for(path)
                    b2b[path].append(timing.pipelined_time(fn, sync, k=K, budget=0.0, min_reps=1))
                    issue[path].append(issue_time(fn, sync))
            row = {"function": name, "dtype": dtype, "n": N}
            for path in calls:
                row[path] = statistics.median(b2b[path])
                row[path + " spread"] = (min(b2b[path]), max(b2b[path]))
                row[path + " issue"] = statistics.median(issue[path])
            rows.append(row)
            print(
                f"{name:10s} {dtype}  back to back us: "
                + "  ".join(f"{p} {row[p] * 1e6:6.1f} ({row[p + ' spread'][0] * 1e6:.0f}-{row[p + ' spread'][1] * 1e6:.0f})" for p in calls)
                + f"  bridge/jax.scipy {row['bridge'] / row['jax.scipy']:.2f}x;  issue us: "
                + "  ".join(f"{p} {row[p + ' issue'] * 1e6:5.1f}" for p in calls),
                flush=True,
            )
    ratios = sorted(r["bridge"] / r["jax.scipy"] for r in rows)
    if ratios:
        print(f"bridge / jax.scipy back to back: median {statistics.median(ratios):.2f}x, {sum(x > 1.1 for x in ratios)} of {len(ratios)} over 1.1x")
        issue_ratios = sorted(r["bridge issue"] / r["jax.scipy issue"] for r in rows)
        print(f"bridge / jax.scipy issue time: median {statistics.median(issue_ratios):.2f}x")
    if "--json" in argv:
        json.dump({"environment": env, "rows": rows}, open(argv[argv.index("--json") + 1], "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
