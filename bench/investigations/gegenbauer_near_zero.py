"""How far eval_gegenbauer and eval_legendre of integer degree are from their exact values,
ours and SciPy's, near x = 0 where a recurrence summing differences cancels (issue 17;
answered in docs/benchmarks-log.md, "eval_gegenbauer near x = 0").

Draws (seeded) degrees 2..30, alpha in [-0.4, 5] (the spec's test range) and x uniform on
[-1, 1], log-uniform in magnitude from 1e-6 to 1, just below 1, and uniform on [-5, 5]; the
exact value is the terminating 2F1 series summed in rationals (tests/python/
exact_polynomials.py). Prints, per function and for ours and SciPy, the largest relative
error divided by the relative condition number in x and alpha (at least 1), and where.
    python bench/investigations/gegenbauer_near_zero.py [SEED] [cpu|cuda]
(about 10 s on a CPU; on the GPU machine after `source scripts/gpu_site.sh`).
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "python"))
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import numpy as np  # noqa: E402
import scipy.special  # noqa: E402

import jax_xsf  # noqa: E402
from exact_polynomials import EXACT  # noqa: E402

H = Fraction(1, 10**7)  # central differences of the exact function, relative step


def kappa(f, n, a, x, value):
    """sum_j |x_j df/dx_j| / |f| over x and alpha (exactly, by rational differences)."""
    s = Fraction(0)
    if x:
        s += abs((f(n, a, x * (1 + H)) - f(n, a, x * (1 - H))) / (2 * H))
    if a:
        s += abs((f(n, a * (1 + H), x) - f(n, a * (1 - H), x)) / (2 * H))
    return max(1.0, float(s / abs(value)))


def draws(rng, count):
    rows = []
    for _ in range(count):
        x = rng.choice([
            rng.uniform(-1, 1),
            rng.choice([-1, 1]) * 10 ** rng.uniform(-6, 0),
            1 - 10 ** rng.uniform(-8, 0),
            rng.uniform(-5, 5),
        ])
        rows.append((rng.randint(2, 30), rng.uniform(-0.4, 5.0), x))
    return rows


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    device = jax.devices(sys.argv[2] if len(sys.argv) > 2 else "cpu")[0]
    rows = draws(random.Random(seed), 1500)
    n = np.array([r[0] for r in rows], dtype=np.int64)
    a = np.array([r[1] for r in rows])
    x = np.array([r[2] for r in rows])
    gegenbauer = EXACT["eval_gegenbauer"]
    legendre = lambda n, a, x: EXACT["eval_legendre"](n, x)  # noqa: E731
    cases = {
        "eval_gegenbauer": (gegenbauer, jax.jit(jax_xsf.eval_gegenbauer)(*jax.device_put((n, a, x), device)),
                            scipy.special.eval_gegenbauer(n, a, x), True),
        "eval_legendre": (legendre, jax.jit(jax_xsf.eval_legendre)(*jax.device_put((n, x), device)),
                          scipy.special.eval_legendre(n, x), False),
    }
    print(f"seed {seed}, {device}, jax {jax.__version__}, scipy {scipy.__version__}; "
          "largest |error| / |exact| / max(1, kappa) at (n, alpha, x):")
    for name, (exact, ours, theirs, has_alpha) in cases.items():
        ours = np.asarray(ours)
        worst = {"ours": (0.0, None), "scipy": (0.0, None)}
        for i, (ni, ai, xi) in enumerate(rows):
            fa = Fraction(ai) if has_alpha else Fraction(0)
            value = exact(ni, fa, Fraction(xi))
            if value == 0:
                continue
            k = kappa(exact, ni, fa, Fraction(xi), value)
            for who, got in (("ours", ours[i]), ("scipy", theirs[i])):
                err = abs(got - float(value)) / abs(float(value)) / k
                if err > worst[who][0]:
                    worst[who] = (err, (ni, ai, xi) if has_alpha else (ni, xi))
        for who, (err, where) in worst.items():
            print(f"  {name:16} {who:5} {err:.2e} at {where}")


if __name__ == "__main__":
    main()
