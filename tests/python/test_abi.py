"""The runtime ABI (runtime/abi.toml) as the built library has it: the ctypes structs the
dispatcher reads match the Rust structs' sizes and field offsets, field for field (the
rendered copies' freshness is `cargo test -p bridgegen --test abi`)."""

from __future__ import annotations

import ctypes
import json

from bridgegen_runtime import _abi
from jax_cupy_bridge import _callback


def _layout(lib) -> dict:
    fn = lib.bg_abi_layout
    fn.restype = ctypes.c_char_p
    return json.loads(fn().decode())


def test_ctypes_structs_match_the_rust_layout():
    rust = _layout(_callback.library())
    for struct in (_abi.CallbackBuffer, _abi.CallbackCall):
        want = rust[struct.__name__]
        assert ctypes.sizeof(struct) == want["size"], struct.__name__
        have = {name: getattr(struct, name).offset for name, _ in struct._fields_}
        assert have == want["fields"], struct.__name__


def test_the_dispatcher_reads_the_abis_structs():
    assert _callback._Call is _abi.CallbackCall and _callback._Buffer is _abi.CallbackBuffer
    assert _callback.TARGET == _abi.TARGET and (_callback.CPU, _callback.CUDA) == (_abi.PLATFORM_CPU, _abi.PLATFORM_CUDA)


def test_rules_are_functions_of_the_generated_package_not_evaluated_strings():
    import inspect
    import pathlib

    import jax_xsf

    runtime = pathlib.Path(_callback.__file__).parent
    for src in runtime.glob("*.py"):
        text = src.read_text()
        assert "eval(" not in text.replace("_eval(", "") and "compile(" not in text, src
    rules = jax_xsf._rules
    declared = {name: info["derivatives"] for name, info in jax_xsf._spec.UFUNCS.items() if info["derivatives"]}
    assert declared and set(declared) == set(rules.DERIVATIVES)
    for name, inputs in declared.items():
        for arg in inputs:
            fn = rules.DERIVATIVES[name][arg]
            assert inspect.getsourcefile(fn).endswith("_rules.py") and fn.__module__ == "jax_xsf._rules"
