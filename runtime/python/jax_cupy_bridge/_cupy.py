"""The GPU side of a delegated call: CuPy views over XLA's device buffers, XLA's stream and
device made current, and CuPy's allocations routed to memory XLA owns for the call.

Imported only when a call runs on CUDA, so CPU-only installs never import CuPy.
"""

from __future__ import annotations

import contextlib
import ctypes

import numpy as np

from . import _callback

_cupy = None


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


@contextlib.contextmanager
def call_context(call, workspace_buffer):
    """Enter XLA's device, stream and allocator for one call; yield a view maker."""
    cp = cupy()
    device = call.device
    workspace = None
    if workspace_buffer is not None:
        ptr, shape, _ = _callback.buffer_info(workspace_buffer)
        workspace = (ptr, int(np.prod(shape)))
    arena = _Arena(call, workspace, device)

    def view(b):
        ptr, shape, dtype = _callback.buffer_info(b)
        n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if n == 0 or not ptr:
            return cp.empty(shape, dtype)
        mem = cp.cuda.UnownedMemory(ptr, n, arena, device)
        return cp.ndarray(shape, dtype, memptr=cp.cuda.MemoryPointer(mem, 0))

    plans = cp.fft.config.get_plan_cache()
    with cp.cuda.Device(device), cp.cuda.Stream.from_external(_StreamRef(call.stream)), cp.cuda.using_allocator(arena.malloc):
        # cuFFT plans hold work areas from the arena: keep none past the call.
        size = plans.get_size()
        plans.set_size(0)
        try:
            yield view
        finally:
            plans.set_size(size)
