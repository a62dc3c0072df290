"""The Python half of delegation: the dispatcher the runtime library calls from XLA's
threads, and the registry of callables it dispatches to.

The runtime library (`libbridgegen_runtime.so`, shipped in this package) registers one
XLA FFI handler per platform (`bridgegen.callback`); a lowered call carries only an
integer attribute `callback_id`. That id names a :class:`Delegate` (the callable, its
static arguments and its declared outputs) in a registry of weak references: a Delegate
is a parameter of the primitive, so it lives exactly as long as JAX's caches keep the
traced call, and its id disappears with it (no registry that grows on every retrace).
"""

from __future__ import annotations

import atexit
import ctypes
import itertools
import math
import os
import threading
import traceback
import weakref

import jax
import jax.ffi
import numpy as np

from . import _library

_XLA_DTYPES = {
    k: np.dtype(v) for k, v in {
        1: np.bool_, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 6: np.uint8, 7: np.uint16,
        8: np.uint32, 9: np.uint64, 10: np.float16, 11: np.float32, 12: np.float64, 15: np.complex64,
        18: np.complex128,
    }.items()
}  # fmt: skip


class _Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int64), ("dims", ctypes.POINTER(ctypes.c_int64))]


_ALLOCATE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p))


class _Call(ctypes.Structure):
    """`CallbackCall` of runtime/rust/src/callback.rs, field for field."""

    _fields_ = [
        ("id", ctypes.c_int64),
        ("platform", ctypes.c_int32),
        ("device", ctypes.c_int32),
        ("stream", ctypes.c_void_p),
        ("nargs", ctypes.c_int64),
        ("args", ctypes.POINTER(_Buffer)),
        ("nrets", ctypes.c_int64),
        ("rets", ctypes.POINTER(_Buffer)),
        ("allocate", _ALLOCATE),
        ("state", ctypes.c_void_p),
        ("error", ctypes.c_void_p),
        ("error_capacity", ctypes.c_size_t),
    ]


CPU, CUDA = 0, 1

_ids = itertools.count(1)
_registry: dict[int, weakref.ref] = {}
_registry_lock = threading.Lock()


def register(delegate) -> int:
    """Give ``delegate`` an id for as long as it lives."""
    with _registry_lock:
        i = next(_ids)
        _registry[i] = weakref.ref(delegate)
    weakref.finalize(delegate, _forget, i)
    return i


def _forget(i: int) -> None:
    with _registry_lock:
        _registry.pop(i, None)
    if _lib is not None:
        _lib.bg_callback_forget(i)  # graphs kept for replaying a graph_safe call


def live_ids() -> int:
    """How many delegates are registered (for leak tests)."""
    with _registry_lock:
        return len(_registry)


def graphs_kept() -> int:
    """How many CUDA graphs the library keeps for replaying graph_safe calls (leak tests)."""
    return library().bg_callback_graphs_kept()


def buffer_info(b: _Buffer) -> tuple[int, tuple[int, ...], np.dtype]:
    dtype = _XLA_DTYPES.get(b.dtype)
    if dtype is None:
        raise TypeError(f"XLA data type {b.dtype} is not supported by jax_cupy_bridge")
    return b.data or 0, tuple(b.dims[: b.rank]), dtype


def host_view(b: _Buffer, writable: bool) -> np.ndarray:
    """A NumPy array over an XLA host buffer (no copy)."""
    ptr, shape, dtype = buffer_info(b)
    n = math.prod(shape) * dtype.itemsize
    if n == 0 or not ptr:
        return np.empty(shape, dtype)
    arr = np.frombuffer((ctypes.c_char * n).from_address(ptr), dtype=dtype).reshape(shape)
    arr.flags.writeable = writable
    return arr


def _write_error(call: _Call, exc: BaseException) -> None:
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    name = f"{type(exc).__module__}.{type(exc).__qualname__}" if type(exc).__module__ != "builtins" else type(exc).__qualname__
    msg = f"{name} raised in the delegated function: {text}\n\n{tb}".encode("utf-8", "replace")
    msg = msg[: call.error_capacity - 1]
    ctypes.memmove(call.error, msg, len(msg))
    ctypes.memset(call.error + len(msg), 0, 1)


def _dispatch(ptr) -> int:
    call = _Call.from_address(ptr)
    try:
        ref = _registry.get(call.id)
        delegate = ref() if ref is not None else None
        if delegate is None:
            raise RuntimeError(f"no delegated function with id {call.id} (its traced call was garbage-collected)")
        args = [call.args[i] for i in range(call.nargs)]
        rets = [call.rets[i] for i in range(call.nrets)]
        delegate.run(call, args, rets)
        return 0
    except BaseException as exc:  # noqa: BLE001 - every failure must reach XLA, not unwind into C
        try:
            _write_error(call, exc)
        except BaseException:  # noqa: BLE001
            pass
        return 1


# Kept alive for the life of the process: the library holds its address.
_DISPATCHER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(_dispatch)
_lib = None
_lock = threading.Lock()

# How long the exit hook waits for delegated calls still running (see library()).
_SHUTDOWN_WAIT_MS = 10_000

TARGET = "bridgegen.callback"
TARGET_GRAPH = "bridgegen.callback_graph"


def library() -> ctypes.CDLL:
    """Load the runtime library once, install the dispatcher and register the handlers."""
    global _lib
    with _lock:
        if _lib is None:
            path = os.path.join(os.path.dirname(__file__), "libbridgegen_runtime.so")
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
            _library.register_handler(lib, TARGET, "bg_callback_cpu", "cpu")
            _library.register_handler(lib, TARGET, "bg_callback_cuda", "cuda", instantiate=False)
            _library.register_handler(lib, TARGET_GRAPH, "bg_callback_cuda_graph", "cuda", instantiate=False)
            jax.devices()  # surface registration errors here, not at backend start
            _lib = lib
    return _lib
