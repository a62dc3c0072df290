"""Importing our packages leaves every JAX computation that does not use them exactly as it
was: JAX's own programs (jax_programs.py) lower to the same text and compute the same bits
with and without `import jax_xsf, jax_cupy_bridge, jax_cupy`; bridged calls with Python
scalar operands work in loops; the loop wrapper falls back to JAX's rule on any failure
and can be switched off."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import jax_xsf
from bridgegen_runtime import _inplace, _jax_compat

HERE = pathlib.Path(__file__).parent


def _run(*flags, env=None):
    proc = subprocess.run(
        [sys.executable, str(HERE / "jax_programs.py"), *flags],
        capture_output=True, text=True, timeout=600, env=dict(os.environ, **(env or {})),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def without_bridge():
    return _run()


def test_jax_programs_lower_and_compute_identically_with_our_packages_imported(without_bridge):
    with_bridge = _run("--import-bridge")
    assert with_bridge.keys() == without_bridge.keys()
    changed = [k for k in without_bridge if with_bridge[k]["lowered_sha256"] != without_bridge[k]["lowered_sha256"]]
    differ = [k for k in without_bridge if with_bridge[k]["result"] != without_bridge[k]["result"]]
    assert not changed, f"lowered differently with our packages imported: {changed}"
    assert not differ, f"computed differently with our packages imported: {differ}"


def test_jax_programs_in_this_process_match_a_process_without_us(without_bridge):
    # This process imported jax_xsf and has lowered bridged loops (other tests): JAX's own
    # programs still lower as in a process that never imported us.
    import jax_programs

    jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, y: jax_xsf.gammaln(y), x))(jnp.ones(4))
    for name, (fn, args) in jax_programs.PROGRAMS.items():
        static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
        text = jax.jit(fn, static_argnums=static).lower(*args).as_text()
        assert hashlib.sha256(text.encode()).hexdigest() == without_bridge[name]["lowered_sha256"], name


def test_bridged_calls_with_python_scalars_in_loops():
    x0 = jax.device_put(jnp.linspace(0.5, 2.0, 5), jax.devices("cpu")[0])  # kv is host code
    got = jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, x: jax_xsf.kv(2.5, x), x))(x0)
    want = x0
    for _ in range(3):
        want = jax_xsf.kv(2.5, want)
    np.testing.assert_array_equal(got, want)
    # A literal in the same body as a carried operand that dies at the call.
    got = jax.jit(lambda x: lax.fori_loop(0, 2, lambda i, y: jax_xsf.gammainc(1.5, y) * 2.0, x))(x0)
    assert np.all(np.isfinite(got))
    scanned, _ = jax.jit(lambda x: lax.scan(lambda c, _: (jax_xsf.erf(c) + 1.0, None), x, length=3))(x0)
    assert np.all(np.isfinite(scanned))


def test_a_failing_analysis_falls_back_to_jaxs_rule_with_one_warning(monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("simulated change in JAX")

    monkeypatch.setattr(_inplace, "_rewrite", broken)
    monkeypatch.setattr(_inplace, "_warned", False)
    f = lambda x: lax.fori_loop(0, 3, lambda i, y: jax_xsf.gammaln(y + 1.0), x)  # noqa: E731
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = jax.jit(f)(jnp.ones(3))
        jax.jit(lambda x: f(x) + 1.0)(jnp.ones(3))
    msgs = [str(w.message) for w in caught if "in-place analysis" in str(w.message)]
    assert len(msgs) == 1, msgs
    want = jnp.ones(3)
    for _ in range(3):
        want = jax_xsf.gammaln(want + 1.0)
    np.testing.assert_array_equal(got, want)


def test_the_wrapper_can_be_switched_off():
    code = (
        "import jax, jax.numpy as jnp; from jax import lax; from jax._src.interpreters import mlir;"
        "import jax_xsf;"
        "rule = mlir._lowerings[lax.while_p].rule;"
        "assert not getattr(rule, '_bridgegen_inplace', False), rule;"
        "y = jax.jit(lambda x: lax.fori_loop(0, 2, lambda i, v: jax_xsf.erf(v), x))(jnp.ones(3));"
        "print(float(y[0]))"
    )
    env = dict(os.environ, BRIDGEGEN_INPLACE_LOOPS="0")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    from scipy.special import erf

    assert abs(float(proc.stdout) - erf(erf(1.0))) < 1e-6


def test_the_wrapper_keeps_jaxs_rule_entry():
    from jax._src.interpreters import mlir

    entry = mlir._lowerings[lax.while_p]
    if not getattr(entry.rule, "_bridgegen_inplace", False):
        pytest.skip("wrapper not installed in this process")
    assert entry.rule._bridgegen_wrapped is not None
    _jax_compat.wrap_while_lowering(lambda rule: rule)  # a second install is a no-op
    assert mlir._lowerings[lax.while_p] is entry
