"""The Python half of delegation: the dispatcher the runtime library calls from XLA's
threads, the registry of call sites it dispatches to, and the views of XLA's buffers it
hands to delegated functions.

The runtime library (`libbridgegen_runtime.so`, shipped in this package) registers one
XLA FFI handler per platform (`bridgegen.callback`); a lowered call carries only an
integer attribute `callback_id`, which names a call site (the callable, its static
arguments and its declared outputs) in the registry below.
"""

from __future__ import annotations

import atexit
import collections
import ctypes
import gc
import itertools
import math
import os
import sys
import threading
import traceback
import types

import jax
import jax.ffi
import numpy as np

from bridgegen_runtime import _abi, _library

_XLA_DTYPES = {code: np.dtype(name) for code, name in _abi.XLA_DTYPES.items()}
# The structs of runtime/rust/src/abi.rs, field for field (both rendered from runtime/abi.toml).
_Buffer = _abi.CallbackBuffer
_Call = _abi.CallbackCall

CPU, CUDA = _abi.PLATFORM_CPU, _abi.PLATFORM_CUDA

# --- the registry of call sites -----------------------------------------------------------
# A call site is a Delegate (the primitive's parameter). Equal call sites are one object
# (lazy.Delegate interns them), so every trace, cached lowering and executable of a call
# site names the same id. An id stays dispatchable while its Delegate lives (JAX's caches
# and, through the lowering's keepalive, every executable compiled from it hold it), and
# then a while longer: a call already queued on a device may run after the last Python
# reference is gone (a `jax.jit(lambda ...)(x)` whose function dies at once), so a dead
# call site's runner is retired, not dropped, and only the oldest of `_RETAINED` retired
# ones are forgotten.

_RETAINED = 1024

_ids = itertools.count(1)
_runners: dict[int, object] = {}  # id -> what runs the call (the Delegate's Runner)
_retired: collections.OrderedDict[int, object] = collections.OrderedDict()  # id -> key
_revivable: dict[object, int] = {}  # key of a retired call site -> its id
_registry_lock = threading.Lock()


def register(key, runner) -> int:
    """An id for the call site `key` (hashable); a retired call site of the same key gets
    its id back, so its lowered text, and JAX's compilation cache, stay the same."""
    with _registry_lock:
        i = _revivable.pop(key, None) if key is not None else None
        if i is not None:
            _retired.pop(i, None)
        else:
            i = next(_ids)
        _runners[i] = runner
    return i


def retire(i: int, key) -> None:
    """The call site's Delegate is gone: keep its runner for calls still queued, forget
    the oldest retired call site beyond `_RETAINED`."""
    forgotten = []
    with _registry_lock:
        if i not in _runners:
            return
        _retired[i] = key
        if key is not None:
            _revivable[key] = i
        while len(_retired) > _RETAINED:
            old, old_key = _retired.popitem(last=False)
            _runners.pop(old, None)
            if old_key is not None and _revivable.get(old_key) == old:
                del _revivable[old_key]
            forgotten.append(old)
    for old in forgotten:
        _forget_graphs(old)


def _forget_graphs(i: int) -> None:
    if _lib is not None:
        _lib.bg_callback_forget(i)  # graphs kept for replaying a graph_safe call


def _forget(i: int) -> None:
    """Drop call site `i` now (tests: what happens when it leaves the retained set)."""
    with _registry_lock:
        _runners.pop(i, None)
        key = _retired.pop(i, None)
        if key is not None and _revivable.get(key) == i:
            del _revivable[key]
    _forget_graphs(i)


def live_ids() -> int:
    """How many call sites are alive (not retired), for leak tests."""
    with _registry_lock:
        return len(_runners) - len(_retired)


def retained_ids() -> int:
    """How many call sites can be dispatched (alive or retired), for leak tests."""
    with _registry_lock:
        return len(_runners)


def graphs_kept() -> int:
    """How many CUDA graphs the library keeps for replaying graph_safe calls (leak tests)."""
    return library().bg_callback_graphs_kept()


def buffer_info(b: _Buffer) -> tuple[int, tuple[int, ...], np.dtype]:
    dtype = _XLA_DTYPES.get(b.dtype)
    if dtype is None:
        raise TypeError(f"XLA data type {b.dtype} is not supported by jax_cupy_bridge")
    return b.data or 0, tuple(b.dims[: b.rank]), dtype


