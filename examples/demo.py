"""A short demo: xsf special functions under jax.jit, next to scipy.special."""

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.special as sc  # noqa: E402

import jax_xsf as xsf  # noqa: E402

x = np.array([0.5, 1.5, 4.0, 12.5])
a = np.array([0.5, 2.0, 5.0, 30.0])
cases = [
    ("gammaln(x)", xsf.gammaln, sc.gammaln, (x,)),
    ("gammaincinv(a, 0.3)", xsf.gammaincinv, sc.gammaincinv, (a, 0.3)),
    ("hyp2f1(0.5, 1.5, 2.5, -x/5)", xsf.hyp2f1, sc.hyp2f1, (0.5, 1.5, 2.5, -x / 5)),
    ("kv(2.5, x)", xsf.kv, sc.kv, (2.5, x)),
    ("lambertw(x)", xsf.lambertw, sc.lambertw, (x,)),
]
print(f"jax {jax.__version__} on {jax.devices()[0].platform}")
for label, ours, ref, args in cases:
    got = np.asarray(jax.jit(ours)(*args))
    want = ref(*args)
    err = np.max(np.abs(got - want) / np.abs(want))
    print(f"{label:30s} jit: {np.array2string(got, precision=10)}")
    print(f"{'':30s} scipy max rel. diff: {err:.1e}")
print("float32 stays float32:", jax.jit(xsf.erf)(jnp.float32(0.5)).dtype)
