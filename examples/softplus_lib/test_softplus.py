"""The example project's own test: run where jax_softplus is installed."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.test_util import check_grads

import jax_softplus

jax.config.update("jax_enable_x64", True)


def test_softplus_matches_a_stable_reference_and_never_overflows():
    x = np.array([-800.0, -30.0, -1.0, 0.0, 0.5, 30.0, 800.0])
    got = np.asarray(jax.jit(jax_softplus.softplus)(x))
    np.testing.assert_allclose(got, np.logaddexp(0.0, x), rtol=1e-15)


def test_gammaln_matches_scipy():
    scipy_special = __import__("scipy.special", fromlist=["gammaln"])
    x = np.linspace(0.1, 40.0, 101)
    np.testing.assert_allclose(np.asarray(jax.jit(jax_softplus.gammaln)(x)), scipy_special.gammaln(x), rtol=1e-14)


def test_derivative_rules():
    x = jnp.array([-3.0, -0.5, 0.25, 2.0, 7.5])
    np.testing.assert_allclose(np.asarray(jax.grad(lambda v: jax_softplus.softplus(v).sum())(x)), 1 / (1 + np.exp(-x)), rtol=1e-14)
    check_grads(jax_softplus.softplus, (x,), order=2, modes=("fwd", "rev"))
    check_grads(jax_softplus.gammaln, (x + 8.0,), order=1, modes=("fwd", "rev"))


def test_generalized_ufuncs_broadcast_leading_axes_and_vmap():
    rng = np.random.default_rng()
    c = rng.normal(size=(4, 1, 6))
    x = rng.normal(size=(3,))
    got = np.asarray(jax.jit(jax_softplus.polyval)(c, x))
    want = np.array([[np.polyval(c[i, 0], xj) for xj in x] for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    a = rng.normal(size=(5, 3, 7))
    v = rng.normal(size=(7,))
    np.testing.assert_allclose(np.asarray(jax_softplus.matvec(a, v)), a @ v, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jax.vmap(jax_softplus.matvec, in_axes=(2, None))(a.transpose(1, 2, 0), v)), a @ v, rtol=1e-12)
    try:
        jax_softplus.matvec(a, np.ones(6))
    except ValueError as e:
        assert "core dimension n of signature (m,n),(n)->(m) is 7 in a but 6 in v" in str(e), e
    else:
        raise AssertionError("mismatched core dimensions must raise")
