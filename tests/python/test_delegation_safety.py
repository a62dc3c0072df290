"""Delegated calls are safe: a call never fails because the Python object of its trace was
collected, eager calls compile once per signature, input views cannot be made writeable,
and a view kept past its call is an error instead of a dangling pointer. At 2^23 elements,
eager and jitted; CPU here, the CuPy half under the `gpu` marker (docs/lazy.md, "Views")."""

from __future__ import annotations

import gc

import jax
import jax.monitoring
import numpy as np
import pytest

from jax_cupy_bridge import _callback, cupy_lazy_apply

N = 1 << 23


def _double(a, out):
    np.multiply(a, 2.0, out=out)


@pytest.fixture(scope="module")
def big():
    return jax.device_put(np.arange(N, dtype=np.float64), jax.devices("cpu")[0])


def _check_all(results, want):
    for k, y in enumerate(results):
        np.testing.assert_array_equal(np.asarray(y), want, err_msg=f"call {k}")


def test_eager_calls_never_lose_their_call_site(big):
    results = [cupy_lazy_apply(_double, big, out_arg=True) for _ in range(10)]  # queued back to back
    _check_all(results, np.arange(N) * 2.0)


def test_a_fresh_jit_per_call_never_loses_its_call_site(big):
    results = [jax.jit(lambda a: cupy_lazy_apply(_double, a * 2, out_arg=True))(big) for _ in range(10)]
    gc.collect()  # every traced function is gone before most of the calls ran
    _check_all(results, np.arange(N) * 4.0)


