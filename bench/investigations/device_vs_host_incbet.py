"""The device's kernels against the host loops for betainc, betaincc, betaincinv and
betainccinv at a, b in [1e3, 1e12], x within four standard deviations of the mean (issue 17;
answered in docs/benchmarks-log.md, "the device's basym"). Needs a GPU:
    python bench/investigations/device_vs_host_incbet.py
"""

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)
import jax_xsf  # noqa: E402

rng = np.random.default_rng(1)
n = 100000
for lo, hi in ((1e3, 1e5), (1e5, 1e8), (1e8, 1e12)):
    a, b = 10 ** rng.uniform(np.log10(lo), np.log10(hi), (2, n))
    m = a / (a + b)
    x = np.clip(m + rng.uniform(-4, 4, n) * np.sqrt(m * (1 - m) / (a + b + 1)), 0, 1)
    p = rng.uniform(0, 1, n)
    for name, args in (("betainc", (a, b, x)), ("betaincc", (a, b, x)), ("betaincinv", (a, b, p)), ("betainccinv", (a, b, p))):
        f = jax.jit(getattr(jax_xsf, name))
        g = np.asarray(f(*jax.device_put(args, jax.devices("cuda")[0])))
        h = np.asarray(f(*jax.device_put(args, jax.devices("cpu")[0])))
        ok = h != 0
        d = np.abs(g - h)[ok] / np.abs(h[ok])
        print(f"{name} a, b in [{lo:.0e}, {hi:.0e}]: device vs host max rel {np.nanmax(d):.1e}, NaN differ {int(np.sum(np.isnan(g) != np.isnan(h)))}", flush=True)
