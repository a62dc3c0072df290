"""The CUDA path (marker `gpu`): against CuPy's own kernels, shapes, sizes past 2^31
elements, loops, XLA command buffers, device placement, and failures.

Accuracy of every device ufunc against SciPy lives in test_accuracy.py. Run on the GPU
machine with BRIDGEGEN_POISON_OUTPUTS=1 (outputs filled with NaN bytes before each
kernel) and BRIDGEGEN_REQUIRE_GPU=1 (`just test-gpu`, docs/gpu.md).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

from conftest import command_buffer_env
from conditioning import KAPPA_NEAR_ZERO, condition_numbers, scipy_function
from near_one import assert_within_ulps_of_scipy, near_one_args
from test_accuracy import UFUNCS, random_args

jax_xsf = pytest.importorskip("jax_xsf")
pytestmark = pytest.mark.gpu

# cupyx.scipy.special functions that CuPy 14.2 implements with the same xsf code (its
# `#include <cupy/xsf/...>` preambles): the results must agree to 2 ulp. The others are
# CuPy's own Cephes ports or intrinsics, compared at 1e-10 relative on moderate inputs.
CUPY_XSF = {"digamma", "sici", "shichi", "wright_bessel", "lambertw", "ellipkinc", "ellipeinc"}
# CuPy compiles each of its kernels with NVRTC on first use, up to minutes for its Cephes
# ports (gammaincinv, bdtri, ...), so beyond the xsf set only a few quick ones are compared.
CUPY_QUICK = {"gammaln", "erf", "erfc", "ndtr", "ndtri", "cbrt", "exp2", "i0", "j0", "y1", "k0", "log1p", "xlogy", "entr", "boxcox"}


def gpu():
    return jax.devices("cuda")[0]


def cupy_cases():
    for name, u in sorted(UFUNCS.items()):
        if "cuda" in u.get("platforms", ["cpu", "cuda"]) and u.get("cupy") and name in CUPY_XSF | CUPY_QUICK:
            for sig in u["loops"]:
                sig = sig.split(" as ")[0]
                if sig not in u.get("cuda_loops", [sig]):
                    continue
                # CuPy's loops: real float loops everywhere; complex only where it has them.
                yield pytest.param(name, sig, id=f"{name}[{sig}]")


def ulp_distance(a, b):
    """Distance in units in the last place between same-dtype float arrays."""
    itype = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ai, bi = a.view(itype).astype(np.int64), b.view(itype).astype(np.int64)
    # Map the sign-magnitude bit patterns onto a monotonic integer line.
    top = np.int64(1) << (8 * a.dtype.itemsize - 1)
    ai = np.where(ai < 0, -(ai + top), ai)
    bi = np.where(bi < 0, -(bi + top), bi)
    return np.abs(ai - bi)


def same_nvrtc_major_as_cupy(cupy) -> bool:
    import importlib
    import json

    ours = json.loads(importlib.import_module("jax_xsf._build").BUILD_INFO).get("nvrtc", "").split(".")[0]
    return ours == str(cupy.cuda.nvrtc.getVersion()[0])


@pytest.mark.parametrize("name,sig", list(cupy_cases()))
def test_matches_cupy(name, sig):
    cupy = pytest.importorskip("cupy")
    import importlib

    u = UFUNCS[name]
    module, attr = u["cupy"].rsplit(".", 1)
    cufn = getattr(importlib.import_module(module), attr)
    # The same xsf code compiled by the same NVRTC major version as CuPy's: compared in ulp.
    # Across CUDA 12 and 13 NVRTC (a -cuda12 wheel beside a CuPy on CUDA 13) the code
    # generation differs (complex sici: 64 ulp, 2026-12-03), so at the SciPy tolerances.
    strict = name in CUPY_XSF and same_nvrtc_major_as_cupy(cupy)
    rng = np.random.default_rng()
    uu = dict(u, test=dict(u.get("test", {}), skip_edges=True)) if not strict else u
    args = random_args(uu, sig, rng)
    try:
        want = cufn(*[cupy.asarray(a) for a in args])
    except (TypeError, NotImplementedError) as e:  # a loop CuPy does not have
        pytest.skip(f"CuPy has no {sig} loop for {name}: {e}")
    want = want if isinstance(want, tuple) else (want,)
    got = jax.jit(getattr(jax_xsf, name))(*jax.device_put(args, gpu()))
    got = got if isinstance(got, tuple) else (got,)
    # Near a zero or a branch point of an output (condition number > 10, from SciPy)
    # allowances grow with the condition number, as in test_accuracy.
    ref_args = [a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) for a in args]
    with np.errstate(all="ignore"):
        ref = scipy_function(u)(*ref_args)
    ref = ref if isinstance(ref, tuple) else (ref,)
    kappas = condition_numbers(scipy_function(u), ref_args, [np.asarray(r) for r in ref])
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), cupy.asnumpy(w)
        if w.dtype != g.dtype:
            pytest.skip(f"CuPy's {name} returns {w.dtype} for {sig}")
        assert np.array_equal(np.isnan(g), np.isnan(w)), f"{name}[{sig}]: NaN pattern differs from CuPy"
        both = np.isfinite(g) & np.isfinite(w)
        assert np.array_equal(g[~both & ~np.isnan(g)], w[~both & ~np.isnan(w)]), f"{name}[{sig}]: infinities differ"
        kappa = kappas[k]
        if strict:
            # The same xsf code with the same options: 2 ulp where the function is well
            # conditioned. Where it is not, the ulp of difference that inlining into another
            # kernel may bring (FMA contraction) is amplified like any other error.
            ulps = 2 * np.where(kappa > KAPPA_NEAR_ZERO, kappa, 1.0)[both]
            parts = [(g.real, w.real), (g.imag, w.imag)] if np.iscomplexobj(g) else [(g, w)]
            for gp, wp in parts:
                d = ulp_distance(np.ascontiguousarray(gp[both]), np.ascontiguousarray(wp[both]))
                worst = int(np.argmax(d / ulps)) if d.size else 0
                assert d.size == 0 or d[worst] <= ulps[worst], (
                    f"{name}[{sig}]: {d[worst]} ulp from CuPy's xsf kernel (allowed {ulps[worst]:.3g})"
                )
        else:
            tol = 1e-4 if g.dtype in (np.float32, np.complex64) else 1e-10
            allowed = tol * np.where(kappa > KAPPA_NEAR_ZERO, kappa, 1.0)[both]
            with np.errstate(all="ignore"):
                err = np.abs(g[both] - w[both]) / np.maximum(np.abs(w[both]), np.finfo(g.dtype).tiny)
            worst = int(np.argmax(err / allowed)) if err.size else 0
            assert err.size == 0 or err[worst] <= allowed[worst], (
                f"{name}[{sig}]: relative difference {err[worst]:.3g} from CuPy (allowed {allowed[worst]:.3g})"
            )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["logit", "rel_entr"])
def test_log_ratio_near_one(name, dtype):
    """logit's and rel_entr's kernels take one log of a rounded ratio plus its rounding error
    (specs/xsf/convenience.toml's log_one_call): near a ratio of 1, where a plain log of the
    ratio (cupyx's) is off by up to 1e15 ulps, they agree with SciPy to 4 ulps."""
    args = near_one_args(name, dtype, 1 << 16, np.random.default_rng())
    got = jax.jit(getattr(jax_xsf, name))(*jax.device_put(args, gpu()))
    assert_within_ulps_of_scipy(f"{name}({dtype.__name__})", got, args, getattr(sc, name), dtype)


def test_same_function_on_both_platforms():
    x = np.random.default_rng().uniform(0.1, 30.0, 4096)
    on_cpu = jax.jit(jax_xsf.gammaln)(jax.device_put(x, jax.devices("cpu")[0]))
    on_gpu = jax.jit(jax_xsf.gammaln)(jax.device_put(x, gpu()))
    assert on_cpu.devices() == {jax.devices("cpu")[0]} and on_gpu.devices() == {gpu()}
    # atol: near gammaln's zeros (x = 1, 2) relative differences of an ulp are large.
    np.testing.assert_allclose(np.asarray(on_gpu), np.asarray(on_cpu), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(np.asarray(on_gpu), sc.gammaln(x), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize(
    "shapes",
    [[()], [(0,)], [(3, 0)], [(1,)], [(5,), ()], [(4, 1), (1, 5)], [(2, 3, 4), (3, 1)], [(2, 1, 4, 1, 3), (4, 5, 1)]],
    ids=str,
)
def test_shapes_and_broadcasting(shapes):
    rng = np.random.default_rng()
    if len(shapes) == 1:
        x = rng.uniform(0.5, 20, shapes[0])
        got = jax.jit(jax_xsf.gammaln)(jax.device_put(x, gpu()))
        want = sc.gammaln(x)
    else:
        a, y = rng.uniform(0.5, 20, shapes[0]), rng.uniform(0.01, 0.99, shapes[1])
        got = jax.jit(jax_xsf.gammaincinv)(jax.device_put(a, gpu()), jax.device_put(y, gpu()))
        want = sc.gammaincinv(a, y)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


def test_transposed_and_sliced_inputs():
    x = np.random.default_rng().uniform(0.5, 20, (64, 48))
    xs = jax.device_put(x, gpu())
    f = jax.jit(lambda v: (jax_xsf.gammaln(v.T), jax_xsf.gammaln(v[::3, 1::2])))
    t, s = f(xs)
    # atol: near gammaln's zeros (x = 1, 2) relative differences of an ulp are large.
    np.testing.assert_allclose(np.asarray(t), sc.gammaln(x.T), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(np.asarray(s), sc.gammaln(x[::3, 1::2]), rtol=1e-13, atol=1e-15)


def test_inside_scan_and_fori_loop():
    x = jax.device_put(np.linspace(0.5, 5.0, 1000), gpu())

    def body(i, acc):
        return acc + jax_xsf.gammaln(x + i)

    got = jax.jit(lambda: jax.lax.fori_loop(0, 20, body, jnp.zeros_like(x)))()
    want = sum(sc.gammaln(np.linspace(0.5, 5.0, 1000) + i) for i in range(20))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)

    def step(c, xi):
        return c + jax_xsf.erf(xi), jax_xsf.ndtri(jax_xsf.ndtr(xi))

    c, ys = jax.jit(lambda v: jax.lax.scan(step, 0.0, v))(jax.device_put(np.linspace(-3, 3, 64), gpu()))
    np.testing.assert_allclose(np.asarray(ys), np.linspace(-3, 3, 64), rtol=1e-10)
    # The sum over a symmetric grid is ~0: compare absolutely.
    np.testing.assert_allclose(float(c), sc.erf(np.linspace(-3, 3, 64)).sum(), atol=1e-12)


def test_overwrite_input_in_a_loop_on_the_gpu():
    # x -> gammaln(x) / 2 + 2 contracts (|digamma / 2| < 1 near its fixed point), so
    # rounding differences do not grow over the iterations.
    x = jax.device_put(np.linspace(2.5, 3.5, 4096), gpu())
    outs = [
        jax.jit(lambda v, kw=kw: jax.lax.fori_loop(0, 30, lambda i, acc: jax_xsf.gammaln(acc, **kw) / 2 + 2, v))(x)
        for kw in ({"overwrite_input": False}, {"overwrite_input": True}, {})
    ]
    want = np.linspace(2.5, 3.5, 4096)
    for _ in range(30):
        want = sc.gammaln(want) / 2 + 2
    np.testing.assert_array_equal(np.asarray(outs[1]), np.asarray(outs[0]))
    np.testing.assert_array_equal(np.asarray(outs[2]), np.asarray(outs[0]))  # in place by default
    np.testing.assert_allclose(np.asarray(outs[1]), want, rtol=1e-13)
    # The jit argument survives (XLA copies it before the in-place call).
    y = jax.jit(lambda v: jax_xsf.gammaln(v, overwrite_input=True))(x)
    np.testing.assert_array_equal(np.asarray(x), np.linspace(2.5, 3.5, 4096))
    np.testing.assert_allclose(np.asarray(y), sc.gammaln(np.linspace(2.5, 3.5, 4096)), rtol=1e-13, atol=1e-15)


def test_device_ordinal_of_the_call_is_used():
    # One GPU here: every visible device in turn (two-GPU runs: issue 7's test).
    for dev in jax.devices("cuda"):
        x = jax.device_put(np.linspace(0.5, 3.0, 257), dev)
        y = jax.jit(jax_xsf.digamma)(x)
        assert y.devices() == {dev}
        np.testing.assert_allclose(np.asarray(y), sc.digamma(np.linspace(0.5, 3.0, 257)), rtol=1e-13)


def test_past_two_to_the_31_elements():
    n = (1 << 31) + 7

    @jax.jit
    def f():
        x = (jax.lax.iota(jnp.uint32, n) % 1021).astype(jnp.float32) * 0.01 + 0.5
        return jax_xsf.gammaln(x)

    out = f()
    assert out.shape == (n,)
    idx = np.array([0, 1, 1020, (1 << 31) - 1, 1 << 31, n - 1])
    got = np.asarray(out[idx])
    x = ((idx % 1021).astype(np.float32) * np.float32(0.01) + np.float32(0.5)).astype(np.float32)
    np.testing.assert_allclose(got, sc.gammaln(x.astype(np.float64)).astype(np.float32), rtol=1e-5)
    del out


def test_broadcast_past_two_to_the_31_elements():
    # Kernels index in 32 bits: the runtime splits this (3, 2^30 + 5) output, whose rows
    # cannot merge (x broadcasts along them), into one launch a row, each a 2-d geometry
    # with its own base pointers (for_each_launch in runtime/rust/src/cuda/mod.rs).
    m = (1 << 30) + 5

    @jax.jit
    def f():
        x = (jnp.arange(3, dtype=jnp.float32) + 1.0)[:, None]
        y = (jax.lax.iota(jnp.uint32, m) % 1021).astype(jnp.float32) * 0.01 + 0.5
        return jax_xsf.xlogy(x, y)

    out = f()
    assert out.shape == (3, m)
    rows = np.array([0, 0, 1, 1, 2, 2, 2])
    cols = np.array([0, m - 1, 0, 1020, 1, (1 << 30) - 1, m - 1])
    got = np.asarray(out[rows, cols])
    y = ((cols % 1021).astype(np.float32) * np.float32(0.01) + np.float32(0.5)).astype(np.float64)
    np.testing.assert_allclose(got, ((rows + 1) * np.log(y)).astype(np.float32), rtol=1e-6)
    del out


COMMAND_BUFFER_SCRIPT = textwrap.dedent(
    """
    import jax, jax.numpy as jnp, numpy as np, scipy.special as sc
    jax.config.update("jax_enable_x64", True)
    import jax_xsf
    @jax.jit
    def f(x, y):
        a = jax_xsf.gammaln(x) + 1.0
        b = jax_xsf.digamma(a) * 2.0
        c = jax_xsf.erf(b - y)
        d = jax_xsf.ndtri(jax_xsf.ndtr(c))
        return jax.lax.fori_loop(0, 5, lambda i, acc: acc + jax_xsf.erf(acc), d)
    def ref(x, y):
        d = sc.ndtri(sc.ndtr(sc.erf(sc.digamma(sc.gammaln(x) + 1.0) * 2.0 - y)))
        for _ in range(5):
            d = d + sc.erf(d)
        return d
    rng = np.random.default_rng(0)
    for i in range(6):
        x, y = rng.uniform(0.5, 5, 4096), rng.uniform(-1, 1, 4096)
        np.testing.assert_allclose(np.asarray(f(x, y)), ref(x, y), rtol=1e-11)
    print("ok")
    """
)


def test_under_xla_command_buffers():
    r = subprocess.run([sys.executable, "-c", COMMAND_BUFFER_SCRIPT], env=command_buffer_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]


STACK_FRAME_SCRIPT = textwrap.dedent(
    """
    import jax, numpy as np, scipy.special as sc
    jax.config.update("jax_enable_x64", True)
    import jax_xsf
    # Kernels whose stack frames pass CUDA's default 1 KiB a thread (1.3-1.7 KB with the
    # device's basym), alone in a fresh process under XLA's command buffers, so that no
    # other module (hyp2f1's 4 KiB) has raised the context's stack limit: their spec's
    # cuda_stack must. Left at 1 KiB they failed with CUDA_ERROR_ILLEGAL_ADDRESS (2026-12-07).
    @jax.jit
    def f(a, b, x):
        y = jax_xsf.betainc(a, b, x)
        return y, jax_xsf.betaincinv(a, b, y), jax_xsf.betainccinv(a, b, 1 - y)
    rng = np.random.default_rng(0)
    for i in range(4):
        # Past 1e3 near the mean, where the device takes basym.
        a, b = 10 ** rng.uniform(3, 4, (2, 1 << 16))
        x = a / (a + b) * (1 + rng.uniform(-0.01, 0.01, 1 << 16))
        y, xi, xc = (np.asarray(v) for v in f(a, b, x))
        np.testing.assert_allclose(y, sc.betainc(a, b, x), rtol=1e-10)
        np.testing.assert_allclose(xi, x, rtol=1e-12)
        np.testing.assert_allclose(xc, x, rtol=1e-12)
    print("ok")
    """
)


def test_kernels_past_the_default_stack_in_a_fresh_process():
    r = subprocess.run([sys.executable, "-c", STACK_FRAME_SCRIPT], env=command_buffer_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]


def test_unmergeable_broadcast_past_the_kernel_rank_is_an_error_not_a_crash():
    # Nine alternating broadcast axes cannot be merged below eight.
    a = np.ones((2, 1) * 4 + (2,))
    y = np.full((1, 2) * 4 + (1,), 0.5)
    with pytest.raises(Exception, match="cannot be merged"):
        jax.block_until_ready(jax.jit(jax_xsf.gammaincinv)(jax.device_put(a, gpu()), jax.device_put(y, gpu())))
    # The process keeps working.
    np.testing.assert_allclose(float(jax.jit(jax_xsf.gammaln)(jax.device_put(3.0, gpu()))), np.log(2.0), rtol=1e-14)


def test_cpu_only_function_raises_on_gpu_at_lowering():
    with pytest.raises(NotImplementedError, match="not available on platform 'cuda'"):
        jax.jit(jax_xsf.ber)(jax.device_put(1.5, gpu()))