class _Compiles:
    def __init__(self):
        self.n = 0

    def __call__(self, event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            self.n += 1


def test_eager_calls_compile_once_per_signature(big):
    counter = _Compiles()
    jax.monitoring.register_event_duration_secs_listener(counter)
    try:
        jax.block_until_ready(cupy_lazy_apply(_double, big, out_arg=True))
        ids, first = _callback.live_ids(), counter.n
        for _ in range(5):
            jax.block_until_ready(cupy_lazy_apply(_double, big, out_arg=True))
        assert counter.n == first, f"{counter.n - first} compilations for 5 eager calls of one signature"
        assert _callback.live_ids() == ids  # and no new call site either
        small = np.arange(8.0)
        jax.block_until_ready(cupy_lazy_apply(_double, small, out_arg=True))  # a new signature compiles
        assert counter.n > first
    finally:
        jax.monitoring.clear_event_listeners()


def test_dead_call_sites_are_bounded(monkeypatch):
    monkeypatch.setattr(_callback, "_RETAINED", 16)
    x = np.ones(4)
    for k in range(40):  # distinct call sites, each traced once and dropped
        jax.block_until_ready(jax.jit(lambda v, k=k: cupy_lazy_apply(np.multiply, v, k))(x))
    jax.clear_caches()  # JAX's caches (and the executables in them) held the call sites
    gc.collect()
    assert len(_callback._retired) <= 16
    assert _callback.retained_ids() <= 16 + _callback.live_ids()


# --- views ---------------------------------------------------------------------------------


def test_input_views_cannot_be_made_writeable(big):
    seen = {}

    def f(a):
        for what, attempt in (("flag", lambda: setattr(a.flags, "writeable", True)), ("write", lambda: a.__setitem__(0, 1.0))):
            try:
                attempt()
                seen[what] = "allowed"
            except ValueError:
                seen[what] = "refused"
        v = a[::2]
        try:
            v.flags.writeable = True
            seen["derived"] = "allowed"
        except ValueError:
            seen["derived"] = "refused"
        return a + 1.0

    y = jax.jit(lambda v: cupy_lazy_apply(f, v))(big)
    np.testing.assert_array_equal(np.asarray(y[:3]), [1.0, 2.0, 3.0])
    assert seen == {"flag": "refused", "write": "refused", "derived": "refused"}
    assert float(big[0]) == 0.0  # the caller's immutable array is untouched


_kept: list = []


def _keep_input(a):
    _kept.append(a)
    return a + 1.0


def _keep_output(a, out):
    _kept.append(out)
    np.add(a, 1.0, out=out)


def _keep_derived(a):
    _kept.append(a[10:20].reshape(2, 5))  # a view of a view
    return a + 1.0


@pytest.mark.parametrize(
    "func, out_arg, what",
    [(_keep_input, False, "input 0"), (_keep_output, True, "output 0"), (_keep_derived, False, "input 0")],
)
@pytest.mark.parametrize("eager", [False, True])
def test_a_view_kept_past_the_call_is_an_error(big, func, out_arg, what, eager):
    _kept.clear()
    call = (lambda v: cupy_lazy_apply(func, v, out_arg=out_arg)) if eager else jax.jit(lambda v: cupy_lazy_apply(func, v, out_arg=out_arg))
    with pytest.raises(Exception, match=f"kept a view of {what} past its call"):
        jax.block_until_ready(call(big))
    _kept.clear()
    # The process and the bridge keep working.
    y = jax.jit(lambda v: cupy_lazy_apply(lambda a: a + 1.0, v))(big)
    np.testing.assert_array_equal(np.asarray(y[:2]), [1.0, 2.0])


def test_views_used_and_dropped_inside_the_call_are_fine(big):
    def f(a, out):
        tmp = a.reshape(-1, 2)[:, ::-1]  # derived views, dropped at return
        np.copyto(out.reshape(-1, 2), tmp)
        cycle = [out[:4]]
        cycle.append(cycle)  # a reference cycle holding a view: collected, not "kept"

    y = jax.jit(lambda v: cupy_lazy_apply(f, v, out_arg=True))(big)
    np.testing.assert_array_equal(np.asarray(y[:4]), [1.0, 0.0, 3.0, 2.0])
    # Returning the input itself: copied into the output, nothing kept.
    z = jax.jit(lambda v: cupy_lazy_apply(lambda a: a, v))(big)
    np.testing.assert_array_equal(np.asarray(z[-2:]), [N - 2.0, N - 1.0])


def test_a_failing_call_reports_its_own_error_and_keeps_nothing(big):
    # The error is the function's (a chained one here, views in its frames), never
    # replaced by "kept a view", and the next call runs cleanly.
    def check(view):
        raise KeyError(view.shape)

    def f(a, out):
        try:
            check(a[1:])  # this frame is only in the chained exception's traceback
        except KeyError as e:
            raise ValueError("the function's own error") from e

    with pytest.raises(Exception, match="the delegated function raised ValueError: the function's own error") as info:
        jax.block_until_ready(jax.jit(lambda v: cupy_lazy_apply(f, v, out_arg=True))(big))
    assert "kept a view" not in str(info.value)
    y = jax.jit(lambda v: cupy_lazy_apply(_double, v, out_arg=True))(big)
    np.testing.assert_array_equal(np.asarray(y[:3]), [0.0, 2.0, 4.0])


_retained: list = []


def _retains_a_traceback(a, out):
    # As a library may (CuPy does under compute-sanitizer): an exception kept past the call,
    # whose traceback reaches this frame and, through it, the views.
    try:
        raise RuntimeError("handled")
    except RuntimeError as e:
        _retained.append(e)
    np.multiply(a, 2.0, out=out)


def _keeps_a_view_in_a_generator(a, out):
    def gen(v):
        yield v[:4]
        yield None

    g = gen(a)
    next(g)
    _retained.append(g)  # a suspended generator holding a view: a kept view
    np.multiply(a, 2.0, out=out)


@pytest.mark.parametrize("eager", [False, True])
def test_a_retained_traceback_is_not_a_kept_view(big, eager):
    _retained.clear()
    call = lambda v: cupy_lazy_apply(_retains_a_traceback, v, out_arg=True)  # noqa: E731
    y = call(big) if eager else jax.jit(call)(big)
    np.testing.assert_array_equal(np.asarray(y[:3]), [0.0, 2.0, 4.0])
    assert len(_retained) == 1 and _retained[0].__traceback__ is not None
    _retained.clear()
    with pytest.raises(Exception, match="kept a view of input 0 past its call"):
        jax.block_until_ready(jax.jit(lambda v: cupy_lazy_apply(_keeps_a_view_in_a_generator, v, out_arg=True))(big))
    _retained.clear()


# --- GPU -----------------------------------------------------------------------------------


def _gpu(x):
    return jax.device_put(x, jax.devices("cuda")[0])


@pytest.fixture
def big_gpu():
    return _gpu(np.arange(N, dtype=np.float64))


def _cp_double(a, out):
    import cupy

    cupy.multiply(a, 2.0, out=out)


@pytest.mark.gpu
def test_gpu_eager_and_fresh_jit_calls_never_lose_their_call_site(big_gpu):
    pytest.importorskip("cupy")
    eager = [cupy_lazy_apply(_cp_double, big_gpu, out_arg=True) for _ in range(10)]
    fresh = [jax.jit(lambda a: cupy_lazy_apply(_cp_double, a * 2, out_arg=True))(big_gpu) for _ in range(10)]
    gc.collect()
    _check_all(eager, np.arange(N) * 2.0)
    _check_all(fresh, np.arange(N) * 4.0)


@pytest.mark.gpu
@pytest.mark.parametrize("keep", ["input", "output", "derived"])
def test_gpu_a_view_kept_past_the_call_is_an_error(big_gpu, keep):
    cupy = pytest.importorskip("cupy")
    kept = []

    def f(a, out):
        kept.append({"input": a, "output": out, "derived": a[5:9]}[keep])
        cupy.add(a, 1.0, out=out)

    what = "output 0" if keep == "output" else "input 0"
    with pytest.raises(Exception, match=f"kept a view of {what} past its call"):
        jax.block_until_ready(jax.jit(lambda v: cupy_lazy_apply(f, v, out_arg=True))(big_gpu))
    kept.clear()

    def g(a, out):
        t = a[::2]  # derived, dropped at return
        cupy.add(a, 1.0, out=out)
        del t

    y = jax.jit(lambda v: cupy_lazy_apply(g, v, out_arg=True))(big_gpu)
    np.testing.assert_array_equal(np.asarray(y[:2]), [1.0, 2.0])
