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

def model(v, x):
    return jnp.sum(jax_xsf.kv(v, x) * jnp.exp(jax_xsf.gammaln(x))) + jax.grad(lambda t: jax_xsf.gammaln(t))(x[0])


def _run(code: str, env_extra: dict | None = None) -> str:
    env = dict(os.environ, **(env_extra or {}))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_export_needs_the_packages_checks_and_they_are_public():
    x = jnp.linspace(0.5, 3.0, 5)
    with pytest.raises(ValueError, match="custom calls whose targets have no compatibility guarantees"):
        jax.export.export(jax.jit(model), platforms=["cpu"])(1.5, x)
    assert "bridgegen.jax_xsf.kv" in jax_xsf.EXPORT_TARGETS
    assert len(jax_xsf.export_disabled_checks()) == len(jax_xsf.EXPORT_TARGETS) == len(jax_xsf._spec.UFUNCS)


def test_exported_function_runs_in_a_fresh_process(tmp_path: pathlib.Path):
    x = jax.device_put(jnp.linspace(0.5, 3.0, 5), jax.devices("cpu")[0])  # exported for cpu; kv is host code
    exp = jax.export.export(jax.jit(model), platforms=["cpu"], disabled_checks=jax_xsf.export_disabled_checks())(1.5, x)
    text = exp.mlir_module()
    assert "bridgegen.jax_xsf.kv" in text and "callback_id" not in text  # nothing process-local
    path = tmp_path / "model.bin"
    path.write_bytes(exp.serialize())
    want = float(model(1.5, x))
    out = _run(
        f"""
        import jax, jax.export, jax.numpy as jnp  # jax 0.7.2 does not import jax.export with jax
        jax.config.update("jax_enable_x64", True)
        import jax_xsf  # registers the FFI targets; nothing else is imported
        exp = jax.export.deserialize(open({str(path)!r}, "rb").read())
        print(repr(float(exp.call(1.5, jnp.linspace(0.5, 3.0, 5)))))
        """,
        {"JAX_PLATFORMS": "cpu"},
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


def test_sharded_export_runs_in_a_fresh_process_with_a_warning(tmp_path: pathlib.Path):
    path = tmp_path / "sharded.bin"
    code = f"""
        import warnings, numpy as np, jax, jax.export  # jax 0.7.2 does not import jax.export with jax
        jax.config.update("jax_enable_x64", True)
        import jax_xsf
        from jax.sharding import NamedSharding, PartitionSpec as P
        s = NamedSharding(jax.make_mesh((8,), ("x",)), P("x"))
        x = jax.device_put(np.linspace(0.5, 5.0, 64), s)
        f = jax.jit(lambda v: jax_xsf.gammaln(v) * 2.0, in_shardings=s, out_shardings=s)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            exp = jax.export.export(f, disabled_checks=jax_xsf.export_disabled_checks())(x)
        assert any("cannot serialize custom_partitioning" in str(m.message) for m in w), [str(m.message) for m in w]
        assert exp.nr_devices == 8
        open({str(path)!r}, "wb").write(exp.serialize())
        print("exported")
        """
    env = {"XLA_FLAGS": os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"}
    assert _run(code, env).strip() == "exported"
    out = _run(
        f"""
        import numpy as np, jax, jax.export
        jax.config.update("jax_enable_x64", True)
        import jax_xsf
        from jax.sharding import NamedSharding, PartitionSpec as P
        exp = jax.export.deserialize(open({str(path)!r}, "rb").read())
        x = jax.device_put(np.linspace(0.5, 5.0, 64), NamedSharding(jax.make_mesh((8,), ("x",)), P("x")))
        y = exp.call(x)
        np.testing.assert_array_equal(np.asarray(y), np.asarray(jax_xsf.gammaln(np.linspace(0.5, 5.0, 64))) * 2.0)
        print("ran", len(y.sharding.device_set))
        """,
        env,
    )
    assert out.strip() == "ran 8"


def test_exporting_a_delegated_call_says_why_it_cannot():
    from jax_cupy_bridge import cupy_lazy_apply

    with pytest.raises(ValueError, match="a delegated call cannot be exported"):
        jax.export.export(jax.jit(lambda v: cupy_lazy_apply(np.sqrt, v)), platforms=["cpu"])(jnp.ones(3))
