"""The runtime is two packages with one job each: `bridgegen_runtime` (registration, dtype
rules, the ufunc primitive), which every generated package imports and which imports
nothing of the delegation nor CuPy, and `jax_cupy_bridge` (cupy_lazy_apply, lazy_apply)
on top of it. Each has one version source, its `__version__`, which the wheels carry."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORE = ROOT / "runtime" / "python" / "bridgegen_runtime"


def _imported_roots(path: pathlib.Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_core_runtime_imports_neither_the_delegation_nor_cupy():
    files = sorted(CORE.glob("*.py"))
    assert len(files) >= 6, files
    for f in files:
        bad = _imported_roots(f) & {"jax_cupy_bridge", "cupy", "cupyx"}
        assert not bad, f"{f.name} imports {bad}"


def test_importing_an_xsf_package_loads_no_delegation_code():
    pytest.importorskip("jax_xsf")
    code = (
        "import sys, jax_xsf, jax.numpy as jnp; jax_xsf.gamma(jnp.float32(2.0)).block_until_ready(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax_cupy_bridge', 'cupy', 'cupyx')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def _wheel(pattern: str) -> zipfile.ZipFile:
    wheels = sorted((ROOT / "dist").glob(pattern))
    if not wheels:
        pytest.skip(f"no {pattern} in dist/ (run `just build`)")
    return zipfile.ZipFile(wheels[-1])


def _requires(z: zipfile.ZipFile) -> list[str]:
    meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    return [line.split(": ", 1)[1] for line in meta.splitlines() if line.startswith("Requires-Dist: ")]


def test_wheels_depend_on_what_they_import_at_the_versions_the_packages_declare():
    import bridgegen_runtime
    import jax_cupy_bridge

    core_pin = f"bridgegen-runtime=={bridgegen_runtime.__version__}"
    deleg_pin = f"jax-cupy-bridge=={jax_cupy_bridge.__version__}"
    with _wheel(f"bridgegen_runtime-{bridgegen_runtime.__version__}-py3-none-any.whl") as z:
        assert not any(n.endswith(".so") for n in z.namelist()), z.namelist()
        assert all(not r.startswith(("jax-cupy-bridge", "cupy")) for r in _requires(z)), _requires(z)
    with _wheel(f"jax_cupy_bridge-{jax_cupy_bridge.__version__}-*.whl") as z:
        assert "jax_cupy_bridge/libbridgegen_runtime.so" in z.namelist()
        assert core_pin in _requires(z), _requires(z)
    with _wheel("jax_xsf-*.whl") as z:
        assert core_pin in _requires(z) and deleg_pin not in _requires(z), _requires(z)
    # specs/cupyx.toml has [[function]] entries: it needs the delegation too.
    with _wheel("jax_cupy-*.whl") as z:
        assert core_pin in _requires(z) and deleg_pin in _requires(z), _requires(z)
