"""Shared pytest setup: float64 on, the spec loaded once, and the `gpu` marker.

GPU tests carry `@pytest.mark.gpu`; they skip without a CUDA device, and fail instead of
skipping when BRIDGEGEN_REQUIRE_GPU=1 (set on the GPU machine so nothing is silently
skipped there).
"""

from __future__ import annotations

import os
import pathlib
import sys

import jax
import pytest

jax.config.update("jax_enable_x64", True)

ROOT = pathlib.Path(__file__).resolve().parents[2]
XSF_SPEC = ROOT / "specs" / "xsf.toml"
sys.path.insert(0, str(ROOT / "scripts"))
import spec_toml  # noqa: E402


def cargo_target(sub: str = "") -> str:
    """The cargo target directory a test's `bridgegen build` should use: under the caller's
    CARGO_TARGET_DIR where one is set (scripts/trixie_suite.sh sets its own, so that build
    scripts compiled against another glibc never land in this machine's target/)."""
    base = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    return str(base / sub if sub else base)


def load_spec(path=XSF_SPEC) -> dict:
    """The spec with its included files' tables (scripts/spec_toml.py)."""
    return spec_toml.load(path)


def command_buffer_env() -> dict:
    """Environment of a child process that runs with XLA's command buffers forced on. The
    parent holds its share of GPU memory (XLA preallocates): the child allocates as it
    goes, or its allocator's failed tries at a large pool show up as CUDA errors under
    compute-sanitizer."""
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    env["XLA_FLAGS"] = (
        env.get("XLA_FLAGS", "") + " --xla_gpu_graph_min_graph_size=1 --xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL"
    )
    return env


def has_cuda() -> bool:
    try:
        return any(d.platform == "gpu" for d in jax.devices())
    except RuntimeError:
        return False


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped without one unless BRIDGEGEN_REQUIRE_GPU=1)")


def pytest_collection_modifyitems(config, items):
    if has_cuda():
        return
    require = os.environ.get("BRIDGEGEN_REQUIRE_GPU") == "1"
    for item in items:
        if "gpu" in item.keywords:
            if require:
                item.add_marker(pytest.mark.usefixtures("_require_gpu"))
            else:
                item.add_marker(pytest.mark.skip(reason="no CUDA GPU (set BRIDGEGEN_REQUIRE_GPU=1 to fail instead)"))


@pytest.fixture
def _require_gpu():
    pytest.fail("BRIDGEGEN_REQUIRE_GPU=1 but JAX sees no CUDA GPU")


@pytest.fixture(scope="session")
def xsf_spec() -> dict:
    return load_spec()
