"""jax_cupy_bridge: arbitrary CuPy/NumPy functions under ``jax.jit``.

:func:`cupy_lazy_apply` and :func:`lazy_apply` (a drop-in for
``array_api_extra.lazy_apply``) run a Python function on zero-copy CuPy (GPU) or NumPy
(CPU) views of XLA's buffers, through this package's own FFI handler. Generated packages
with ``[[function]]`` entries wrap it; it builds on ``bridgegen_runtime`` (registration,
the JAX compatibility seam).
"""

from .lazy import cupy_lazy_apply, lazy_apply

# The one version source of this package (bridgegen's build reads it).
__version__ = "0.1.0"
__all__ = ["cupy_lazy_apply", "lazy_apply"]
