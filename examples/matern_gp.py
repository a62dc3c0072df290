"""A model JAX alone cannot express today: Gaussian-process regression with a Matérn
kernel of real (non-half-integer) smoothness ν — it needs the real-order modified Bessel
function K_ν — and a Student-t likelihood with learnable degrees of freedom (gammaln),
fitted by gradient descent under jit + grad, vmapped over random restarts.

    python examples/matern_gp.py [--n 60] [--steps 150]

K_ν comes from jax_xsf.kv (CPU-only: AMOS is host code), its derivative in the
distance from the spec's recurrence; gammaln's from digamma. ν itself stays fixed: kv
has no closed-form derivative in its order (the spec declares ν nondiff).
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
import jax_xsf  # noqa: E402
from student_t import fit, student_t_logpdf  # noqa: E402  (examples/student_t.py)

NU = 1.3  # Matérn smoothness: between the closed forms at 1/2 and 3/2


def matern(r, lengthscale, nu=NU):
    """Matérn covariance with unit variance; r >= 0."""
    z = jnp.sqrt(2 * nu) * r / lengthscale
    z_safe = jnp.where(z > 0, z, 1.0)
    k = 2 ** (1 - nu) / jnp.exp(jax_xsf.gammaln(nu)) * z_safe**nu * jax_xsf.kv(nu, z_safe)
    return jnp.where(z > 0, k, 1.0)


def loss(params, x, y):
    """Negative log-likelihood: the GP posterior mean at the data (a kernel smoother with
    the Matérn kernel) and Student-t residuals."""
    lengthscale, noise, scale, dof = jnp.exp(params)
    r = jnp.abs(x[:, None] - x[None, :])
    k = matern(r, lengthscale)
    mean = k @ jnp.linalg.solve(k + noise * jnp.eye(x.shape[0]), y)
    return -jnp.mean(student_t_logpdf(y - mean, scale, dof))


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 10, n))
    y = np.sin(x) + 0.3 * x + 0.1 * rng.standard_t(3, n)
    return x, y


def main(n=60, steps=150, restarts=4):
    x, y = data(n)
    inits = jnp.log(jnp.array([[1.0, 0.1, 0.2, 5.0]] * restarts)) + 0.1 * jnp.arange(restarts)[:, None]
    start = jax.vmap(lambda p: loss(p, x, y))(inits)
    params, final = fit(loss, x, y, inits, steps, lr=0.05)
    best = int(jnp.argmin(final))
    lengthscale, noise, scale, dof = np.exp(np.asarray(params[best]))
    print(f"loss: {float(start[best]):.4f} -> {float(final[best]):.4f}")
    print(f"lengthscale {lengthscale:.3f}, noise {noise:.4f}, scale {scale:.4f}, degrees of freedom {dof:.2f}")
    return start, final


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--steps", type=int, default=150)
    a = ap.parse_args()
    main(a.n, a.steps)
