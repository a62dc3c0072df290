"""How far betainc, betaincc and stdtr are from exact where a parameter is large, ours and
SciPy's (Boost's ibeta), against mpmath, stdtrit at large degrees of freedom against
SciPy's, betaincinv and betainccinv against mpmath's roots, and fdtr and fdtrc (issue 17;
answered in docs/benchmarks-log.md, "betainc and stdtr at large parameters", "betaincinv and
betainccinv at large parameters" and "stdtrit in the smaller of z and w; fdtr and fdtrc with
both complements; the stack at load").

cephes' incbet, which the specs called for all of them, forms x^a (1 - x)^b / B(a, b) as
exp(a log x + b log(1 - x) - lbeta(a, b)): terms of the size of lgamma(a + b), whose
rounding grows with the parameters. The reference: the regularized incomplete beta function
by its continued fraction in 40-digit arithmetic (mpmath). Draws (seeded) per decade of the
parameters: a and b log-uniform in [lo, 10 lo] (or one of them in [0.1, 8]), x near the mean
(within four standard deviations), 300 points a row. Prints the largest relative error.
    python bench/investigations/incbet_large_parameters.py [SEED] [cpu|cuda]
(about a minute on a CPU; needs mpmath; `PYTHONPATH=<an older build>` for its figures.)
"""

from __future__ import annotations

import sys

import jax

jax.config.update("jax_enable_x64", True)
import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import scipy.special  # noqa: E402

import jax_xsf  # noqa: E402

mpmath.mp.dps = 40


def ibeta(a, b, x):
    """I_x(a, b) by the continued fraction (Lentz), swapped above (a + 1) / (a + b + 2)."""
    a, b, x = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(x)
    if x <= 0 or x >= 1:
        return mpmath.mpf(0) if x <= 0 else mpmath.mpf(1)
    if x > (a + 1) / (a + b + 2):
        return 1 - ibeta(b, a, 1 - x)
    front = mpmath.exp(a * mpmath.log(x) + b * mpmath.log1p(-x) - mpmath.log(mpmath.beta(a, b))) / a
    tiny = mpmath.mpf(10) ** -300
    c, d = mpmath.mpf(1), 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 100000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            f *= d * c
        if abs(d * c - 1) < mpmath.mpf(10) ** -35:
            return front * f
    raise RuntimeError(f"no convergence at {a}, {b}, {x}")


def stdtr(df, t):
    df, t = mpmath.mpf(df), mpmath.mpf(t)
    tail = ibeta(df / 2, mpmath.mpf(1) / 2, df / (df + t * t)) / 2
    return tail if t < 0 else 1 - tail


def root(a, b, p, upper):
    """x with I_x(a, b) = p (or 1 - I_x(a, b) = p: 1 - w, I_w(b, a) = p): Newton steps from
    SciPy's root; NaN where that is 0 or 1 (left out)."""
    if upper:
        return 1 - root(b, a, p, False)
    x = scipy.special.betaincinv(a, b, p)
    if not 0 < x < 1:
        return np.nan
    a, b, p, x = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(p), mpmath.mpf(x)
    lb = mpmath.log(mpmath.beta(a, b))
    for _ in range(8):
        step = (ibeta(a, b, x) - p) / mpmath.exp((a - 1) * mpmath.log(x) + (b - 1) * mpmath.log1p(-x) - lb)
        x -= step
        if abs(step) < mpmath.mpf(10) ** -36 * x:
            break
    return x


def draws(rng, lo, hi, small, n):
    big = np.exp(rng.uniform(np.log(lo), np.log(hi), (2, n)))
    a, b = big
    if small:
        b = np.exp(rng.uniform(np.log(0.1), np.log(8), n))
        swap = rng.random(n) < 0.5
        a, b = np.where(swap, b, a), np.where(swap, a, b)
    m = a / (a + b)
    sd = np.sqrt(m * (1 - m) / (a + b + 1))
    x = np.clip(m + rng.uniform(-4, 4, n) * sd, 1e-300, 1 - 1e-16)
    return a, b, x


