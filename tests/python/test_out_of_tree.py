"""bridgegen as others use it, away from this checkout: the CLI's binary wheel is built
from a copy of the repository, the copy is deleted, and in a fresh temporary directory a
user's project (examples/softplus_lib) is generated, built and imported, then shipped as
source distributions and installed into a second fresh virtual env with
`pip install --no-build-isolation`, where a jitted call and a grad run.

Slow (two virtual envs and three cargo builds, about 3 minutes); the pip and cargo caches
make it cheaper. The xsf headers come from this environment's CuPy wheel
(BRIDGEGEN_XSF_INCLUDE), as a packager's would from theirs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import venv
from pathlib import Path

import pytest
from conftest import cargo_target

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "softplus_lib"
# What a user's environment needs to run the package: the pins of requirements/dev.txt.
RUNTIME_PINS = ("jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "pytest")
# And what a packager building release wheels adds (--glibc 2.28, auditwheel).
PACKAGER_PINS = ("cargo-zigbuild", "ziglang", "auditwheel")


def _pins(names=RUNTIME_PINS) -> list[str]:
    pins = []
    for line in (ROOT / "requirements" / "dev.txt").read_text().splitlines():
        name = line.split("==")[0].strip()
        if "==" in line and name in names:
            pins.append(line.strip())
    assert len(pins) == len(names), pins
    return pins


def _run(cmd, cwd, env=None, ok=True):
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    if ok and done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-6000:]}")
    return done


def _venv(path: Path) -> Path:
    venv.create(path, with_pip=True)
    return path / "bin" / "python"


def _xsf_include() -> str:
    import importlib.util

    spec = importlib.util.find_spec("cupy")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("needs a CuPy wheel for the xsf headers")
    return str(Path(spec.submodule_search_locations[0]) / "_core" / "include" / "cupy")


@pytest.fixture(scope="module")
def cli_wheel(tmp_path_factory) -> Path:
    """The CLI's wheel, built by maturin from a copy of the repository's tracked files."""
    if shutil.which("maturin") is None:
        pytest.skip("needs maturin (requirements/dev.txt)")
    work = tmp_path_factory.mktemp("cli")
    copy = work / "copy"
    files = _run(["git", "ls-files", "-z"], ROOT).stdout.split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, copy / rel)
    env = dict(os.environ, CARGO_TARGET_DIR=cargo_target("out-of-tree"))
    _run(["maturin", "build", "--release", "-q", "-m", copy / "generator" / "Cargo.toml", "-o", work / "wheels"], copy, env)
    shutil.rmtree(copy)  # nothing below may read the checkout
    (wheel,) = (work / "wheels").glob("bridgegen-*.whl")
    return wheel


# Two fresh environments and two full builds: more than pytest.ini's per-test 300 s on a
# loaded 2-core machine.
@pytest.mark.timeout(900)
def test_a_user_project_builds_ships_and_runs_without_the_checkout(cli_wheel, tmp_path):
    xsf = _xsf_include()
    pins = _pins()
    # 1. A user's environment: the CLI from its wheel, jax from PyPI.
    py = _venv(tmp_path / "user-env")
    _run([py, "-m", "pip", "install", "-q", cli_wheel, *pins, *_pins(PACKAGER_PINS)], tmp_path)
    bindir = py.parent
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}", BRIDGEGEN_XSF_INCLUDE=xsf)
    for k in ("PYTHONPATH", "BRIDGEGEN_ROOT", "CARGO_TARGET_DIR", "VIRTUAL_ENV", "BRIDGEGEN_PYTHON"):
        env.pop(k, None)
    version = _run([bindir / "bridgegen", "--version"], tmp_path, env).stdout
    assert "runtime: bridgegen_runtime 0.1.0, jax_cupy_bridge 0.1.0" in version and "XLA FFI API 0.1" in version, version

    project = tmp_path / "myproject"
    shutil.copytree(EXAMPLE, project)
    # generate writes under the working directory, never into the tool's own.
    _run(["bridgegen", "generate", "softplus.toml"], project, env)
    assert (project / "generated" / "jax_softplus" / "vendor" / "bridgegen-runtime" / "Cargo.toml").is_file()
    # At jaxlib's glibc floor (cargo-zigbuild), as released wheels are.
    _run(["bridgegen", "build", "softplus.toml", "--install", "--quiet", "--cuda-arch", "none", "--glibc", "2.28"], project, env)
    wheels = sorted(w.name for w in (project / "dist").glob("*.whl"))
    # The core runtime is pure Python; a package without [[function]] needs no delegation.
    assert wheels[0] == "bridgegen_runtime-0.1.0-py3-none-any.whl" and len(wheels) == 2, wheels
    for wheel in sorted((project / "dist").glob("*manylinux*.whl")):
        shown = _run([bindir / "auditwheel", "show", wheel], project, env).stdout
        assert 'platform tag: "manylinux_2_28_x86_64"' in " ".join(shown.split()), shown
    _run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_softplus.py"], project, env)

    # 2. Ship it: sdists, then a fresh env that builds them from source against its jax.
    _run(["bridgegen", "sdist", "softplus.toml", "--out", "sdist"], project, env)
    sdists = sorted((project / "sdist").glob("*.tar.gz"))
    assert [p.name for p in sdists] == ["bridgegen_runtime-0.1.0.tar.gz", "jax_softplus-0.1.0.tar.gz"]
    with tarfile.open(sdists[1]) as tar:
        names = tar.getnames()
    assert "jax_softplus-0.1.0/vendor/bridgegen-runtime/src/lib.rs" in names and "jax_softplus-0.1.0/softplus.toml" in names
    assert "jax_softplus-0.1.0/parts/gufuncs.toml" in names  # the file softplus.toml includes

    py2 = _venv(tmp_path / "fresh-env")
    _run([py2, "-m", "pip", "install", "-q", *pins], tmp_path)
    env2 = dict(env, PATH=f"{py2.parent}{os.pathsep}{os.environ['PATH']}", BRIDGEGEN=str(bindir / "bridgegen"))
    _run([py2, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index", "--find-links", project / "sdist",
          *sdists], tmp_path, env2)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(project / "test_softplus.py", elsewhere)
    _run([py2, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_softplus.py"], elsewhere, env2)
    # Neither the delegation runtime nor CuPy came along.
    _run([py2, "-c", "import importlib.util as u, sys, jax_softplus; "
          "assert u.find_spec('jax_cupy_bridge') is None and 'cupy' not in sys.modules"], elsewhere, env2)


def test_an_sdist_built_where_jax_is_missing_says_so_in_one_line(cli_wheel, tmp_path):
    py = _venv(tmp_path / "env")
    _run([py, "-m", "pip", "install", "-q", cli_wheel], tmp_path)
    env = dict(os.environ, PATH=f"{py.parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHONPATH", None)
    project = tmp_path / "p"
    shutil.copytree(EXAMPLE, project)
    _run(["bridgegen", "sdist", "softplus.toml"], project, env)
    done = _run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps",
                 project / "dist" / "jax_softplus-0.1.0.tar.gz"], tmp_path, env, ok=False)
    assert done.returncode != 0
    out = done.stdout + done.stderr
    assert "bridgegen backend: jax and jaxlib must be installed in the Python that builds this package" in out, out
    assert "Traceback" not in out, out
