"""The bridgegen CLI as users run it: doctor reports problems with fixes and exits 1 when
there are any; build --json prints a machine-readable summary."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from jaxlib_range import SPECIFIER

ROOT = pathlib.Path(__file__).resolve().parents[2]
BRIDGEGEN = shutil.which("bridgegen") or str(ROOT / "target" / "release" / "bridgegen")
pytestmark = pytest.mark.skipif(not os.path.exists(BRIDGEGEN), reason="bridgegen CLI not built")


def test_doctor_on_this_environment():
    r = subprocess.run([BRIDGEGEN, "doctor", "specs/xsf.toml"], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, BRIDGEGEN_PYTHON=sys.executable), timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert "jax / jaxlib" in r.stdout and "FFI API" in r.stdout and "build would make       jax_xsf" in r.stdout


def test_doctor_names_each_problem_with_its_fix(tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    r = subprocess.run([BRIDGEGEN, "doctor"], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, BRIDGEGEN_PYTHON=str(venv / "bin" / "python")), timeout=120)  # fmt: skip
    assert r.returncode == 1, r.stdout + r.stderr
    assert "problem: jaxlib is not installed" in r.stdout and "fix: pip install jax" in r.stdout
    assert "problem: NVRTC not found" in r.stdout and "problem: no CuPy wheel" in r.stdout


def test_build_json_summary(tmp_path):
    r = subprocess.run(
        [BRIDGEGEN, "build", "specs/cupyx.toml", "--cuda-arch", "none", "--quiet", "--json", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, BRIDGEGEN_PYTHON=sys.executable), timeout=900,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    s = json.loads(r.stdout)
    # The package, the core runtime and (for its [[function]] entries) the delegation.
    names = sorted(pathlib.Path(w).name.split("-")[0] for w in s["wheels"])
    assert s["package"] == "jax_cupy" and s["reported_ffi_api"] == "0.1" and names == ["bridgegen_runtime", "jax_cupy", "jax_cupy_bridge"]
    assert s["requires_jaxlib"] == SPECIFIER and s["cuda_archs"] == []


def _cli(*args, env_extra=None, timeout=600):
    env = dict(os.environ, BRIDGEGEN_PYTHON=sys.executable, **(env_extra or {}))
    return subprocess.run([BRIDGEGEN, *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.mark.parametrize(
    "args",
    [
        ["generate", "specs/missing.toml"],
        ["check", "specs/missing.toml"],
        ["build", "specs/missing.toml"],
        ["ir", "specs/missing.toml"],
        ["doctor", "specs/missing.toml"],
        ["generate", "specs"],  # a directory, not a file
        ["build", "specs/cupyx.toml", "--jaxlib", "latest"],
        ["build", "specs/cupyx.toml", "--cuda-arch", "sm90"],
    ],
    ids=lambda a: " ".join(a),
)
def test_bad_input_is_one_clear_line_and_a_nonzero_exit(args):
    r = _cli(*args)
    assert r.returncode != 0
    assert "panicked" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines and len(lines) <= 3, r.stderr  # clap's usage hint may add two lines


@pytest.mark.parametrize("env_extra,needle", [({}, "9.9.9"), ({"PIP_NO_INDEX": "1"}, "0.7.2")], ids=["unknown version", "no network"])
def test_jaxlib_fetch_failures_are_one_line(tmp_path, env_extra, needle):
    version = "9.9.9" if needle == "9.9.9" else "0.7.2"
    r = _cli("build", "specs/cupyx.toml", "--jaxlib", version, "--out", str(tmp_path),
             env_extra=dict(env_extra, BRIDGEGEN_CACHE_DIR=str(tmp_path / "cache")))  # fmt: skip
    assert r.returncode == 1, r.stderr
    last = [ln for ln in r.stderr.splitlines() if ln.strip()][-1]
    assert last.startswith("bridgegen: pip could not fetch jaxlib " + version), r.stderr
    assert "panicked" not in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("version,api", [("0.7.2", "0.1"), ("0.9.2", "0.3"), ("0.12.0.1", "0.5")])
def test_build_against_other_jaxlib_releases(tmp_path, version, api):
    # Headers fetched with pip once per version (cached in ~/.cache/bridgegen/jaxlib).
    r = _cli("build", "specs/cupyx.toml", "--jaxlib", version, "--cuda-arch", "none", "--quiet", "--json", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    s = json.loads(r.stdout)
    assert (s["jaxlib"], s["header_ffi_api"], s["reported_ffi_api"]) == (version, api, "0.1")


def test_wheels_install_into_a_fresh_directory_and_pass_cpu_tests(tmp_path):
    r = _cli("build", "specs/xsf.toml", "--cuda-arch", "none", "--quiet", "--out", str(tmp_path / "dist"))
    assert r.returncode == 0, r.stderr[-3000:]
    site = tmp_path / "site"
    wheels = [str(p) for p in (tmp_path / "dist").glob("*.whl")]
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), *wheels], check=True)
    env = dict(os.environ, PYTHONPATH=str(site))
    t = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "gammaln or kv or sici or dtype",
         "tests/python/test_accuracy.py", "tests/python/test_ufunc_api.py"],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    assert t.returncode == 0, t.stdout[-3000:]
    check = subprocess.run([sys.executable, "-c", "import jax_xsf; print(jax_xsf.__file__)"], capture_output=True, text=True, env=env)
    assert str(site) in check.stdout  # the fresh install was the one tested


def test_a_cpp_error_in_the_spec_is_reported_at_the_spec_line(tmp_path):
    # Host C++ carries `#line` directives: the compiler's error names the spec's line and
    # column (in the root spec or in a file it includes), and bridgegen's last words list
    # exactly those lines.
    example = ROOT / "examples" / "softplus_lib"
    shutil.copytree(example / "parts", tmp_path / "parts")
    typos = {"typo.toml": (example / "softplus.toml", "xsf::gammaln(x)", "xsf::gamaln(x)", "'gamaln' is not a member of 'xsf'"),
             "parts/gufuncs.toml": (example / "parts" / "gufuncs.toml", "jax_softplus_la::matvec(a", "jax_softplus_la::matvek(a",
                                    "'matvek' is not a member of 'jax_softplus_la'")}  # fmt: skip
    where = {}
    for name, (src, good, bad, _) in typos.items():
        text = src.read_text()
        assert text.count(good) == 1
        (tmp_path / name).write_text(text.replace(good, bad))
        lines = (tmp_path / name).read_text().splitlines()
        line = next(i for i, s in enumerate(lines, 1) if bad in s)
        where[name] = (line, lines[line - 1].index(bad.split("::")[1].split("(")[0]) + 1)
    r = subprocess.run([BRIDGEGEN, "build", "typo.toml", "--cuda-arch", "none", "--quiet", "--out", "dist"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, BRIDGEGEN_PYTHON=sys.executable))  # fmt: skip
    assert r.returncode == 1, r.stderr[-3000:]
    tail = r.stderr[r.stderr.index("bridgegen: the C++ of typo.toml does not compile"):]
    for name, (line, col) in where.items():
        assert f"{name}:{line}:{col}: error: {typos[name][3]}" in tail, tail
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
