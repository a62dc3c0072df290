"""Which of CUDA's math-library special functions keep our accuracy contract (issue 17 item 5)?

cupyx.scipy.special calls CUDA's math library for several functions whose device kernels are
Cephes code in specs/xsf.toml (j0, j1, y0, y1, yn, ...); those calls are 2-9x faster on the
device. A function may move to `cuda_expr` only if it passes our GPU accuracy test against
SciPy. This draws the same inputs test_accuracy.py's GPU test draws (the spec's ranges, edge
values, fresh random), evaluates cupyx's float64 kernel on them (the float32 loops upcast, as
our `f->f as d->d` loops do) and applies the same comparison (`compare`, the CUDA
tolerances, the condition-number allowance). GPU machine:

    python bench/investigations/cuda_mathlib_accuracy.py [NAMES] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from test_accuracy import (  # noqa: E402
    RTOL,
    SCIPY_DIFFERS,
    SCIPY_NEWER_DIFFERS,
    UFUNCS,
    XSF_DIFFERS,
    compare,
    condition_numbers,
    random_args,
    scipy_at_least,
    scipy_function,
)

# Functions whose cupyx kernel is one CUDA math-library call on float64 (cupyx 14.2 source).
CANDIDATES = ["j0", "j1", "y0", "y1", "yn", "erf", "erfc", "erfcx", "i0", "i1", "gamma", "gammaln"]


def one_round(name, rng):
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
        args = random_args(u, sig, rng)
        # The points the GPU test leaves out (documented SciPy and xsf differences).
        keep = np.ones(args[0].shape, dtype=bool)
        for arg, value, _why in SCIPY_DIFFERS.get(name, ()):
            keep &= args[u["inputs"].index(arg)] != value
        if name in XSF_DIFFERS:
            keep &= ~XSF_DIFFERS[name][1](*args)
        if name in SCIPY_NEWER_DIFFERS and scipy_at_least(SCIPY_NEWER_DIFFERS[name][0]):
            keep &= ~SCIPY_NEWER_DIFFERS[name][2](*args)
        args = [a[keep] for a in args]
        ref_args = [a.astype(np.int64) if a.dtype.kind == "i" else a.astype(np.float64) for a in args]
        with np.errstate(all="ignore"):
            want = scipy_function(u)(*ref_args)
            kappa = condition_numbers(scipy_function(u), ref_args, [np.asarray(want)])[0]
        # cupyx's float64 kernel; the integer order of yn as float64, as cupyx takes it.
        got = cupy.asnumpy(cufn(*[cupy.asarray(a.astype(np.float64)) for a in ref_args]))
        out = sig.split("->")[1]
        if out == "f":
            with np.errstate(over="ignore"):
                got = got.astype(np.float32)
        rtol = test.get("rtol32_gpu", rtol32) if out == "f" else test.get("rtol64_gpu", rtol64)
        try:
            compare(f"{name}[{sig}]", got, np.asarray(want), out, rtol, kappa)
            verdicts.append((sig, "pass", ""))
        except AssertionError as e:
            verdicts.append((sig, "FAIL", str(e).splitlines()[0][:220]))
    return verdicts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="?", default=",".join(CANDIDATES))
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng()
    for name in a.names.split(","):
        fails = {}
        for _ in range(a.rounds):
            for sig, verdict, why in one_round(name, rng):
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
