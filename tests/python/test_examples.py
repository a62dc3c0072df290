"""The examples run, on small data: examples/matern_gp.py fits (its loss drops for every
restart) under jit + grad + vmap; examples/demo.py prints its comparison."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_matern_gp_fit_improves_every_restart():
    pytest.importorskip("jax_xsf")
    start, final = load("matern_gp").main(n=30, steps=40, restarts=3)
    assert np.all(np.isfinite(final)) and np.all(np.asarray(final) < np.asarray(start) - 0.05)


def test_demo_runs():
    pytest.importorskip("jax_xsf")
    r = subprocess.run([sys.executable, str(EXAMPLES / "demo.py")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "gammaincinv" in r.stdout