def worst(ours, ref):
    ref = np.asarray(ref, dtype=np.float64)
    ok = (ref != 0) & ~np.isnan(ref)
    return float(np.max(np.abs(np.asarray(ours)[ok] - ref[ok]) / np.abs(ref[ok])))


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    device = jax.devices(sys.argv[2] if len(sys.argv) > 2 else "cpu")[0]
    rng = np.random.default_rng(seed)
    print(f"seed {seed}, {device.platform}; jax_xsf from {jax_xsf.__file__}; SciPy {scipy.__version__}")
    print("| function | parameters | ours | SciPy |\n|---|---|---|---|")
    for lo in (8, 80, 800, 8000):
        for small in (False, True):
            a, b, x = draws(rng, lo, 10 * lo, small, 300)
            label = f"{'one in [0.1, 8], one ' if small else ''}in [{lo}, {10 * lo}]"
            with jax.default_device(device):
                inc = np.asarray(jax_xsf.betainc(a, b, x))
                incc = np.asarray(jax_xsf.betaincc(a, b, x))
            ref = [ibeta(*p) for p in zip(a, b, x)]
            refc = [ibeta(q, p, 1 - mpmath.mpf(y)) for p, q, y in zip(a, b, x)]
            print(f"| betainc | {label} | {worst(inc, ref):.1e} | {worst(scipy.special.betainc(a, b, x), ref):.1e} |")
            print(f"| betaincc | {label} | {worst(incc, refc):.1e} | {worst(scipy.special.betaincc(a, b, x), refc):.1e} |")
    for lo in (1, 10, 100, 1000, 10000):
        df = np.exp(rng.uniform(np.log(lo), np.log(10 * lo), 300))
        t = rng.uniform(-8, 8, 300)
        with jax.default_device(device):
            ours = np.asarray(jax_xsf.stdtr(df, t))
        ref = [stdtr(*p) for p in zip(df, t)]
        print(f"| stdtr | df in [{lo}, {10 * lo}], t in [-8, 8] | {worst(ours, ref):.1e} | {worst(scipy.special.stdtr(df, t), ref):.1e} |")
    # stdtrit against SciPy's (Boost's), accurate there (no mpmath reference: a root each).
    print("\n| stdtrit, p in [1e-30, 1 - 1e-15] | ours against SciPy |\n|---|---|")
    for lo in (1e2, 1e3, 1e4, 1e6, 1e8, 1e10, 1e12, 1e14, 1e16, 1e18):
        df = np.exp(rng.uniform(np.log(lo), np.log(10 * lo), 400))
        p = np.exp(rng.uniform(np.log(1e-30), np.log(0.5), 400))
        p = np.where((rng.random(400) < 0.5) & (p > 1e-15), 1 - p, p)
        with jax.default_device(device):
            ours = np.asarray(jax_xsf.stdtrit(df, p))
        print(f"| df in [{lo:.0e}, {10 * lo:.0e}] | {worst(ours, scipy.special.stdtrit(df, p)):.1e} |")
    # The inverses: p uniform in (0, 1) or log-uniform in [1e-30, 1/2], either tail.
    print("\n| function | parameters | ours | SciPy |\n|---|---|---|---|")
    for lo in (50, 500, 5000, 50000):
        for small in (False, True):
            a, b, _ = draws(rng, lo, 10 * lo, small, 60)
            p = np.where(rng.random(60) < 0.5, rng.uniform(0, 1, 60), 10 ** rng.uniform(-30, np.log10(0.5), 60))
            p = np.where(rng.random(60) < 0.5, p, 1 - p)
            label = f"{'one in [0.1, 8], one ' if small else ''}in [{lo}, {10 * lo}]"
            for f, upper in ((scipy.special.betaincinv, False), (scipy.special.betainccinv, True)):
                with jax.default_device(device):
                    ours = np.asarray(getattr(jax_xsf, f.__name__)(a, b, p))
                ref = [root(*q, upper) for q in zip(a, b, p)]
                print(f"| {f.__name__} | {label} | {worst(ours, ref):.1e} | {worst(f(a, b, p), ref):.1e} |")
    # stdtrit where a root in z = df / (df + t^2) alone (near the centre at large df) or in
    # w = 1 - z alone (within 1/4 of p = 1/2 at small df) lost precision: against SciPy,
    # past the rounding of p itself (t moves by eps p / pdf(t), a condition number past 1e3
    # near p = 1/2, where SciPy is the one off).
    print("\n| stdtrit | ours against SciPy, past p's rounding |\n|---|---|")
    for (lo, hi), (p_lo, p_hi) in (((500, 1e4), (0, 1)), ((0.1, 0.5), (0.25, 0.75))):
        df = np.exp(rng.uniform(np.log(lo), np.log(hi), 4000))
        p = rng.uniform(p_lo, p_hi, 4000)
        with jax.default_device(device):
            ours = np.asarray(jax_xsf.stdtrit(df, p))
        want = scipy.special.stdtrit(df, p)
        pdf = np.exp(scipy.special.gammaln((df + 1) / 2) - scipy.special.gammaln(df / 2) - 0.5 * np.log(df * np.pi) - (df + 1) / 2 * np.log1p(want**2 / df))
        past = np.abs(ours - want) - 4 * np.finfo(np.float64).eps * np.minimum(p, 1 - p) / pdf
        print(f"| df in [{lo}, {hi:g}], p in [{p_lo}, {p_hi}] | {np.max(past / np.abs(want)):.1e} |")
    # fdtr and fdtrc: one number of degrees of freedom in [lo, hi], the other in [0.1, hi]
    # (either way round), x log-uniform in [1e-4, 20]; mpmath's I_w(dfn/2, dfd/2) and
    # I_v(dfd/2, dfn/2), w = dfn x / (dfd + dfn x) and v = 1 - w formed in 40 digits.
    print("\n| function | degrees of freedom | ours | SciPy |\n|---|---|---|---|")
    for lo, hi in ((0.1, 16), (16, 100), (100, 1000)):
        dfn = np.exp(rng.uniform(np.log(0.1), np.log(hi), 300))
        dfd = np.exp(rng.uniform(np.log(lo), np.log(hi), 300))
        dfn, dfd = np.where(rng.random(300) < 0.5, (dfd, dfn), (dfn, dfd))
        x = 10 ** rng.uniform(-4, np.log10(20), 300)
        m, n, v = (np.array([mpmath.mpf(e) for e in arr]) for arr in (dfn, dfd, x))
        cdf = [ibeta(mi / 2, ni / 2, mi * vi / (ni + mi * vi)) for mi, ni, vi in zip(m, n, v)]
        sf = [ibeta(ni / 2, mi / 2, ni / (ni + mi * vi)) for mi, ni, vi in zip(m, n, v)]
        for name, ref in (("fdtr", cdf), ("fdtrc", sf)):
            with jax.default_device(device):
                ours = np.asarray(getattr(jax_xsf, name)(dfn, dfd, x))
            print(f"| {name} | [{lo}, {hi}] | {worst(ours, ref):.1e} | {worst(getattr(scipy.special, name)(dfn, dfd, x), ref):.1e} |")
    # fdtri: p uniform or log-uniform down to 1e-30, either tail (20000 draws a row), against
    # SciPy's and by the round trip through SciPy's fdtr / fdtrc on the tail below 1/2.
    print("\n| fdtri | against SciPy | round trip |\n|---|---|---|")
    for lo, hi in ((0.5, 10), (10, 100), (100, 1e4), (1e4, 1e6)):
        dfn = 10 ** rng.uniform(np.log10(lo), np.log10(hi), 20000)
        dfd = 10 ** rng.uniform(np.log10(0.5), np.log10(hi), 20000)
        dfn, dfd = np.where(rng.random(20000) < 0.5, (dfd, dfn), (dfn, dfd))
        p = np.where(rng.random(20000) < 0.5, rng.uniform(0, 1, 20000), 10 ** rng.uniform(-30, np.log10(0.5), 20000))
        p = np.where(rng.random(20000) < 0.5, p, 1 - p)
        with jax.default_device(device):
            ours = np.asarray(jax_xsf.fdtri(dfn, dfd, p))
        want = scipy.special.fdtri(dfn, dfd, p)
        ok = np.isfinite(want) & (want > 0)
        tail = np.minimum(p, 1 - p)
        back = np.where(p <= 0.5, scipy.special.fdtr(dfn, dfd, ours), scipy.special.fdtrc(dfn, dfd, ours))
        print(f"| df to [{lo:g}, {hi:g}] | {worst(ours[ok], want[ok]):.1e} | {np.max(np.abs(back - tail)[ok] / tail[ok]):.1e} |")


if __name__ == "__main__":
    main()
