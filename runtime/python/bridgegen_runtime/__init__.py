"""bridgegen_runtime: the shared Python runtime every bridgegen-generated package imports.

Generated packages (such as ``jax_xsf``) are thin: a data table (``_spec.py``) and
documented wrappers. This package loads their compiled library with ctypes, checks the
build contract, registers the XLA FFI targets with ``jax.ffi`` and provides the JAX
primitive, dtype rules and transformation rules every bridged ufunc shares.

It imports nothing of the delegation of arbitrary CuPy/NumPy functions
(``jax_cupy_bridge``), nor CuPy: a package of xsf ufuncs needs neither.
"""

# The one version source of this package: bridgegen's build reads it for the wheel's
# METADATA, the sdists and the version pin of every generated package.
__version__ = "0.1.0"
