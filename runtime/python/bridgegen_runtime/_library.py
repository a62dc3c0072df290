"""Loading a generated package's shared library and registering its FFI handlers.

The library is loaded with ctypes and handed to XLA through ``jax.ffi.pycapsule``: no
CPython extension, so one wheel serves every Python version.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.metadata
import json
import os
from types import ModuleType

import jax
import jax.ffi

from . import _abi

# The platform strings XLA reads (never lowercase "cuda": runtime/abi.toml says why).
_XLA_PLATFORM = _abi.PLATFORMS


class BuildMismatchError(ImportError):
    """The compiled library does not belong to this Python package."""


def _rebuild_hint(package: str) -> str:
    return f"rebuild and reinstall it: `bridgegen build <spec of {package}> --install`"


def load_library(package: str, package_dir: str, spec: ModuleType) -> ctypes.CDLL:
    """Load ``spec.LIBRARY`` from ``package_dir`` and check its contract."""
    path = os.path.join(package_dir, spec.LIBRARY)
    if not os.path.exists(path):
        raise ImportError(
            f"{package}: compiled library {spec.LIBRARY} is missing from {package_dir}; "
            + _rebuild_hint(package)
        )
    lib = ctypes.CDLL(path)
    contract_fn = getattr(lib, spec.CONTRACT_SYMBOL, None)
    if contract_fn is None:
        raise BuildMismatchError(f"{package}: {path} has no symbol {spec.CONTRACT_SYMBOL}; " + _rebuild_hint(package))
    contract_fn.restype = ctypes.c_char_p
    built = contract_fn().decode()
    if built != spec.CONTRACT:
        raise BuildMismatchError(
            f"{package}: the compiled library ({built!r}) does not match its Python code "
            f"({spec.CONTRACT!r}); " + _rebuild_hint(package)
        )
    check_build(package, lib, spec)
    return lib


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split(".") if p.isdigit())


def check_build(package: str, lib: ctypes.CDLL, spec: ModuleType) -> None:
    """The build facts stamped in the library must equal the package's `_build.py` (both
    written by one `bridgegen build`), and the installed jaxlib must lie in the range the
    build supports. Runs before any handler is registered."""
    symbol = getattr(spec, "BUILD_INFO_SYMBOL", None)
    fn = getattr(lib, symbol, None) if symbol else None
    if fn is None:
        return
    fn.restype = ctypes.c_char_p
    in_lib = json.loads(fn().decode() or "{}")
    try:
        stamped = json.loads(importlib.import_module(f"{package}._build").BUILD_INFO)
    except ImportError:
        stamped = None  # a source tree built with plain cargo: nothing to compare
    if stamped is not None and stamped != in_lib:
        raise BuildMismatchError(
            f"{package}: the compiled library was built with {in_lib} but the package says {stamped}; "
            + _rebuild_hint(package)
        )
    lo, hi = in_lib.get("jaxlib_range", (None, None))
    if lo is None:
        return
    have = importlib.metadata.version("jaxlib")
    excluded = in_lib.get("jaxlib_excluded", [])
    if _version(have) > _version(hi):
        raise ImportError(
            f"{package} was tested with jaxlib {lo} to {hi}; this environment has jaxlib {have}, newer than that. "
            f"Install a tested jax: pip install 'jax<={hi}' 'jaxlib<={hi}'; or, once your own tests pass on "
            f"{have}, rebuild admitting it: `bridgegen build <spec of {package}> --jaxlib-newest {have} --install` "
            "(docs/releasing.md)"
        )
    if _version(have) < _version(lo):
        raise ImportError(
            f"{package} needs jaxlib {lo} or newer (the first whose FFI takes its handlers); this environment "
            f"has jaxlib {have}: pip install -U 'jax>={lo}' 'jaxlib>={lo}'"
        )
    if have in excluded:
        raise ImportError(
            f"{package} was not tested with jaxlib {have} (it admits {lo} to {hi} except {', '.join(excluded)}): "
            f"install a tested release, e.g. pip install 'jax=={hi}' 'jaxlib=={hi}'"
        )


def ffi_api_versions(lib: ctypes.CDLL) -> dict[str, tuple[int, int]]:
    """The FFI API version of the header the library was built against, and the one it reports."""
    out = {}
    for key, sym in (("header", "bg_header_ffi_api_version"), ("reported", "bg_reported_ffi_api_version")):
        fn = getattr(lib, sym)
        fn.restype = ctypes.c_int
        v = fn()
        out[key] = (v // 1000, v % 1000)
    return out


def cuda_archs(lib: ctypes.CDLL, symbol: str) -> tuple[str, ...]:
    """The CUDA architectures whose kernels are embedded in ``lib`` (empty: CPU-only build)."""
    fn = getattr(lib, symbol)
    fn.restype = ctypes.c_char_p
    return tuple(fn().decode().split())


def register_handler(lib: ctypes.CDLL, target: str, symbol: str, platform: str, *, instantiate: bool | None = None) -> None:
    """Register one handler symbol of ``lib`` as XLA FFI target ``target``.

    Generated CUDA handlers are registered for the INSTANTIATE stage too (default for
    ``platform == "cuda"``): that is when they load their kernels, once, before any call
    can run under graph capture. Handlers with nothing to load pass ``instantiate=False``.
    """
    capsule = jax.ffi.pycapsule(getattr(lib, symbol))
    if instantiate is None:
        instantiate = platform == "cuda"
    handler = {"instantiate": capsule, "execute": capsule} if instantiate else capsule
    jax.ffi.register_ffi_target(target, handler, platform=_XLA_PLATFORM[platform])
