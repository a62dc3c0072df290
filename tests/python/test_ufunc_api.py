"""Call behaviour of generated ufuncs (jax_xsf) on CPU: argument checking, dtype rules,
broadcasting, shapes, multiple outputs, transformations, platforms and the build contract."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys

import jax
import jax.export
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

jax_xsf = pytest.importorskip("jax_xsf")
from bridgegen_runtime import _library  # noqa: E402


@pytest.mark.parametrize("bad", ["x", None, [1.0, 2.0], object(), {"a": 1}])
def test_non_array_arguments_raise_type_error(bad):
    with pytest.raises(TypeError, match="gammaln: argument 1 is a"):
        jax_xsf.gammaln(bad)


def test_string_arrays_and_unsupported_dtypes_name_the_loops():
    with pytest.raises(TypeError, match=r"not numeric"):
        jax_xsf.gammaln(np.array(["a"]))
    with pytest.raises(TypeError, match=r"supported loops: \(float32\) -> \(float32\); \(float64\) -> \(float64\)"):
        jax.jit(jax_xsf.gammaln)(jnp.ones(3, jnp.complex64))


def test_wrong_argument_count():
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'x'"):
        jax_xsf.gammainc(1.0)


def test_shapes_that_do_not_broadcast_raise_value_error_at_trace_time():
    f = jax.jit(jax_xsf.gammainc)
    with pytest.raises(ValueError, match=r"shapes \(3,\), \(4,\) do not broadcast"):
        f.trace(jax.ShapeDtypeStruct((3,), jnp.float64), jax.ShapeDtypeStruct((4,), jnp.float64))


def test_dtype_rules_follow_scipy():
    assert jax_xsf.gammaln(np.arange(5)).dtype == jnp.float64  # ints -> float64
    assert jax_xsf.gammaln(np.array([True, False])).dtype == jnp.float64
    assert jax_xsf.gammaln(np.float32(3.0)).dtype == jnp.float32  # float32 stays
    assert jax_xsf.gammaln(jnp.ones(2, jnp.float16)).dtype == jnp.float32  # smallest safe loop
    assert jax_xsf.gammainc(np.float32(2.0), 3.0).dtype == jnp.float32  # Python scalars are weak
    assert jax_xsf.gammainc(2.0, 3.0).dtype == jnp.float64
    assert jax_xsf.gamma(np.complex64(1 + 1j)).dtype == jnp.complex64
    assert jax_xsf.lambertw(1.0).dtype == jnp.complex128  # real input, complex-only function
    np.testing.assert_allclose(jax_xsf.lambertw(1.0), sc.lambertw(1.0), rtol=1e-14)
    assert jax_xsf.spherical_jn(np.int32(2), 1.5).dtype == jnp.float64  # integer order loop
    with pytest.raises(TypeError, match="spherical_jn: no type loop"):
        jax_xsf.spherical_jn(2.5, 1.5)  # a float order is not silently truncated


def test_broadcasting_matches_numpy():
    rng = np.random.default_rng()
    a = rng.uniform(0.5, 5, (4, 1, 3))
    x = rng.uniform(0, 5, (2, 1))
    got = jax.jit(jax_xsf.gammainc)(a, x)
    assert got.shape == (4, 2, 3)
    np.testing.assert_array_equal(got, sc.gammainc(a, x))
    got = jax_xsf.gammainc(a, 2.5)
    np.testing.assert_array_equal(got, sc.gammainc(a, 2.5))


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (1,), (7, 5, 3)])
def test_shapes_including_scalar_and_empty(shape):
    x = np.random.default_rng().uniform(0.1, 10, shape)
    got = jax.jit(jax_xsf.digamma)(x)
    assert got.shape == shape
    np.testing.assert_array_equal(got, sc.digamma(x))


def test_large_array_uses_every_element_and_the_thread_pool():
    x = np.random.default_rng().uniform(-50, 50, 1_000_003)
    np.testing.assert_array_equal(jax.jit(jax_xsf.erf)(x), sc.erf(x))


def test_non_contiguous_and_transposed_inputs():
    x = np.random.default_rng().uniform(0.1, 10, (6, 8))
    np.testing.assert_array_equal(jax.jit(lambda v: jax_xsf.gammaln(v.T[::2]))(x), sc.gammaln(x.T[::2]))


def test_multiple_outputs_return_a_tuple():
    x = np.linspace(-5, 5, 11)
    si, ci = jax.jit(jax_xsf.sici)(x)
    np.testing.assert_array_equal(si, sc.sici(x)[0])
    np.testing.assert_array_equal(ci, sc.sici(x)[1])
    out = jax_xsf.airy(np.float32(0.5))
    assert len(out) == 4 and all(o.dtype == jnp.float32 for o in out)


def test_vmap_batches_by_broadcasting():
    a = np.array([0.5, 1.0, 2.0])
    x = np.linspace(0.1, 4, 5)
    got = jax.vmap(jax_xsf.gammainc, in_axes=(0, None))(a, x)
    np.testing.assert_array_equal(got, sc.gammainc(a[:, None], x))
    got = jax.vmap(jax.vmap(jax_xsf.gammainc, in_axes=(None, 0)), in_axes=(0, None))(a, x)
    np.testing.assert_array_equal(got, sc.gammainc(a[:, None], x))
    xm = np.linspace(0.1, 4, 12).reshape(3, 4)
    got = jax.vmap(jax_xsf.gammainc, in_axes=(None, 1))(a[:, None], xm)
    np.testing.assert_array_equal(got, np.stack([sc.gammainc(a[:, None], xm[:, j]) for j in range(4)]))


def test_inside_scan_and_jit_with_other_ops():
    def body(c, x):
        return c + jnp.sum(jax_xsf.gammaln(x + 1.0)), None

    xs = np.random.default_rng().uniform(0, 5, (4, 16))
    total, _ = jax.jit(lambda xs: jax.lax.scan(body, 0.0, xs))(xs)
    np.testing.assert_allclose(total, sc.gammaln(xs + 1.0).sum(), rtol=1e-13)


def test_host_only_loop_raises_at_lowering_for_cuda_naming_the_device_loops():
    # jv's real loops have CUDA kernels (cephes), its complex ones only host loops
    # (`cuda_loops`): a complex call exported for CUDA fails while lowering and says which
    # loops the device has; a real one is lowered for CUDA wherever the build has kernels.
    v, z = jax.ShapeDtypeStruct((3,), jnp.float64), jax.ShapeDtypeStruct((3,), jnp.complex128)
    with pytest.raises(
        NotImplementedError,
        match=r"jax_xsf.jv is not available on platform 'cuda' for this call \(its loop dD->D has no CUDA kernel; "
        r"on cuda it has ff->f, dd->d\); it runs on: cpu",
    ):
        jax.export.export(jax.jit(jax_xsf.jv), platforms=["cuda"])(v, z)
    # Both on CPU.
    checks = [jax.export.DisabledSafetyCheck.custom_call("bridgegen.jax_xsf.jv")]
    jax.export.export(jax.jit(jax_xsf.jv), platforms=["cpu"], disabled_checks=checks)(v, z)
    if "cuda" in jax_xsf._ufuncs["jv"].built:
        exp = jax.export.export(jax.jit(jax_xsf.jv), platforms=["cuda"], disabled_checks=checks)(v, v)
        assert "bridgegen.jax_xsf.jv" in exp.mlir_module()
    assert "On CUDA devices only loops ff->f, dd->d" in jax_xsf.jv.__doc__


def test_unsupported_platform_raises_not_implemented_at_lowering():
    x = jax.ShapeDtypeStruct((3,), jnp.float64)
    # ber (Kelvin, specfun) is CPU-only: exporting for CUDA fails while lowering, naming its
    # platforms and the spec's reason ([[host_only]]), which its docstring gives too.
    with pytest.raises(
        NotImplementedError,
        match=r"jax_xsf.ber is not available on platform 'cuda' \(no CUDA kernels: specfun: `xsf/specfun/specfun.h` "
        r"includes `<memory>`, which NVRTC lacks .*\); it runs on: cpu$",
    ):
        jax.export.export(jax.jit(jax_xsf.ber), platforms=["cuda"])(x)
    assert "No CUDA kernels: specfun:" in jax_xsf.ber.__doc__
    assert "specfun" not in str(jax.make_jaxpr(jax_xsf.ber)(x))  # not a primitive parameter
    checks = [jax.export.DisabledSafetyCheck.custom_call("bridgegen.jax_xsf.gammaln")]
    # gammaln supports CUDA: a library with kernels lowers for it (on this CPU machine too),
    # one built without NVRTC says so at lowering.
    if "cuda" in jax_xsf._ufuncs["gammaln"].built:
        exp = jax.export.export(jax.jit(jax_xsf.gammaln), platforms=["cuda"], disabled_checks=checks)(x)
        assert "bridgegen.jax_xsf.gammaln" in exp.mlir_module()
    else:
        with pytest.raises(NotImplementedError, match="has no cuda kernels.*nvidia-cuda-nvrtc"):
            jax.export.export(jax.jit(jax_xsf.gammaln), platforms=["cuda"])(x)
    # On CPU the same export works.
    exp = jax.export.export(jax.jit(jax_xsf.gammaln), platforms=["cpu"], disabled_checks=checks)(x)
    assert "bridgegen.jax_xsf.gammaln" in exp.mlir_module()


def test_docstrings_and_stubs():
    doc = jax_xsf.gammaln.__doc__
    assert "scipy.special.gammaln" in doc and "https://docs.scipy.org" in doc and "f->f, d->d" in doc
    import inspect

    params = inspect.signature(jax_xsf.gammainc).parameters
    assert list(params) == ["a", "x", "overwrite_input"]
    assert params["overwrite_input"].kind is inspect.Parameter.KEYWORD_ONLY
    stub = (importlib.resources.files("jax_xsf") / "__init__.pyi").read_text()
    assert "def sici(x: ArrayLike, /, *, overwrite_input: bool | None = None) -> tuple[jax.Array, jax.Array]: ..." in stub
    assert set(jax_xsf.__all__) >= {"gammaln", "gammaincinv", "hyp2f1", "kv", "jv"}


def test_library_reports_ffi_api_versions():
    import ctypes

    lib = ctypes.CDLL(os.path.join(os.path.dirname(jax_xsf.__file__), jax_xsf._spec.LIBRARY))
    v = _library.ffi_api_versions(lib)
    assert v["reported"] == (0, 1)
    assert v["header"][0] == 0 and v["header"][1] >= 1


def test_contract_mismatch_is_an_import_error_naming_both(tmp_path):
    # A copy of the package whose Python half claims another contract.
    import shutil

    src = importlib.resources.files("jax_xsf")
    dst = tmp_path / "jax_xsf"
    shutil.copytree(src, dst)
    spec_py = dst / "_spec.py"
    spec_py.write_text(spec_py.read_text().replace('CONTRACT = "bridgegen', 'CONTRACT = "stale bridgegen'))
    code = "import jax_xsf"
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])})
    assert r.returncode != 0
    assert "BuildMismatchError" in r.stderr and "does not match its Python code" in r.stderr
    assert "stale bridgegen" in r.stderr and "bridgegen build" in r.stderr


def test_runtime_error_from_handler_does_not_kill_the_process():
    # Call the FFI target directly with a dtype it has no loop for: XLA reports the
    # handler's error; the process keeps working.
    call = jax.ffi.ffi_call("bridgegen.jax_xsf.gammaln", jax.ShapeDtypeStruct((3,), jnp.int32))
    with pytest.raises(Exception, match=r"no loop for \(int32\) -> \(int32\)"):
        jax.block_until_ready(jax.jit(call)(jnp.ones(3, jnp.int32)))
    np.testing.assert_array_equal(jax_xsf.gammaln(np.array([1.0, 2.0])), [0.0, 0.0])


def _copies(compiled_text):
    """Copies XLA runs as their own ops (not those fused into another kernel)."""
    n, fused = 0, False
    for line in compiled_text.splitlines():
        if line and not line.startswith(" "):
            fused = "fused" in line or "wrapped" in line  # a computation's header
        elif not fused and re.search(r"= \S+ copy\(", line):
            n += 1
    return n


# Loop bodies over a carried value `a` (and the loop's input `v`), by what the default
# (`overwrite_input=None`) should do with the call's alias.
_WRITES_IN_PLACE = {
    "fori_loop": lambda f: lambda v: jax.lax.fori_loop(0, 20, lambda i, a: f(a), v),
    "scan": lambda f: lambda v: jax.lax.scan(lambda a, _: (f(a), None), v, None, length=20)[0],
    "while_loop": lambda f: lambda v: jax.lax.while_loop(lambda c: c[0] < 20, lambda c: (c[0] + 1, f(c[1])), (0, v))[1],
    "jitted body": lambda f: lambda v: jax.lax.fori_loop(0, 20, jax.jit(lambda i, a: f(a)), v),
    "checkpointed body": lambda f: lambda v: jax.lax.fori_loop(0, 20, lambda i, a: jax.checkpoint(f)(a), v),
    "nested loops": lambda f: lambda v: jax.lax.fori_loop(0, 4, lambda j, b: jax.lax.fori_loop(0, 5, lambda i, a: f(a), b), v),
}
_KEEPS_ITS_INPUT = {
    "no loop": lambda f: f,
    "carry used again": lambda f: lambda v: jax.lax.fori_loop(0, 20, lambda i, a: a - 0.01 * f(a), v),
    "loop invariant": lambda f: lambda v: jax.lax.fori_loop(0, 20, lambda i, a: a + f(v), v),
    "carry passed on": lambda f: lambda v: jax.lax.fori_loop(0, 20, lambda i, c: (c[0], f(c[0]) + c[1]), (v, v))[1],
}


@pytest.mark.parametrize("pattern", list(_WRITES_IN_PLACE) + list(_KEEPS_ITS_INPUT))
def test_by_default_a_call_writes_over_a_carried_value_only_where_that_saves_a_copy(pattern):
    x = np.linspace(2.5, 3.5, 1024)
    make = {**_WRITES_IN_PLACE, **_KEEPS_ITS_INPUT}[pattern]
    copies, outs = {}, {}
    for kw in (None, True, False):
        f = jax.jit(make(lambda a, kw=kw: jax_xsf.gammaln(a, overwrite_input=kw)))
        copies[kw] = _copies(f.lower(x).compile().as_text())
        outs[kw] = np.asarray(f(x))
    np.testing.assert_array_equal(outs[None], outs[False])
    np.testing.assert_array_equal(outs[True], outs[False])
    if pattern in _WRITES_IN_PLACE:
        # Without the alias XLA copies the result into the carried buffer each iteration.
        assert copies[None] == copies[True] < copies[False], copies
    else:
        # Here the alias would make XLA copy the input first.
        assert copies[None] == copies[False] < copies[True], copies


def test_by_default_the_carried_operand_is_overwritten_whichever_input_it_is():
    # gammainc(a, x) with `a` loop-invariant and `x` carried: the default picks `x`; True
    # takes the first input of the output's shape and dtype (`a`), which XLA must copy.
    a = np.linspace(1.0, 3.0, 1024)

    def make(kw):
        return jax.jit(lambda v, x: jax.lax.fori_loop(0, 20, lambda i, c: jax_xsf.gammainc(v, c, overwrite_input=kw), x))

    copies = {kw: _copies(make(kw).lower(a, a).compile().as_text()) for kw in (None, True, False)}
    assert copies[None] < copies[False] and copies[None] < copies[True], copies
    want = np.asarray(make(False)(a, a))
    for kw in (None, True):
        np.testing.assert_array_equal(np.asarray(make(kw)(a, a)), want)


def test_overwrite_input_keeps_every_value_that_is_still_needed():
    x = np.random.default_rng(0).uniform(0.5, 20, (8, 16))

    # The jit argument (not donated) and a value used after the call are copied first.
    f = jax.jit(lambda v: (jax_xsf.gammaln(v, overwrite_input=True), v, (lambda a: (jax_xsf.gammaln(a, overwrite_input=True), a))(v * 2)))
    y, v, (z, a) = f(x)
    np.testing.assert_allclose(np.asarray(y), sc.gammaln(x), rtol=1e-13)
    np.testing.assert_array_equal(np.asarray(v), x)
    np.testing.assert_allclose(np.asarray(z), sc.gammaln(2 * x), rtol=1e-13)
    np.testing.assert_array_equal(np.asarray(a), 2 * x)
    # No input of the output's shape and dtype (broadcast, or promoted): nothing to alias.
    np.testing.assert_allclose(
        np.asarray(jax.jit(lambda a, b: jax_xsf.gammaincinv(a, b, overwrite_input=True))(x[:1], x[:, :1] / 40)),
        sc.gammaincinv(x[:1], x[:, :1] / 40), rtol=1e-12,
    )  # fmt: skip
    np.testing.assert_allclose(np.asarray(jax.jit(lambda k: jax_xsf.gammaln(k, overwrite_input=True))(np.arange(1, 5))), sc.gammaln(np.arange(1, 5)), rtol=1e-13)
    # Through vmap and grad.
    np.testing.assert_allclose(
        np.asarray(jax.vmap(lambda r: jax_xsf.gammaln(r, overwrite_input=True))(x)), sc.gammaln(x), rtol=1e-13
    )
    np.testing.assert_allclose(
        np.asarray(jax.vmap(jax.grad(lambda s: jax_xsf.gammaln(s * 1.0, overwrite_input=True)))(x[0])), sc.digamma(x[0]), rtol=1e-12
    )


def test_overwrite_input_must_be_a_bool():
    with pytest.raises(TypeError, match="overwrite_input must be None, True or False"):
        jax_xsf.gammaln(np.ones(3), overwrite_input="yes")
