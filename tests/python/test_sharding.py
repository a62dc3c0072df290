"""Sharding on 8 CPU devices (a subprocess with --xla_force_host_platform_device_count=8):
calls on sharded inputs stay sharded with no all-gather in the compiled HLO, give the
unsharded results, and work under grad and inside shard_map."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("jax_xsf")

SCRIPT = textwrap.dedent(
    """
    import jax, jax.numpy as jnp, numpy as np
    jax.config.update("jax_enable_x64", True)
    import jax_xsf
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    assert len(jax.devices()) == 8
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    xh = np.linspace(0.5, 5.0, 16 * 6).reshape(16, 6)
    x = jax.device_put(xh, NamedSharding(mesh, P("x", "y")))
    row = jax.device_put(np.linspace(0.1, 0.9, 6), NamedSharding(mesh, P("y")))

    def check(name, f, *args):
        jf = jax.jit(f)
        hlo = jf.lower(*args).compile().as_text()
        assert "all-gather" not in hlo, name + ": all-gather in the compiled HLO"
        got = jf(*args)
        got = got if isinstance(got, tuple) else (got,)
        want = f(*[np.asarray(a) for a in args])  # the unsharded call
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want):
            assert g.sharding.spec == P("x", "y"), (name, g.sharding)
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        print(name, "ok")

    check("gammaln", jax_xsf.gammaln, x)
    check("gammaincinv broadcast", jax_xsf.gammaincinv, x, row)
    check("sici two outputs", jax_xsf.sici, x)
    check("grad", jax.grad(lambda v: jnp.sum(jax_xsf.gammaln(v))), x)

    from jax.experimental.shard_map import shard_map
    sm = jax.jit(shard_map(jax_xsf.digamma, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y")))
    assert "all-gather" not in sm.lower(x).compile().as_text()
    np.testing.assert_array_equal(np.asarray(sm(x)), np.asarray(jax_xsf.digamma(xh)))
    print("shard_map ok")

    import warnings
    from jax_cupy_bridge import cupy_lazy_apply
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = jax.jit(lambda v: cupy_lazy_apply(np.sqrt, v))(x)
    assert any("no sharding rule yet" in str(m.message) for m in w), [str(m.message) for m in w]
    np.testing.assert_allclose(np.asarray(y), np.sqrt(xh))
    print("delegated replicated with a warning ok")
    """
)


# Sharding as JAX users write it now: shard_map with check_vma=True (outputs keep their
# varying manual axes, or a scan carry's type changes: NVIDIA Warp #1851) and explicit
# meshes (outputs keep their sharding, or XLA gathers before the call: jax #38551).
MODERN = textwrap.dedent(
    """
    import jax, jax.numpy as jnp, numpy as np
    jax.config.update("jax_enable_x64", True)
    from jax import lax
    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
    import jax_xsf
    from jax_cupy_bridge import cupy_lazy_apply
    assert len(jax.devices()) == 8
    xh = np.linspace(0.5, 5.0, 64)
    ref = xh
    for _ in range(3):
        ref = np.asarray(jax_xsf.gammaln(ref)) + 1.0

    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Explicit,))
    x = jax.device_put(xh, NamedSharding(mesh, P("x")))

    body = lambda c, _: (jax_xsf.gammaln(c) + 1.0, None)
    f = jax.jit(jax.shard_map(lambda v: lax.scan(body, v, length=3)[0], mesh=mesh, in_specs=P("x"),
                              out_specs=P("x"), check_vma=True))
    np.testing.assert_array_equal(np.asarray(f(x)), ref)
    # Two operands, one a scalar constant, inside the body of a check_vma shard_map.
    g = jax.jit(jax.shard_map(lambda v: jax_xsf.gammaincinv(v, 0.25), mesh=mesh, in_specs=P("x"),
                              out_specs=P("x"), check_vma=True))
    np.testing.assert_array_equal(np.asarray(g(x)), np.asarray(jax_xsf.gammaincinv(xh, 0.25)))
    print("shard_map check_vma scan ok")

    set_mesh = getattr(jax, "set_mesh", None) or jax.sharding.use_mesh
    with set_mesh(mesh):
        xe = jax.device_put(xh, P("x"))
        row = jax.device_put(np.linspace(0.1, 0.9, 8), P())
        h = jax.jit(lambda v, r: jax_xsf.gammaincinv(v.reshape(8, 8), r) * 2.0)
        hlo = h.lower(xe, row).compile().as_text()
        assert "all-gather" not in hlo, "all-gather under an explicit mesh"
        y = h(xe, row)
        assert jax.typeof(y).sharding.spec == P("x", None), jax.typeof(y)
        want = np.asarray(jax_xsf.gammaincinv(xh.reshape(8, 8), np.linspace(0.1, 0.9, 8))) * 2.0
        np.testing.assert_array_equal(np.asarray(y), want)
    print("explicit mesh ok")

    k = jax.jit(jax.shard_map(lambda v: cupy_lazy_apply(np.sqrt, v) + v, mesh=mesh, in_specs=P("x"),
                              out_specs=P("x"), check_vma=True))
    np.testing.assert_allclose(np.asarray(k(x)), np.sqrt(xh) + xh)
    print("cupy_lazy_apply in shard_map ok")
    """
)


def _run_8(script):
    env = dict(os.environ, XLA_FLAGS=os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8")
    env["JAX_PLATFORMS"] = "cpu"  # 8 CPU devices, on a GPU machine too
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return r.stdout


def test_sharded_calls_stay_sharded_without_all_gather():
    out = _run_8(SCRIPT)
    assert out.count("ok") == 6, out


def test_shard_map_with_check_vma_explicit_meshes_and_delegation():
    out = _run_8(MODERN)
    assert out.count("ok") == 3, out
