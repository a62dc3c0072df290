"""Which of CUDA's math-library special functions keep our accuracy contract (issue 17 item 5)?

cupyx.scipy.special calls CUDA's math library for several functions whose device kernels are
Cephes code in specs/xsf.toml (j0, j1, y0, y1, yn, ...); those calls are 2-9x faster on the
device. A function may move to `cuda_expr` only if it passes our GPU accuracy test against
SciPy. This draws the same inputs test_accuracy.py's GPU test draws (the spec's ranges, edge
values, fresh random), evaluates cupyx's float64 kernel on them (the float32 loops upcast, as
our `f->f as d->d` loops do) and applies the same comparison (`compare`, the CUDA
tolerances, the condition-number allowance). With `--single`, the float32 loops are screened
on cupyx's float32 kernels instead, which compute in single precision (`j0f`, `k1f`, ...): may
a float32 kernel of ours do the same? GPU machine:

    python bench/investigations/cuda_mathlib_accuracy.py [NAMES] [--rounds 5] [--single]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from conditioning import condition_numbers, scipy_function  # noqa: E402
from test_accuracy import RTOL, UFUNCS, compare, random_args, without_documented_points  # noqa: E402

# Functions whose cupyx kernel is one CUDA math-library call on float64 (cupyx 14.2 source).
CANDIDATES = ["j0", "j1", "y0", "y1", "yn", "erf", "erfc", "erfcx", "i0", "i1", "gamma", "gammaln"]
# Functions whose cupyx float32 kernel computes in single precision where ours computes in
# double as SciPy does: 1.3-6x cupyx's kernel time on the H100 (docs/benchmarks-log.md,
# 2026-12-05). For `--single`.
SINGLE = ["j0", "j1", "y0", "y1", "i0e", "i1e", "k0", "k1", "k0e", "k1e", "log_ndtr", "logit", "log_expit", "rel_entr", "erfinv", "erfcinv", "log1p"]


def one_round(name, rng, single=False):
    import cupy
    import cupyx.scipy.special as cps

    u = UFUNCS[name]
    cufn = getattr(cps, name)
    rtol64, rtol32 = RTOL["cuda"]
    test = u.get("test", {})
    verdicts = []
    for loop in u["loops"]:
        sig = loop.split(" as ")[0]
        if any(c in "FD" for c in sig):
            continue
        # The points the GPU test leaves out too (documented SciPy and xsf differences).
        args = without_documented_points(name, random_args(u, sig, rng))
        ref_args = [a.astype(np.int64) if a.dtype.kind == "i" else a.astype(np.float64) for a in args]
        f = scipy_function(u)
        with np.errstate(all="ignore"):
            want = f(*ref_args)
            kappa = condition_numbers(f, ref_args, [np.asarray(want)])[0]
        out = sig.split("->")[1]
        # cupyx's float64 kernel (the integer order of yn as float64, as cupyx takes it), or
        # with --single its float32 kernel for the float32 loops.
        dtype = np.float32 if single and out == "f" else np.float64
        got = cupy.asnumpy(cufn(*[cupy.asarray(a.astype(dtype)) for a in ref_args]))
        if out == "f":
            with np.errstate(over="ignore"):
                got = got.astype(np.float32)
        rtol = test.get("rtol32_gpu", rtol32) if out == "f" else test.get("rtol64_gpu", rtol64)
        try:
            compare(f"{name}[{sig}]", got, np.asarray(want), out, rtol, kappa, ref_args)
            verdicts.append((sig, "pass", ""))
        except AssertionError as e:
            verdicts.append((sig, "FAIL", str(e).splitlines()[0][:220]))
    return verdicts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="?", default=None)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--single", action="store_true", help="float32 loops on cupyx's float32 kernels")
    a = ap.parse_args()
    a.names = a.names or ",".join(SINGLE if a.single else CANDIDATES)
    rng = np.random.default_rng()
    for name in a.names.split(","):
        fails = {}
        for _ in range(a.rounds):
            for sig, verdict, why in one_round(name, rng, a.single):
                if verdict == "FAIL":
                    fails.setdefault(sig, why)
        loops = [lp.split(" as ")[0] for lp in UFUNCS[name]["loops"] if not any(c in "FD" for c in lp)]
        for sig in loops:
            print(
                f"{name:10s} {sig:8s} {'FAIL ' + fails[sig] if sig in fails else f'pass ({a.rounds} rounds)'}",
                flush=True,
            )


if __name__ == "__main__":
    main()
