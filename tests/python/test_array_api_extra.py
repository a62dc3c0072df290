"""array-api-extra 0.11.5's own tests/main/test_lazy.py with our lazy_apply substituted
(tests/python/aae/aae_substitute.py). The sdist is fetched and checked by scripts/env.sh
into .venv/array_api_extra-0.11.5; every JAX case (and the NumPy ones) must pass. CuPy's
backend cases need a GPU: they run on the GPU machine only."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

from conftest import ROOT, has_cuda

SDIST = pathlib.Path(os.environ.get("BRIDGEGEN_AAE_SDIST", ROOT / ".venv" / "array_api_extra-0.11.5"))
PLUGIN = pathlib.Path(__file__).parent / "aae"


def test_array_api_extra_lazy_apply_suite_passes_with_ours():
    tests = SDIST / "tests" / "main" / "test_lazy.py"
    assert tests.exists(), f"{tests} is missing: scripts/env.sh fetches array-api-extra 0.11.5's sdist there"
    cmd = [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "aae_substitute", "-p", "no:cacheprovider", str(tests)]
    if not has_cuda():
        cmd += ["-k", "not cupy"]  # CuPy's backend fixture needs a device
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PLUGIN), os.environ.get("PYTHONPATH", "")]))
    env.pop("JAX_ENABLE_X64", None)
    run = subprocess.run(cmd, cwd=SDIST, env=env, capture_output=True, text=True, timeout=900)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    calls = int(re.search(r"bridgegen lazy_apply calls: (\d+)", out).group(1))
    jax_passed = re.findall(r"^PASSED \S+\[jax[^\]]*\]", out, re.M)
    assert calls > 0 and len(jax_passed) >= 15, (calls, len(jax_passed), out[-3000:])
    if has_cuda():
        assert any("jax.numpy:gpu" in p or "jax:gpu" in p for p in jax_passed), out[-3000:]
