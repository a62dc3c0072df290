"""Whose error is the 33-34 eps between the bridge's device erfc / erfcx (CUDA's math library,
as cupyx's) and SciPy's in jax_scipy_accuracy's float64 rows?

SciPy's erfc is cephes' exp(-x^2) P(x)/Q(x), which carries x^2's rounding into the result: on
this dev VM (SciPy 1.17.1) it is up to 17 eps from mpmath on [3, 6] and 256 eps on [12, 26].
Both sides are measured here against mpmath (40 digits) on the same points. The GPU machine
has no mpmath and no network, so the references are computed here and carried:

    python bench/investigations/erfc_vs_mpmath.py refs FILE.npz     # here (mpmath)
    python bench/investigations/erfc_vs_mpmath.py check FILE.npz    # GPU machine

`check` prints, per function and range, the largest and median relative error in float64
eps of the bridge on JAX's default device and of SciPy on the host.
"""

from __future__ import annotations

import sys

import numpy as np

RANGES = [(-6.0, -0.5), (-0.5, 0.5), (0.5, 3.0), (3.0, 6.0), (6.0, 12.0), (12.0, 26.5)]
PER_RANGE = 2000
EPS = np.finfo(np.float64).eps


def refs(path):
    import mpmath

    mpmath.mp.dps = 40
    rng = np.random.default_rng(20261206)
    x = np.concatenate([rng.uniform(lo, hi, PER_RANGE) for lo, hi in RANGES])
    erfc = np.array([float(mpmath.erfc(mpmath.mpf(float(t)))) for t in x])
    erfcx = np.array([float(mpmath.exp(mpmath.mpf(float(t)) ** 2) * mpmath.erfc(mpmath.mpf(float(t)))) for t in x])
    np.savez(path, x=x, erfc=erfc, erfcx=erfcx)


def check(path):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax_xsf
    import scipy
    import scipy.special as sc

    data = np.load(path)
    x = data["x"]
    print(f"jax {jax.__version__} on {jax.devices()[0].device_kind}; SciPy {scipy.__version__}")
    for name in ("erfc", "erfcx"):
        want = data[name]
        got = {"bridge": np.asarray(jax.jit(getattr(jax_xsf, name))(x)), "scipy": getattr(sc, name)(x)}
        for k, (lo, hi) in enumerate(RANGES):
            part = slice(k * PER_RANGE, (k + 1) * PER_RANGE)
            ok = want[part] > np.finfo(np.float64).tiny
            cells = []
            for who, y in got.items():
                err = np.abs(y[part][ok] - want[part][ok]) / want[part][ok] / EPS
                cells.append(f"{who} max {err.max():6.1f} median {np.median(err):4.1f}")
            print(f"{name:6s} [{lo:5.1f}, {hi:5.1f}]: " + " | ".join(cells))


if __name__ == "__main__":
    {"refs": refs, "check": check}[sys.argv[1]](sys.argv[2])
