"""The examples run, on small data: examples/matern_gp.py and examples/student_t.py fit
(their loss drops for every restart) under jit + grad + vmap, student_t.py on the GPU too;
examples/demo.py prints its comparison."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))  # the examples import each other, as scripts do


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_matern_gp_fit_improves_every_restart():
    pytest.importorskip("jax_xsf")
    start, final = load("matern_gp").main(n=30, steps=40, restarts=3)
    assert np.all(np.isfinite(final)) and np.all(np.asarray(final) < np.asarray(start) - 0.05)


@pytest.mark.parametrize("platform", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_student_t_fit_recovers_the_line(platform):
    pytest.importorskip("jax_xsf")
    start, final, params = load("student_t").main(n=2000, steps=300, restarts=3, device=platform)
    assert np.all(final < start - 0.1)
    # The data: intercept 1, slope 2, Student-t noise with 3 degrees of freedom, scale 0.5.
    np.testing.assert_allclose(params[:, :2], np.broadcast_to([1.0, 2.0], (3, 2)), atol=0.1)
    assert np.all((np.exp(params[:, 3]) > 1.5) & (np.exp(params[:, 3]) < 8))


def test_demo_runs():
    pytest.importorskip("jax_xsf")
    r = subprocess.run([sys.executable, str(EXAMPLES / "demo.py")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "gammaincinv" in r.stdout
