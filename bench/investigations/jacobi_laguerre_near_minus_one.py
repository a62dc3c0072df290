"""How far eval_jacobi and eval_genlaguerre of integer degree are from their exact values,
ours and SciPy's, as alpha approaches -1, where the normalisation binom(n + alpha, n) loses
alpha's low bits if n + alpha is formed first (issue 17; answered in docs/benchmarks-log.md,
"eval_jacobi and eval_genlaguerre near alpha = -1").

Draws (seeded) degrees 2..40, alpha = -1 + 10^-u with u uniform on [1, 12], beta in
[-0.9, 5] and x in [-1, 1] (Jacobi), x in [0, 20] (Laguerre); the exact value is the
terminating 2F1 / 1F1 series summed in rationals (tests/python/exact_polynomials.py) at the
floating-point arguments as given. Prints, per decade of alpha + 1, the largest relative
error divided by the relative condition number in x (at least 1: near a zero in x neither
can do better), ours and SciPy's, integer-degree loops.
    python bench/investigations/jacobi_laguerre_near_minus_one.py [SEED] [cpu|cuda]
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


def kappa_x(f, args, value):
    """|x f'(x) / f| (exactly, by rational differences), at least 1."""
    *p, x = args
    if not x:
        return 1.0
    d = (f(*p, x * (1 + H)) - f(*p, x * (1 - H))) / (2 * H)
    return max(1.0, float(abs(d / value)))


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    device = jax.devices(sys.argv[2] if len(sys.argv) > 2 else "cpu")[0]
    rng = random.Random(seed)
    count = 1200
    n = np.array([rng.randint(2, 40) for _ in range(count)], dtype=np.int64)
    u = np.array([rng.uniform(1, 12) for _ in range(count)])
    alpha = -1 + 10.0**-u
    beta = np.array([rng.uniform(-0.9, 5) for _ in range(count)])
    xj = np.array([rng.uniform(-1, 1) for _ in range(count)])
    xl = np.array([rng.uniform(0, 20) for _ in range(count)])
    put = lambda *a: jax.device_put(a, device)  # noqa: E731
    cases = {
        "eval_jacobi": ((n, alpha, beta, xj), jax.jit(jax_xsf.eval_jacobi)(*put(n, alpha, beta, xj)),
                        scipy.special.eval_jacobi(n, alpha, beta, xj)),
        "eval_genlaguerre": ((n, alpha, xl), jax.jit(jax_xsf.eval_genlaguerre)(*put(n, alpha, xl)),
                             scipy.special.eval_genlaguerre(n, alpha, xl)),
    }
    decade = np.floor(u).astype(int)
    print(f"seed {seed}, {device}, jax {jax.__version__}, scipy {scipy.__version__}; largest "
          "|error| / |exact| / max(1, kappa_x) per decade of alpha + 1:")
    for name, (args, ours, theirs) in cases.items():
        ours = np.asarray(ours)
        exact = EXACT[name]
        err = {"ours": np.zeros(count), "scipy": np.zeros(count)}
        for i in range(count):
            point = [int(args[0][i]), *(Fraction(float(a[i])) for a in args[1:])]
            value = exact(*point)
            if not value:
                continue
            k = kappa_x(exact, point, value)
            for who, got in (("ours", ours[i]), ("scipy", theirs[i])):
                err[who][i] = abs(got - float(value)) / abs(float(value)) / k
        print(f"  {name}")
        for d in range(1, 12):
            sel = decade == d
            print(f"    alpha + 1 in [1e-{d + 1}, 1e-{d}): ours {err['ours'][sel].max():.1e}, "
                  f"scipy {err['scipy'][sel].max():.1e}  ({sel.sum()} draws)")


if __name__ == "__main__":
    main()
