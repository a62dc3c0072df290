"""jax_cupy_bridge: the shared Python runtime of bridgegen-generated packages, and the
delegation of arbitrary CuPy/NumPy functions under ``jax.jit``.

Generated packages (such as ``jax_xsf``) are thin: a data table (``_spec.py``) and
documented wrappers. This package loads their compiled library with ctypes, checks the
build contract, registers the XLA FFI targets with ``jax.ffi`` and provides the JAX
primitive, dtype rules and transformation rules every bridged function shares.

:func:`cupy_lazy_apply` and :func:`lazy_apply` (a drop-in for
``array_api_extra.lazy_apply``) run a Python function on zero-copy CuPy (GPU) or NumPy
(CPU) views of XLA's buffers, through the package's own FFI handler.
"""

from .lazy import cupy_lazy_apply, lazy_apply

__version__ = "0.1.0"
__all__ = ["cupy_lazy_apply", "lazy_apply"]
