import numpy as np, scipy.special as sc, jax, jax_xsf, time
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(1); N = 20000
def rel(a, b):
    ok = np.isfinite(a) & np.isfinite(b)
    r = np.abs(a - b) / np.maximum(np.abs(b), 1e-300)
    return np.nanmax(np.where(ok, r, 0)), (np.isnan(a) != np.isnan(b)).sum(), (np.isfinite(a) != np.isfinite(b)).sum()
cases = {
 "btdtria": (lambda: (rng.uniform(0,1,N), rng.uniform(0.5,20,N), rng.uniform(0.01,0.99,N)), lambda r, p, b, x: sc.betainc(r, b, x) - p),
 "btdtrib": (lambda: (rng.uniform(0.5,20,N), rng.uniform(0,1,N), rng.uniform(0.01,0.99,N)), lambda r, a, p, x: sc.betainc(a, r, x) - p),
 "nbdtrik": (lambda: (rng.uniform(0,1,N), rng.uniform(0.5,40,N), rng.uniform(0.01,0.99,N)), lambda r, y, n, p: sc.betainc(n, r + 1, p) - y),
 "nbdtrin": (lambda: (rng.uniform(0,40,N), rng.uniform(0,1,N), rng.uniform(0.01,0.99,N)), lambda r, k, y, p: sc.betainc(r, k + 1, p) - y),
 "bdtrik": (lambda: (rng.uniform(0,1,N), rng.uniform(0.5,40,N), rng.uniform(0.01,0.99,N)), lambda r, y, n, p: sc.betainc(n - r, r + 1, 1 - p) - y),
 "bdtrin": (lambda: (rng.uniform(0,40,N), rng.uniform(0,1,N), rng.uniform(0.01,0.99,N)), lambda r, k, y, p: sc.betainc(r - k, k + 1, 1 - p) - y),
}
for name, (draw, back) in cases.items():
    args = draw()
    f = jax.jit(getattr(jax_xsf, name)); t0 = time.perf_counter(); ours = np.asarray(f(*args)); t1 = time.perf_counter()
    ref = getattr(sc, name)(*args); t2 = time.perf_counter()
    m, nn, nf = rel(ours, ref)
    res_o = np.abs(back(ours, *args)); res_s = np.abs(back(ref, *args))
    i = np.nanargmax(np.where(np.isfinite(ours) & np.isfinite(ref), np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-300), 0))
    print(f"{name}: max rel vs SciPy {m:.2e} at {[float(a[i]) for a in args]} ours {ours[i]!r} scipy {ref[i]!r}; NaN differ {nn}, finite differ {nf}; "
          f"residual ours {np.nanmax(res_o):.1e} scipy {np.nanmax(res_s):.1e}; {1e3*(t1-t0):.0f} ms vs {1e3*(t2-t1):.0f} ms")
