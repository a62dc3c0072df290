"""specs/cupyx.toml: generated wrappers over CuPy callables (`[[function]]`), on CPU
against their NumPy/SciPy counterparts, on GPU (marker `gpu`) against CuPy itself."""

from __future__ import annotations

import jax
import numpy as np
import pytest
import scipy.fft
import scipy.ndimage as nd
import scipy.signal as sg
import scipy.special as sc

jax_cupy = pytest.importorskip("jax_cupy")

RNG = np.random.default_rng()


def cases():
    x = RNG.normal(size=(24, 20))
    a, b = RNG.normal(size=40), RNG.normal(size=7)
    r = np.fft.rfft(x)
    p = RNG.uniform(0.1, 20.0, 64)
    return [
        ("gaussian_filter", (x,), dict(sigma=1.5, mode="nearest"), lambda: nd.gaussian_filter(x, 1.5, mode="nearest")),
        ("median_filter", (x,), dict(size=5), lambda: nd.median_filter(x, 5)),
        ("fftconvolve", (a, b), dict(mode="full"), lambda: sg.fftconvolve(a, b, "full")),
        ("fftconvolve", (a, b), dict(mode="valid"), lambda: sg.fftconvolve(a, b, "valid")),
        ("fftconvolve", (a, b), dict(mode="same"), lambda: sg.fftconvolve(a, b, "same")),
        ("rfft", (x,), {}, lambda: scipy.fft.rfft(x)),
        ("irfft", (r,), dict(n=20), lambda: np.fft.irfft(r, n=20)),
        ("k0", (p,), {}, lambda: sc.k0(p)),
        ("k1", (p,), {}, lambda: sc.k1(p)),
        ("i0e", (p,), {}, lambda: sc.i0e(p)),
        ("zeta", (p + 1.5, p), {}, lambda: sc.zeta(p + 1.5, p)),
    ]


IDS = [f"{c[0]}-{'-'.join(map(str, c[2].values()))}" for c in cases()]


@pytest.mark.parametrize("i", range(len(IDS)), ids=IDS)
def test_matches_scipy_on_cpu(i):
    name, args, params, want = cases()[i]
    cpu = jax.devices("cpu")[0]
    got = jax.jit(lambda *a: getattr(jax_cupy, name)(*a, **params))(*jax.device_put(args, cpu))
    w = want()
    assert got.shape == w.shape and got.dtype == w.dtype
    np.testing.assert_allclose(np.asarray(got), w, rtol=1e-12, atol=1e-12)


def test_parameters_and_dtypes_are_checked_at_trace_time():
    x = np.ones((4, 4))
    with pytest.raises(ValueError, match="mode must be one of 'reflect'"):
        jax.jit(lambda v: jax_cupy.gaussian_filter(v, mode="bogus")).trace(x)
    with pytest.raises(TypeError, match="sigma must be a float"):
        jax.jit(lambda v: jax_cupy.gaussian_filter(v, sigma="wide")).trace(x)
    with pytest.raises(TypeError, match="accepted: float32, float64"):
        jax.jit(jax_cupy.gaussian_filter).trace(x.astype(np.int32))
    with pytest.raises(ValueError, match="rank 1"):
        jax.jit(jax_cupy.fftconvolve).trace(x, x)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'n'"):
        jax_cupy.irfft(np.ones(3, np.complex128))


def test_docstrings_and_stubs_name_both_callables():
    doc = jax_cupy.gaussian_filter.__doc__
    assert "cupyx.scipy.ndimage.gaussian_filter" in doc and "scipy.ndimage.gaussian_filter" in doc
    import pathlib

    stub = (pathlib.Path(jax_cupy.__file__).parent / "__init__.pyi").read_text()
    assert "def irfft(x: ArrayLike, /, *, n: int) -> jax.Array: ..." in stub


@pytest.mark.gpu
@pytest.mark.parametrize("i", range(len(IDS)), ids=IDS)
def test_matches_cupy_on_gpu(i):
    cupy = pytest.importorskip("cupy")
    import importlib

    name, args, params, _ = cases()[i]
    path = jax_cupy._spec.FUNCTIONS[name]["cupy"]
    module, attr = path.rsplit(".", 1)
    want = getattr(importlib.import_module(module), attr)(*[cupy.asarray(a) for a in args], **params)
    got = jax.jit(lambda *a: getattr(jax_cupy, name)(*a, **params))(*jax.device_put(args, jax.devices("cuda")[0]))
    np.testing.assert_allclose(np.asarray(got), cupy.asnumpy(want), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["gaussian_filter", "k0", "rfft"])
def test_vmap_follows_the_spec_batching(name):
    xs = RNG.uniform(0.5, 3.0, (3, 8, 6))
    f = getattr(jax_cupy, name)
    got = jax.jit(jax.vmap(f))(xs)
    want = np.stack([np.asarray(f(x)) for x in xs])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13, atol=1e-13)
    assert jax_cupy._spec.FUNCTIONS[name]["batching"] == ("sequential" if name == "gaussian_filter" else "broadcast_all")
