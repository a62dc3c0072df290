"""jax.export of bridged functions: serialized, then run in a fresh process that only
imports the generated package; and the persistent compilation cache across processes."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import jax
import jax.export
import jax.numpy as jnp
import numpy as np
import pytest

jax_xsf = pytest.importorskip("jax_xsf")

TARGETS = ["bridgegen.jax_xsf.gammaln", "bridgegen.jax_xsf.kv", "bridgegen.jax_xsf.digamma"]


def model(v, x):
    return jnp.sum(jax_xsf.kv(v, x) * jnp.exp(jax_xsf.gammaln(x))) + jax.grad(lambda t: jax_xsf.gammaln(t))(x[0])


def _run(code: str, env_extra: dict | None = None) -> str:
    env = dict(os.environ, **(env_extra or {}))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_exported_function_runs_in_a_fresh_process(tmp_path: pathlib.Path):
    checks = [jax.export.DisabledSafetyCheck.custom_call(t) for t in TARGETS]
    x = jnp.linspace(0.5, 3.0, 5)
    exp = jax.export.export(jax.jit(model), platforms=["cpu"], disabled_checks=checks)(1.5, x)
    text = exp.mlir_module()
    assert "bridgegen.jax_xsf.kv" in text and "callback_id" not in text  # nothing process-local
    path = tmp_path / "model.bin"
    path.write_bytes(exp.serialize())
    want = float(model(1.5, x))
    out = _run(
        f"""
        import jax, jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
        import jax_xsf  # registers the FFI targets; nothing else is imported
        exp = jax.export.deserialize(open({str(path)!r}, "rb").read())
        print(repr(float(exp.call(1.5, jnp.linspace(0.5, 3.0, 5)))))
        """
    )
    assert abs(float(out.strip()) - want) <= 1e-12 * abs(want)


def test_persistent_compilation_cache_across_processes(tmp_path: pathlib.Path):
    code = """
        import jax, jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        import jax_xsf
        print(float(jax.jit(lambda x: jnp.sum(jax_xsf.gammaln(x) + jax_xsf.erf(x)))(jnp.linspace(0.5, 2.0, 8))))
        """
    env = {"JAX_COMPILATION_CACHE_DIR": str(tmp_path / "cache")}
    first = _run(code, env)
    entries = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert entries, "the first process wrote no cache entry"
    second = _run(code, env)
    assert second == first
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == entries  # served from the cache
