"""jax_cupy_bridge: the shared Python runtime of bridgegen-generated packages.

Generated packages (such as ``jax_xsf``) are thin: a data table (``_spec.py``) and
documented wrappers. This package loads their compiled library with ctypes, checks the
build contract, registers the XLA FFI targets with ``jax.ffi`` and provides the JAX
primitive, dtype rules and transformation rules every bridged function shares.
"""

__version__ = "0.1.0"
