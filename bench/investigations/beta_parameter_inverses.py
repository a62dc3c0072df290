"""How far are btdtria, btdtrib, nbdtrik, nbdtrin, bdtrik and bdtrin (cdf_inversion's root
search on incbet_large's incbet: specs/xsf/statistics.toml, beta_parameters) from SciPy's
cdflib searches, and which of the two is off where they differ?

For each function, 20000 draws in the spec's test ranges (seed 1). It prints the largest
relative difference from SciPy, the points where the NaN or infinity pattern differs, and
each side's residual: the root mapped back through SciPy's betainc, against p. Roots that
k's inverses clip at 0 (p at or below their value at k = 0) are left out of the residual.
    python bench/investigations/beta_parameter_inverses.py      (CPU; docs/spec.md)
2026-12-07: within 4.3e-14 (btdtria), 1.3e-13 (btdtrib) and 3.1e-11 to 4.9e-11 (the other
four); no pattern differs. Where they differ, SciPy's search stopped short: residuals up to
3.2e-14 for ours, and up to 6.2e-11 (nbdtrik) and 6.0e-10 (bdtrik) for SciPy's.
"""

from __future__ import annotations

import jax
import numpy as np
import scipy.special as sc

import jax_xsf

jax.config.update("jax_enable_x64", True)
N = 20000
rng = np.random.default_rng(1)
U = rng.uniform

# name -> (arguments, the root mapped back to p through SciPy's betainc, p, clipped at 0)
CASES = {
    "btdtria": (lambda: (U(0, 1, N), U(0.5, 20, N), U(0.01, 0.99, N)), lambda r, p, b, x: sc.betainc(r, b, x), 0, None),
    "btdtrib": (lambda: (U(0.5, 20, N), U(0, 1, N), U(0.01, 0.99, N)), lambda r, a, p, x: sc.betainc(a, r, x), 1, None),
    "nbdtrik": (
        lambda: (U(0, 1, N), U(0.5, 40, N), U(0.01, 0.99, N)),
        lambda r, y, n, p: sc.betainc(n, r + 1, p),
        0,
        lambda y, n, p: y <= p**n,
    ),
    "nbdtrin": (
        lambda: (U(0, 40, N), U(0, 1, N), U(0.01, 0.99, N)),
        lambda r, k, y, p: sc.betainc(r, k + 1, p),
        1,
        None,
    ),
    "bdtrik": (
        lambda: (U(0, 1, N), U(0.5, 40, N), U(0.01, 0.99, N)),
        lambda r, y, n, p: sc.betainc(n - r, r + 1, 1 - p),
        0,
        lambda y, n, p: y <= (1 - p) ** n,
    ),
    "bdtrin": (
        lambda: (U(0, 40, N), U(0, 1, N), U(0.01, 0.99, N)),
        lambda r, k, y, p: sc.betainc(r - k, k + 1, 1 - p),
        1,
        None,
    ),
}


def main() -> None:
    for name, (draw, back, which_p, clipped) in CASES.items():
        args = draw()
        ours = np.asarray(jax.jit(getattr(jax_xsf, name))(*args))
        ref = getattr(sc, name)(*args)
        both = np.isfinite(ours) & np.isfinite(ref)
        rel = np.where(both, np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-300), 0)
        pattern = ((np.isnan(ours) != np.isnan(ref)) | (np.isfinite(ours) != np.isfinite(ref))).sum()
        keep = both & ~(clipped(*args) if clipped else False)
        p = args[which_p]
        res_ours = np.abs(back(ours, *args) - p)[keep].max()
        res_scipy = np.abs(back(ref, *args) - p)[keep].max()
        i = int(np.argmax(rel))
        print(
            f"{name}: {rel[i]:.2e} from SciPy (at {[float(a[i]) for a in args]}: ours {ours[i]!r}, SciPy {ref[i]!r}); "
            f"pattern differs at {pattern}; residual ours {res_ours:.1e}, SciPy {res_scipy:.1e}"
        )


if __name__ == "__main__":
    main()
