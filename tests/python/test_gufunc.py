"""Generalized ufuncs (spec `signature`, core dimensions last): the Poisson-binomial pair
against scipy.stats.poisson_binom on fresh random and edge inputs, broadcasting of the
leading axes, vmap on any axis, trace-time shape errors, and the same on the GPU."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats

jax_xsf = pytest.importorskip("jax_xsf")

FUNCS = {
    "poisson_binom_pmf_all": lambda p: scipy.stats.poisson_binom.pmf(np.arange(len(p) + 1), p),
    "poisson_binom_cdf_all": lambda p: scipy.stats.poisson_binom.cdf(np.arange(len(p) + 1), p),
}


def reference(name, p):
    """SciPy row by row (its poisson_binom takes one vector of probabilities)."""
    p = np.asarray(p, np.float64)
    rows = p.reshape(-1, p.shape[-1])
    out = np.array([FUNCS[name](r) if r.size else [1.0] for r in rows])
    return out.reshape(p.shape[:-1] + (p.shape[-1] + 1,))


def edge_rows(rng):
    """Probabilities 0 and 1, tiny and near-1 values, one trial, many trials."""
    return [
        np.array([0.0]),
        np.array([1.0]),
        np.array([0.0, 1.0, 0.5]),
        np.array([1e-300, 1e-17, 1 - 1e-16, 0.5]),
        rng.uniform(0, 1, 1),
        rng.uniform(0, 1, 257),
        np.full(60, 0.999),
    ]


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_matches_scipy_on_random_and_edge_inputs(name):
    rng = np.random.default_rng()
    f = jax.jit(getattr(jax_xsf, name))
    p = rng.uniform(0, 1, (7, 5, 13))
    np.testing.assert_allclose(np.asarray(f(p)), reference(name, p), rtol=1e-12, atol=1e-15)
    for row in edge_rows(rng):
        got = np.asarray(f(jnp.asarray(row)))
        assert got.shape == (row.size + 1,)
        np.testing.assert_allclose(got, reference(name, row), rtol=1e-11, atol=1e-15, err_msg=str(row[:4]))


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_float32_loop_and_nan_pattern(name):
    rng = np.random.default_rng()
    f = getattr(jax_xsf, name)
    p = rng.uniform(0, 1, (4, 9)).astype(np.float32)
    got = f(p)
    assert got.dtype == jnp.float32 and got.shape == (4, 10)
    np.testing.assert_allclose(np.asarray(got), reference(name, p), rtol=1e-4, atol=1e-6)
    # A NaN probability makes the outcomes it enters NaN, as in SciPy 1.17, except the cdf's
    # last entry: xsf sets P(X <= n) = 1 (as SciPy >= 1.18, whose poisson_binom uses this kernel).
    row = np.array([0.3, np.nan, 0.6])
    got, want = np.asarray(f(row)), reference(name, row)
    if name == "poisson_binom_cdf_all":
        assert got[-1] == 1.0
        got, want = got[:-1], want[:-1]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


def test_no_trials_is_certain_zero_successes():
    out = jax_xsf.poisson_binom_pmf_all(jnp.zeros((3, 0)))
    assert out.shape == (3, 1)
    np.testing.assert_array_equal(np.asarray(out), np.ones((3, 1)))
    assert jax_xsf.poisson_binom_cdf_all(jnp.zeros((2, 0, 4))).shape == (2, 0, 5)


def test_leading_axes_and_vmap_on_any_axis():
    rng = np.random.default_rng()
    p = rng.uniform(0, 1, (3, 6, 8))
    want = reference("poisson_binom_pmf_all", p)
    f = jax_xsf.poisson_binom_pmf_all
    np.testing.assert_allclose(np.asarray(jax.vmap(f)(p)), want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(jax.vmap(f, in_axes=1)(np.moveaxis(p, 0, 1))), want, rtol=1e-12, atol=1e-15)
    # vmap over the probabilities' own axis: each example is a (3, 6) batch of 6 trials.
    got = jax.vmap(f, in_axes=2)(p)
    np.testing.assert_allclose(np.asarray(got), reference("poisson_binom_pmf_all", np.moveaxis(p, 2, 0)), rtol=1e-12, atol=1e-15)
    # Nested vmap and jit compose.
    np.testing.assert_allclose(np.asarray(jax.jit(jax.vmap(jax.vmap(f)))(p)), want, rtol=1e-12, atol=1e-15)


def test_shape_errors_at_trace_time_name_the_signature():
    f = jax.jit(jax_xsf.poisson_binom_pmf_all)
    with pytest.raises(ValueError, match=r"signature \(n\)->\(n\+1\) needs 1 core dimension"):
        f(jnp.float64(0.5))
    with pytest.raises(TypeError, match=r"takes 1 positional argument"):
        jax_xsf.poisson_binom_pmf_all(jnp.ones(3), jnp.ones(3))
    with pytest.raises(TypeError, match=r"no type loop"):
        f(jnp.ones(3, jnp.complex128))


def test_leading_axes_broadcast_and_mismatched_core_sizes_raise():
    # A two-input gufunc is exercised through the runtime class directly (the spec's pair has one input).
    from bridgegen_runtime.gufunc import Gufunc

    g = Gufunc(
        qualname="t.take", target="t.take", inputs=("k", "p"), outputs=("out", "cdf"), loops=("dd->dd",),
        platforms=("cpu",), built=("cpu",), signature="(),(n)->(),(n+1)",
        core=dict(inputs=((), (("n", 0),)), outputs=((), (("n", 1),))),
    )  # fmt: skip
    assert g.shapes([(2, 1), (5, 7)]) == ((2, 5), (2, 5, 8))
    with pytest.raises(ValueError, match=r"leading \(non-core\) axes of argument shapes \(2,\), \(5, 7\) do not broadcast"):
        g.shapes([(2,), (5, 7)])
    h = Gufunc(
        qualname="t.dot", target="t.dot", inputs=("a", "b"), outputs=("out",), loops=("dd->d",),
        platforms=("cpu",), built=("cpu",), signature="(n),(n)->()",
        core=dict(inputs=((("n", 0),), (("n", 0),)), outputs=((),)),
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"core dimension n of signature \(n\),\(n\)->\(\) is 3 in a but 4 in b"):
        h.shapes([(3,), (2, 4)])


def test_not_differentiable_with_a_clear_error():
    with pytest.raises(TypeError, match=r"poisson_binom_cdf_all: cannot differentiate .* generalized ufuncs have no derivative rules"):
        jax.grad(lambda p: jax_xsf.poisson_binom_cdf_all(p).sum())(jnp.full(3, 0.5))
    # A stop_gradient argument makes the call a constant, as the message says.
    g = jax.grad(lambda p: (jax_xsf.poisson_binom_pmf_all(jax.lax.stop_gradient(p)).sum() * p).sum())(jnp.full(3, 0.5))
    np.testing.assert_allclose(np.asarray(g), np.ones(3))


def test_poisoned_outputs_are_all_written(monkeypatch):
    # BRIDGEGEN_POISON_OUTPUTS=1 is read once per process: run a child that sets it.
    import subprocess
    import sys

    code = (
        "import jax, numpy as np; jax.config.update('jax_enable_x64', True); import jax_xsf; "
        "p = np.random.default_rng().uniform(0, 1, (40, 33)); out = np.asarray(jax.jit(jax_xsf.poisson_binom_pmf_all)(p)); "
        "assert not np.isnan(out).any() and np.allclose(out.sum(-1), 1), out; print('ok')"
    )
    env = dict(__import__("os").environ, BRIDGEGEN_POISON_OUTPUTS="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_large_batches_split_over_threads_cover_every_row():
    rng = np.random.default_rng()
    p = rng.uniform(0, 1, (5000, 40))
    got = np.asarray(jax.jit(jax_xsf.poisson_binom_cdf_all)(p))
    idx = rng.integers(0, 5000, 20)
    np.testing.assert_allclose(got[idx], reference("poisson_binom_cdf_all", p[idx]), rtol=1e-12, atol=1e-15)
    assert np.all(got[:, -1] == 1.0)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_matches_scipy_and_the_host(name, dtype):
    rng = np.random.default_rng()
    gpu = next(d for d in jax.devices() if d.platform == "gpu")
    f = jax.jit(getattr(jax_xsf, name))
    for shape in [(1000, 37), (3, 1, 300), (5, 0), (2, 1)]:
        p = rng.uniform(0, 1, shape).astype(dtype)
        got = np.asarray(f(jax.device_put(p, gpu)))
        host = np.asarray(f(jax.device_put(p, jax.devices("cpu")[0])))
        rtol, atol = (1e-12, 1e-15) if dtype == np.float64 else (1e-4, 1e-6)
        np.testing.assert_allclose(got, host, rtol=rtol, atol=atol)
        if p.size and p.shape[-1] <= 300:
            rows = p.reshape(-1, p.shape[-1])[:50]
            np.testing.assert_allclose(got.reshape(-1, shape[-1] + 1)[:50], reference(name, rows), rtol=max(rtol, 1e-11), atol=atol)
    # vmap on the device, batch axis not leading.
    p = rng.uniform(0, 1, (6, 4, 9)).astype(dtype)
    got = jax.jit(jax.vmap(f, in_axes=1))(jax.device_put(p, gpu))
    np.testing.assert_allclose(np.asarray(got), np.moveaxis(np.asarray(f(p)), 1, 0), rtol=1e-5 if dtype == np.float32 else 1e-13)