# --- views of XLA's buffers, valid for one call ---------------------------------------------


class _HostBuffer:
    """The base of the NumPy views of one XLA host buffer (NumPy reads the pointer, shape,
    dtype and read-only flag from `__array_interface__`)."""

    __slots__ = ("__array_interface__",)

    def __init__(self, ptr: int, shape: tuple[int, ...], dtype: np.dtype, readonly: bool):
        self.__array_interface__ = {"data": (ptr, readonly), "shape": shape, "typestr": dtype.str, "version": 3}


_SUSPENDABLE = 0x20 | 0x80 | 0x100 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR


def clear_returned_frames(holds) -> None:
    """Clear the locals of every frame that has returned but still holds a view (`holds`
    says which objects are views of this call), directly or in a list, tuple or dict.

    A frame outlives its call only while something retains a traceback through it: CuPy
    under compute-sanitizer keeps one from inside each ufunc call, whose frames lead back
    through the function to ours. What such a frame holds is no view the function kept.
    Frames still running (clear() refuses them) and suspended generators (a generator
    keeping a view is a kept view) are left alone. The search starts from the frames, as
    NumPy arrays are invisible to gc.get_referrers; it costs a walk of the heap, paid only
    when a view looks kept."""

    def held(o):
        if holds(o):
            return True
        if isinstance(o, (list, tuple)):
            return any(holds(x) for x in o)
        return isinstance(o, dict) and any(holds(x) for x in o.values())

    for f in gc.get_objects():
        if type(f) is not types.FrameType or f.f_code.co_flags & _SUSPENDABLE:
            continue
        skip = (f.f_globals, f.f_builtins)
        if any(held(o) for o in gc.get_referents(f) if not any(o is g for g in skip)):
            try:
                f.clear()
            except RuntimeError:  # still running
                pass


def _host_base(a):
    while isinstance(a, np.ndarray):
        a = a.base
    return a


class HostViews:
    """NumPy views of one call's host buffers. Inputs are read-only all the way down (their
    base says so, so `flags.writeable = True` fails). Every array NumPy derives from a view
    (slices, reshapes, views of views) keeps the view's `_HostBuffer` referenced, so once
    the call has returned, a `_HostBuffer` referenced by anything but this object is a
    view kept past the call: reported, instead of left to dangle silently."""

    # References to a held buffer in `_kept` when no array over it is left: the tuple in
    # `_held`, the loop variable and getrefcount's argument (both outcomes are tested in
    # tests/python/test_delegation_safety.py).
    _OWN_REFS = 3

    def __init__(self):
        self._held: list[tuple[_HostBuffer, str]] = []

    def view(self, b: _Buffer, writable: bool, what: str) -> np.ndarray:
        ptr, shape, dtype = buffer_info(b)
        if math.prod(shape) == 0 or not ptr:
            return np.empty(shape, dtype)
        base = _HostBuffer(ptr, shape, dtype, readonly=not writable)
        self._held.append((base, what))
        return np.asarray(base)

    def _kept(self) -> list[str]:
        return [what for base, what in self._held if sys.getrefcount(base) > self._OWN_REFS]

    def release(self) -> list[str]:
        """Forget every view; the ones still referenced (after a garbage collection and
        clear_returned_frames, so that neither a reference cycle nor a retained traceback
        is taken for a kept view)."""
        kept = self._kept()
        if kept:
            gc.collect()
            kept = self._kept()
        if kept:
            bases = {id(base) for base, _ in self._held}
            clear_returned_frames(lambda o: isinstance(o, np.ndarray) and id(_host_base(o)) in bases)
            kept = self._kept()
        self._held = []
        return kept


# `BRIDGEGEN_CHECK_KEPT_VIEWS=0` skips the check after each call (docs/lazy.md, Views):
# the escape hatch should a library the function calls hold views itself.
CHECK_KEPT_VIEWS = os.environ.get("BRIDGEGEN_CHECK_KEPT_VIEWS", "1") != "0"


