"""The layout probe: building bridgegen-runtime against a c_api.h whose layout differs
from runtime/rust/layout.rs fails the build, naming the struct and the field."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import jax.ffi
import pytest
from conftest import cargo_target

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_mismatched_header_fails_the_build_naming_the_field(tmp_path):
    include = tmp_path / "include"
    shutil.copytree(jax.ffi.include_dir(), include)
    header = include / "xla/ffi/api/c_api.h"
    text = header.read_text()
    # Shift XLA_FFI_Buffer.data by inserting a field before it, as a changed ABI would.
    needle = "  XLA_FFI_DataType dtype;\n  void* data;"
    assert needle in text
    header.write_text(text.replace(needle, "  XLA_FFI_DataType dtype;\n  int64_t inserted;\n  void* data;"))
    env = {**os.environ, "BRIDGEGEN_JAXLIB_INCLUDE": str(include), "CARGO_TARGET_DIR": cargo_target("probe-test")}
    r = subprocess.run(
        ["cargo", "build", "--quiet", "--offline", "-p", "bridgegen-runtime"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert r.returncode != 0
    assert "c_api.h layout mismatch: XLA_FFI_Buffer.data is not at offset 24" in r.stderr, r.stderr[-3000:]
