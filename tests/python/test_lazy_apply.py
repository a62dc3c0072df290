"""lazy_apply keeps array_api_extra.lazy_apply's contract (array-api-extra's own suite runs
in test_array_api_extra.py): callers that pass NumPy arrays, mixed NumPy/JAX arguments,
Python scalars and None, eagerly and under jit. CPU here; GPU under the `gpu` marker."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jax_cupy_bridge import lazy_apply


class Boom(Exception):
    pass


# --- NumPy callers: eager, NumPy in, NumPy out ---------------------------------------------


def test_numpy_inputs_run_eagerly_and_return_numpy():
    calls = []

    def f(a, b):
        calls.append((type(a), type(b)))
        a[0] = 7.0  # a caller's own NumPy array: writeable, as it was
        return a + b

    a = np.zeros(3)
    out = lazy_apply(f, a, np.ones(3))
    assert type(out) is np.ndarray and calls == [(np.ndarray, np.ndarray)]
    np.testing.assert_array_equal(out, [8.0, 1.0, 1.0])
    assert a[0] == 7.0


def test_numpy_inputs_with_scalars_none_and_multi_output():
    def f(x, none, k):
        assert none is None and k == 3 and isinstance(k, int)  # scalars untouched when eager
        return x * k, np.argsort(x)

    s, idx = lazy_apply(f, np.array([3.0, 1.0]), None, 3, shape=((2,), (2,)), dtype=(np.float64, np.int64))
    assert type(s) is np.ndarray and type(idx) is np.ndarray
    np.testing.assert_array_equal(s, [9.0, 3.0])
    np.testing.assert_array_equal(idx, [1, 0])


def test_numpy_inputs_allow_unknown_shapes_and_keep_exception_types():
    out = lazy_apply(np.unique, np.array([1, 1, 2]), shape=(None,))
    np.testing.assert_array_equal(out, [1, 2])

    def bad(x):
        raise Boom("numpy caller")

    with pytest.raises(Boom, match="numpy caller"):
        lazy_apply(bad, np.ones(2))


# --- JAX callers, eager -------------------------------------------------------------------


def test_eager_jax_runs_now_with_jax_arrays_and_keeps_exception_types():
    seen = []

    def f(x):
        seen.append(type(x))
        return x + 1

    y = lazy_apply(f, jnp.arange(3.0))
    assert isinstance(y, jax.Array) and seen == [type(jnp.arange(3.0))]
    np.testing.assert_array_equal(y, [1.0, 2.0, 3.0])

    def bad(x):
        raise Boom("eager")

    with pytest.raises(Boom, match="eager"):
        lazy_apply(bad, jnp.ones(2))
    out = lazy_apply(jnp.unique, jnp.array([2, 2, 5]), shape=(None,))  # unknown shape: fine eagerly
    np.testing.assert_array_equal(out, [2, 5])


def test_eager_jax_casts_to_the_declared_dtype():
    y = lazy_apply(np.argsort, jnp.array([3.0, 1.0, 2.0]), as_numpy=True, dtype=jnp.int32)
    assert y.dtype == jnp.int32
    np.testing.assert_array_equal(y, [1, 2, 0])


# --- JAX callers under jit -----------------------------------------------------------------


def test_jit_func_receives_jax_arrays_and_numpy_with_as_numpy():
    seen = []

    def f(x):
        seen.append(type(x))
        return x * 2

    for as_numpy, want in ((False, type(jnp.zeros(1))), (True, np.ndarray)):
        seen.clear()
        y = jax.jit(lambda v: lazy_apply(f, v, as_numpy=as_numpy))(jnp.arange(3.0))
        np.testing.assert_array_equal(y, [0.0, 2.0, 4.0])
        assert seen == [want], (as_numpy, seen)


def test_jit_mixed_numpy_and_jax_arguments_scalars_and_none():
    def f(x, table, none, k):
        assert none is None
        assert getattr(k, "shape", None) == ()  # a Python scalar arrives as a 0-d array under jit
        return x + table * k

    table = np.array([10.0, 20.0, 30.0])  # a NumPy constant among traced JAX arguments
    y = jax.jit(lambda v: lazy_apply(f, v, table, None, 2))(jnp.ones(3))
    np.testing.assert_array_equal(y, [21.0, 41.0, 61.0])


def test_jit_result_is_cast_to_the_declared_dtype():
    # NumPy's argsort returns int64; the call declares int32 (JAX's default without x64).
    y = jax.jit(lambda v: lazy_apply(np.argsort, v, as_numpy=True, dtype=jnp.int32))(jnp.array([3.0, 1.0, 2.0]))
    assert y.dtype == jnp.int32
    np.testing.assert_array_equal(y, [1, 2, 0])
    z = jax.jit(lambda v: lazy_apply(lambda a: [1, 2, 3], v, shape=(3,), dtype=jnp.float32))(jnp.ones(3))
    assert z.dtype == jnp.float32
    np.testing.assert_array_equal(z, [1.0, 2.0, 3.0])


def test_jit_unknown_shape_is_refused_with_array_api_extras_message():
    with pytest.raises(ValueError, match="Output shape must be fully known"):
        jax.jit(lambda v: lazy_apply(jnp.unique, v, shape=(None,))).trace(jnp.ones(3))


def test_jit_exception_fails_the_computation_with_its_type_named():
    def bad(x):
        raise Boom("inside jit")

    with pytest.raises(Exception, match="Boom.*inside jit"):
        jax.block_until_ready(jax.jit(lambda v: lazy_apply(bad, v))(jnp.ones(2)))
    # The process keeps working.
    np.testing.assert_array_equal(jax.jit(lambda v: lazy_apply(lambda a: a + 1, v))(jnp.ones(2)), [2.0, 2.0])


def test_as_cupy_on_cpu_gives_read_only_numpy_views():
    seen = {}

    def f(x):
        seen["type"], seen["writeable"] = type(x), x.flags.writeable
        return x + 1

    y = jax.jit(lambda v: lazy_apply(f, v, as_cupy=True))(jax.device_put(jnp.ones(4), jax.devices("cpu")[0]))
    np.testing.assert_array_equal(y, np.full(4, 2.0))
    assert seen == {"type": np.ndarray, "writeable": False}


def test_invalid_arguments_use_array_api_extras_messages():
    f = lambda x: x  # noqa: E731
    x = np.asarray(1)
    with pytest.raises(ValueError, match="at least one argument array"):
        lazy_apply(f, shape=(1,), dtype=np.int32)
    with pytest.raises(ValueError, match="at least one argument array"):
        lazy_apply(f, 1, shape=(1,), dtype=np.int32)
    with pytest.raises(ValueError, match="multiple shapes but only one dtype"):
        lazy_apply(f, x, shape=[(1,), (2,)], dtype=np.int32)
    with pytest.raises(ValueError, match="single shape but multiple dtypes"):
        lazy_apply(f, x, shape=(1,), dtype=[np.int32, np.int64])
    with pytest.raises(ValueError, match="2 shapes and 1 dtypes"):
        lazy_apply(f, x, shape=[(1,), (2,)], dtype=[np.int32])
    with pytest.raises(ValueError, match="keyword argument 'w' is an array"):
        lazy_apply(lambda a, w: a, jnp.ones(2), w=np.ones(2))


# --- GPU -------------------------------------------------------------------------------------


def _gpu(x):
    return jax.device_put(x, jax.devices("cuda")[0])


@pytest.mark.gpu
def test_gpu_default_gives_jax_arrays_and_as_numpy_host_arrays():
    seen = []

    def f(x):
        seen.append(type(x))
        return x * 2

    for as_numpy, want in ((False, type(jnp.zeros(1))), (True, np.ndarray)):
        seen.clear()
        y = jax.jit(lambda v: lazy_apply(f, v, as_numpy=as_numpy))(_gpu(jnp.arange(3.0)))
        assert y.devices() == {jax.devices("cuda")[0]}
        np.testing.assert_array_equal(np.asarray(y), [0.0, 2.0, 4.0])
        assert seen == [want], (as_numpy, seen)


@pytest.mark.gpu
def test_gpu_as_cupy_is_the_explicit_zero_copy_choice():
    cupy = pytest.importorskip("cupy")
    seen = []

    def f(x):
        seen.append(type(x))
        return cupy.argsort(x)  # int64, cast to the declared int32

    y = jax.jit(lambda v: lazy_apply(f, v, as_cupy=True, dtype=jnp.int32))(_gpu(jnp.array([3.0, 1.0, 2.0])))
    assert seen == [cupy.ndarray] and y.dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(y), [1, 2, 0])
