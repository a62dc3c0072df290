"""Packaging: the build's facts stamped in the library and in the package agree, a
mismatch or a jaxlib outside the supported range is an ImportError naming both versions
and the rebuild command (raised before any handler is registered), and the wheel's
metadata spans the supported jaxlib range."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest
from jaxlib_range import EXCLUDED, NEWEST, OLDEST, SPECIFIER

jax_xsf = pytest.importorskip("jax_xsf")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _lib_info():
    import ctypes

    lib = ctypes.CDLL(os.path.join(os.path.dirname(jax_xsf.__file__), jax_xsf._spec.LIBRARY))
    fn = getattr(lib, jax_xsf._spec.BUILD_INFO_SYMBOL)
    fn.restype = ctypes.c_char_p
    return json.loads(fn().decode())


def test_library_and_package_carry_the_same_build_facts():
    info = _lib_info()
    assert info == json.loads(jax_xsf._build.BUILD_INFO)
    assert info["reported_ffi_api"] == "0.1" and info["jaxlib_range"][0] == OLDEST
    import importlib.metadata

    assert info["jaxlib"] == importlib.metadata.version("jaxlib")


def _run(code, env=None):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=300)


# Each message names a command that works: installing a tested jaxlib, or for a newer one
# (after testing it) rebuilding with the range widened. The range's ends and excluded
# releases come from runtime/abi.toml (tests/python/jaxlib_range.py).
TOO_NEW = "99.0.0"
OUTSIDE = {
    "0.6.0": [f"needs jaxlib {OLDEST} or newer", f"pip install -U 'jax>={OLDEST}' 'jaxlib>={OLDEST}'"],
    TOO_NEW: [
        f"tested with jaxlib {OLDEST} to {NEWEST}; this environment has jaxlib {TOO_NEW}",
        f"pip install 'jax<={NEWEST}' 'jaxlib<={NEWEST}'",
        f"bridgegen build <spec of jax_xsf> --jaxlib-newest {TOO_NEW} --install",
    ],
}
if EXCLUDED:
    OUTSIDE[EXCLUDED[-1]] = [f"was not tested with jaxlib {EXCLUDED[-1]}", f"pip install 'jax=={NEWEST}' 'jaxlib=={NEWEST}'"]


@pytest.mark.parametrize("fake", list(OUTSIDE), ids=["too old", "too new", "not tested"][: len(OUTSIDE)])
def test_jaxlib_outside_the_range_is_an_import_error_before_registration(fake):
    r = _run(
        f"""
        import importlib.metadata as md
        real = md.version
        md.version = lambda name: "{fake}" if name == "jaxlib" else real(name)
        try:
            import jax_xsf
        except ImportError as e:
            print("ImportError:", e)
        md.version = real
        import jax, jax.numpy as jnp
        print("backend fine:", int(jax.jit(lambda x: x + 1)(jnp.int32(1))))
        """
    )
    assert r.returncode == 0, r.stderr[-2000:]
    for needle in OUTSIDE[fake]:
        assert needle in r.stdout, r.stdout
    assert "backend fine: 2" in r.stdout


def test_an_excluded_release_inside_the_range_is_an_import_error(monkeypatch):
    # The installed package may exclude no release (runtime/abi.toml's jaxlib_not_tested can
    # be empty, so the case above is then not drawn): the check itself, on stamped facts
    # that exclude one, whatever abi.toml says today.
    import importlib.metadata
    import types

    from bridgegen_runtime import _library

    info = {"jaxlib_range": ["0.7.2", "0.12.1"], "jaxlib_excluded": ["0.11.1"]}

    class BuildInfo:
        restype = None

        def __call__(self):
            return json.dumps(info).encode()

    lib = types.SimpleNamespace(bg_demo_build_info=BuildInfo())
    spec = types.SimpleNamespace(BUILD_INFO_SYMBOL="bg_demo_build_info")
    real = importlib.metadata.version
    for have, raises in [("0.11.1", True), ("0.11.2", False), ("0.11.0", False)]:
        monkeypatch.setattr(importlib.metadata, "version", lambda name, have=have: have if name == "jaxlib" else real(name))
        if raises:
            with pytest.raises(ImportError, match=r"demo_pkg was not tested with jaxlib 0\.11\.1 \(it admits 0\.7\.2 to 0\.12\.1 "
                               r"except 0\.11\.1\): install a tested release, e\.g\. pip install 'jax==0\.12\.1'"):
                _library.check_build("demo_pkg", lib, spec)
        else:
            _library.check_build("demo_pkg", lib, spec)


def test_library_that_does_not_match_its_package_is_a_build_mismatch(tmp_path):
    pkg = tmp_path / "jax_xsf"
    shutil.copytree(os.path.dirname(jax_xsf.__file__), pkg)
    info = json.loads((pkg / "_build.py").read_text().split("BUILD_INFO = ", 1)[1])
    info = json.loads(info) if isinstance(info, str) else info
    info["jaxlib"] = "0.9.9"
    (pkg / "_build.py").write_text(f"BUILD_INFO = {json.dumps(json.dumps(info))}\n")
    r = _run("import jax_xsf", env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert r.returncode != 0 and "BuildMismatchError" in r.stderr and "0.9.9" in r.stderr, r.stderr[-2000:]


def test_wheel_requires_the_supported_jaxlib_range():
    wheels = sorted((ROOT / "dist").glob("jax_xsf-*.whl"))
    if not wheels:
        pytest.skip("no wheel in dist/ (run `just build`)")
    with zipfile.ZipFile(wheels[-1]) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith("METADATA"))).decode()
        assert "jax_xsf/_build.py" in z.namelist()
    assert f"Requires-Dist: jaxlib{SPECIFIER}" in meta and f"Requires-Dist: jax{SPECIFIER}" in meta