def kept_message(kept: list[str]) -> str:
    return (
        f"the delegated function kept a view of {', '.join(kept)} past its call; views of XLA's buffers are "
        "valid only during the call (XLA reuses the memory): copy what you keep (np.array(x) / x.copy())"
    )


def _write_message(call: _Call, text: str) -> None:
    msg = text.encode("utf-8", "replace")[: call.error_capacity - 1]
    ctypes.memmove(call.error, msg, len(msg))
    ctypes.memset(call.error + len(msg), 0, 1)


def _write_error(call: _Call, exc: BaseException) -> None:
    # "ValueError: ..." (with its module when not a builtin), then the whole traceback.
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    _write_message(call, f"the delegated function raised {text}\n\n{tb}")


def _dispatch(ptr) -> int:
    call = _Call.from_address(ptr)
    views = None
    try:
        runner = _runners.get(call.id)
        if runner is None:
            raise RuntimeError(
                f"no delegated function with id {call.id}: its call site was dropped (more than "
                f"{_RETAINED} call sites were retired since); keep the jitted function alive while its calls run"
            )
        args = [call.args[i] for i in range(call.nargs)]
        rets = [call.rets[i] for i in range(call.nrets)]
        views = runner.views(call)
        runner.run(call, args, rets, views)
        del args, rets
        rc = 0
    except BaseException as exc:  # noqa: BLE001 - every failure must reach XLA, not unwind into C
        try:
            _write_error(call, exc)
        except BaseException:  # noqa: BLE001
            pass
        # The traceback's frames hold the views the function had: not a kept view.
        traceback.clear_frames(exc.__traceback__)
        del exc
        rc = 1
    if views is not None and CHECK_KEPT_VIEWS:
        try:
            kept = views.release()
        except BaseException as exc:  # noqa: BLE001
            kept = [f"a buffer ({type(exc).__name__}: {exc})"]
        if kept and rc == 0:  # a failed call reports its own error, not what it left
            try:
                _write_message(call, kept_message(kept))
            except BaseException:  # noqa: BLE001
                pass
            rc = 1
    return rc


# Kept alive for the life of the process: the library holds its address.
_DISPATCHER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(_dispatch)
_lib = None
_lock = threading.Lock()

# How long the exit hook waits for delegated calls still running (see library()).
_SHUTDOWN_WAIT_MS = 10_000

TARGET = _abi.TARGET
TARGET_GRAPH = _abi.TARGET_GRAPH


def library() -> ctypes.CDLL:
    """Load the runtime library once, install the dispatcher and register the handlers."""
    global _lib
    with _lock:
        if _lib is None:
            path = os.path.join(os.path.dirname(__file__), _abi.RUNTIME_LIBRARY)
            if not os.path.exists(path):
                raise ImportError(
                    f"jax_cupy_bridge: {path} is missing; install the wheel `bridgegen build` makes "
                    "(it ships the runtime library)"
                )
            lib = ctypes.CDLL(path)
            lib.bg_callback_set_dispatcher.argtypes = [ctypes.c_void_p]
            lib.bg_callback_set_dispatcher(ctypes.cast(_DISPATCHER, ctypes.c_void_p))
            # At exit, before the interpreter finalizes: stop entering Python from XLA's
            # threads and let calls already in it finish (the library waits with the GIL
            # released). Registered after jax's own exit hooks, so it runs before them.
            lib.bg_callback_shutdown.argtypes = [ctypes.c_uint64]
            lib.bg_callback_shutdown.restype = ctypes.c_bool
            atexit.register(lib.bg_callback_shutdown, _SHUTDOWN_WAIT_MS)
            lib.bg_callback_forget.argtypes = [ctypes.c_int64]
            lib.bg_callback_forget.restype = None
            lib.bg_callback_graphs_kept.restype = ctypes.c_uint64
            _library.register_handler(lib, TARGET, _abi.HANDLER_CPU, "cpu")
            _library.register_handler(lib, TARGET, _abi.HANDLER_CUDA, "cuda", instantiate=False)
            _library.register_handler(lib, TARGET_GRAPH, _abi.HANDLER_CUDA_GRAPH, "cuda", instantiate=False)
            jax.devices()  # surface registration errors here, not at backend start
            _lib = lib
    return _lib
