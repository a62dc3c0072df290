"""The GPU side of a delegated call: CuPy views over XLA's device buffers, XLA's stream and
device made current, and CuPy's allocations routed to memory XLA owns for the call.

Imported only when a call runs on CUDA, so CPU-only installs never import CuPy.
"""

from __future__ import annotations

import ctypes
import gc
import math
import sys

from bridgegen_runtime import _jax_compat

from . import _callback

_cupy = None
# CuPy views of XLA's buffers by (address, shape, dtype, device): XLA hands an executable
# the same buffers call after call, and building a view costs microseconds of a budget of
# a few tens. A view owns nothing; like any view, it is valid during a call only
# (DeviceViews checks that none is kept).
_views: dict = {}
_MAX_VIEWS = 256
# cupy Stream objects over XLA's streams (and the runtime's per-thread capture streams of
# graph_safe calls), by (device, stream pointer): both live as long as the process's XLA
# client or thread, and a wrapper only holds the pointer (it owns nothing).
_streams: dict = {}


def cupy():
    global _cupy
    if _cupy is None:
        import cupy as cp

        _cupy = cp
    return _cupy


class _StreamRef:
    """`__cuda_stream__` protocol object for ``cupy.cuda.Stream.from_external``."""

    def __init__(self, ptr: int):
        self.ptr = ptr

    def __cuda_stream__(self):
        return (0, self.ptr)


class _Arena:
    """CuPy allocator for the duration of one call: a bump arena over the call's
    workspace buffer (256-byte aligned), then XLA's allocator through the handler
    (freed by the handler when the call returns). Nothing it hands out may outlive the
    call; running out of workspace without a fallback is an error saying how much was
    needed."""

    def __init__(self, call, workspace, device):
        self.call, self.device = call, device
        self.base, self.size = (workspace[0], workspace[1]) if workspace else (0, 0)
        self.offset = 0
        self.requested = 0

    def malloc(self, nbytes: int):
        cp = cupy()
        nbytes = max(int(nbytes), 1)
        self.requested += nbytes
        start = (self.offset + 255) // 256 * 256
        if self.base and start + nbytes <= self.size:
            self.offset = start + nbytes
            ptr = self.base + start
        else:
            out = ctypes.c_void_p()
            if self.call.allocate(ctypes.addressof(self.call), nbytes, ctypes.byref(out)) != 0 or not out.value:
                raise MemoryError(
                    f"the delegated function needed {self.requested} bytes of device memory; the workspace holds "
                    f"{self.size} and XLA's allocator refused {nbytes} more (pass a larger workspace=)"
                )
            ptr = out.value
        mem = cp.cuda.UnownedMemory(ptr, nbytes, self, self.device)
        return cp.cuda.MemoryPointer(mem, 0)


class CallContext:
    """``with CallContext(call, workspace) as view:`` enters XLA's device, stream and
    allocator for one call and yields a function making CuPy views of its buffers.

    A class rather than a generator context manager, and CuPy's thread-local allocator
    switched directly, because this runs on every delegated call: each layer of
    `contextlib` costs microseconds against a budget of a few tens."""

    __slots__ = ("cp", "device", "stream", "arena", "saved", "views")

    def __init__(self, call, workspace_buffer, views):
        self.cp = cupy()
        self.views = views
        self.device = call.device
        self.stream = call.stream
        workspace = None
        if workspace_buffer is not None:
            ptr, shape, _ = _callback.buffer_info(workspace_buffer)
            workspace = (ptr, math.prod(shape))
        self.arena = _Arena(call, workspace, self.device)

    def view(self, b, what="a buffer"):
        cp = self.cp
        ptr, shape, dtype = _callback.buffer_info(b)
        key = (ptr, shape, dtype, self.device)
        v = _views.get(key)
        if v is None or v.shape != shape:  # (a function may have reshaped it in place)
            n = math.prod(shape) * dtype.itemsize
            if n == 0 or not ptr:
                return cp.empty(shape, dtype)
            mem = cp.cuda.UnownedMemory(ptr, n, None, self.device)
            v = cp.ndarray(shape, dtype, memptr=cp.cuda.MemoryPointer(mem, 0))
            if len(_views) >= _MAX_VIEWS:
                _views.clear()
            _views[key] = v
        self.views.hand_out(key, v, what)
        return v

    def __enter__(self):
        cp = self.cp
        device = cp.cuda.Device(self.device)
        device.__enter__()
        try:
            stream = _streams.get((self.device, self.stream))
            if stream is None:  # made on its device, as CuPy requires
                stream = _streams[(self.device, self.stream)] = cp.cuda.Stream.from_external(_StreamRef(self.stream))
            stream.__enter__()
        except BaseException:
            device.__exit__(None, None, None)
            raise
        get, set_ = _jax_compat.cupy_thread_allocator(cp)
        self.saved = (device, stream, get(), set_)
        set_(self.arena.malloc)
        return self.view

    def __exit__(self, *exc):
        device, stream, allocator, set_ = self.saved
        try:
            set_(allocator)
            if self.arena.requested:
                # A cuFFT plan made during the call holds a work area from the arena:
                # drop the cached plans before that memory goes back to XLA.
                plans = self.cp.fft.config.get_plan_cache()
                size = plans.get_size()
                plans.set_size(0)
                plans.set_size(size)
        finally:
            stream.__exit__(*exc)
            device.__exit__(*exc)
        return False


class DeviceViews:
    """The CuPy views handed to one call, and the references each had then: the view, its
    MemoryPointer and its memory object. A view kept past the call, or one derived from
    it (a slice, a reshape: new arrays over the same memory object), raises a reference
    count; such a view is reported and dropped from the view cache (HostViews is the
    host's counterpart)."""

    def __init__(self):
        self._handed: dict = {}

    def hand_out(self, key, v, what):
        if key not in self._handed:
            # Counted here, where this frame, the cache and the caller's frame hold `v`.
            self._handed[key] = (what, self._counts(v))

    @staticmethod
    def _counts(v):
        return (sys.getrefcount(v), sys.getrefcount(v.data), sys.getrefcount(v.data.mem))

    def _kept(self) -> list:
        kept = []
        for key, (what, counts) in self._handed.items():
            v = _views.get(key)
            if v is not None:
                now = self._counts(v)
                # The caller's frame, counted at hand-out, is gone by now (hence >=).
                if now[0] >= counts[0] or now[1] > counts[1] or now[2] > counts[2]:
                    kept.append(key)
            del v
        return kept

    def release(self) -> list[str]:
        """Forget every view; report the ones still referenced (after a garbage collection
        and _callback.clear_returned_frames, so that neither a reference cycle nor a
        retained traceback is taken for a kept view)."""
        kept = self._kept()
        if kept:
            gc.collect()
            kept = self._kept()
        if kept:
            ndarray, mems = cupy().ndarray, {id(_views[key].data.mem) for key in kept}
            _callback.clear_returned_frames(lambda o: isinstance(o, ndarray) and id(o.data.mem) in mems)
            kept = self._kept()
        what = [self._handed[key][0] for key in kept]
        for key in kept:
            del _views[key]
        self._handed = {}
        return what
