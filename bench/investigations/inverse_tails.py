"""Which quantile functions lose the tail probability? Every spec function that inverts a
distribution, against SciPy, with the probability log-uniform from 1e-300 to 1/2 in either
tail (the upper only from 1e-15, where 1 - tail is still a double's), 20000 draws each:
the largest relative difference, how many past 1e-10, where NaN differs, and the worst
point. (issue 17; answered in docs/benchmarks-log.md, "stdtrit in the smaller of z and w;
fdtr, fdtrc and fdtri from exact tails": fdtri's 1 - p was the one that lost it; past p ~
1e-200 the differences left are SciPy's, Boost's or cdflib's, checked there.)
    python bench/investigations/inverse_tails.py     (`PYTHONPATH=<an older build>` for its figures)
"""

from __future__ import annotations

import warnings

import jax
import numpy as np
import scipy.special as sc

jax.config.update("jax_enable_x64", True)
import jax_xsf  # noqa: E402

warnings.filterwarnings("ignore")
N = 20000
rng = np.random.default_rng(9)


def logu(lo, hi):
    return 10 ** rng.uniform(np.log10(lo), np.log10(hi), N)


def counts(lo, hi):
    return np.floor(logu(lo, hi)).astype(np.int64)


def main() -> None:
    tail = 10 ** rng.uniform(-300, np.log10(0.5), N)
    upper = (rng.random(N) < 0.5) & (tail > 1e-15)
    p = np.where(upper, 1 - tail, tail)
    n = counts(1, 1e3)
    cases = {
        "chdtri": (logu(0.1, 1e3), p),
        "gdtrix": (logu(0.1, 1e2), logu(0.1, 1e3), p),
        "gdtria": (p, logu(0.1, 1e2), logu(0.1, 1e2)),
        "gdtrib": (logu(0.1, 1e2), p, logu(0.1, 1e2)),
        "bdtri": (np.floor(n * rng.uniform(0, 1, N)).clip(0, n - 1), n, p),
        "nbdtri": (counts(1, 1e3), counts(1, 1e3), p),
        "pdtri": (counts(1, 1e3), p),
        "erfinv": (2 * p - 1,),
        "erfcinv": (2 * p,),
        "gammaincinv": (logu(0.1, 1e3), p),
        "gammainccinv": (logu(0.1, 1e3), p),
        "ndtri": (p,),
        "ndtri_exp": (-logu(1e-30, 700),),
        "chdtriv": (p, logu(0.1, 1e2)),
        "pdtrik": (p, logu(0.1, 1e2)),
        "nrdtrimn": (p, logu(0.1, 10), rng.normal(0, 10, N)),
        "nrdtrisd": (rng.normal(0, 10, N), p, rng.normal(0, 10, N)),
        "stdtridf": (p, rng.normal(0, 5, N)),
        "kolmogi": (p,),
        "smirnovi": (counts(1, 1e3), p),
        "stdtrit": (logu(0.5, 1e3), p),
        "betaincinv": (logu(0.1, 1e3), logu(0.1, 1e3), p),
        "betainccinv": (logu(0.1, 1e3), logu(0.1, 1e3), p),
        "fdtri": (logu(0.5, 1e3), logu(0.5, 1e3), p),
    }
    print(f"jax_xsf from {jax_xsf.__file__}")
    for name, args in cases.items():
        ours = np.asarray(getattr(jax_xsf, name)(*args))
        ref = getattr(sc, name)(*args)
        with np.errstate(all="ignore"):
            ok = np.isfinite(ref) & (np.abs(ref) > 1e-290)
            d = np.where(ok, np.abs(ours - ref) / np.abs(ref), 0)
        i = int(np.nanargmax(d))
        at = [float(np.asarray(a)[i]) for a in args]
        nan = int((np.isnan(ours) != np.isnan(ref)).sum())
        print(f"{name:12s} max {np.nanmax(d):.1e} (past 1e-10: {int((d > 1e-10).sum()):5d}, NaN differs: {nan}) worst at {at}: ours {ours[i]:.6g}, SciPy {ref[i]:.6g}")


if __name__ == "__main__":
    main()
