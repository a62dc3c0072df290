"""Spec text cannot break what it generates: quotes, backslashes, `\\N`/`\\x` sequences,
control characters, non-ASCII, multi-line summaries and `inf`/`nan` defaults reach the
generated Python as the text they are (byte-compiled, imported, docstrings read back), the
crate builds, and the wheel METADATA keeps one line per header."""

from __future__ import annotations

import os
import py_compile
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import cargo_target

ROOT = Path(__file__).resolve().parents[2]
BRIDGEGEN = ROOT / "target" / "release" / "bridgegen"

# (No tab: Python 3.13 expands tabs in docstrings when it compiles them.)
DOC = 'Uses \\xi and \\N{DASH}, "quotes" and """triple""", a bell \x07, é, and a trailing backslash \\'
SUMMARY = 'Line one\nRequires-Dist: evil-package\n"quoted" \\ and \x01'


def _toml_basic(s: str) -> str:
    """A TOML basic string holding `s` exactly (the spec side of the test)."""
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


SPEC = f"""
[package]
name = "jax_spectext"
version = "0.1.0"
summary = {_toml_basic(SUMMARY)}

[[ufunc]]
name = "gammaln"
doc = {_toml_basic(DOC)}
headers = ["xsf/gamma.h"]
inputs = ["x"]
expr = "xsf::gammaln(x)"
loops = ["d->d"]
scipy = "scipy.special.gammaln"

[[function]]
name = "clip_to"
doc = {_toml_basic(DOC)}
cupy = "cupy.clip"
inputs = [{{ name = "a", dtypes = ["d"] }}]
outputs = [{{ name = "out", shape = "a.shape", dtype = "a.dtype" }}]
params = [{{ name = "a_min", type = "float", default = -inf }}, {{ name = "a_max", type = "float", default = inf }},
          {{ name = "fill", type = "float", default = nan }}, {{ name = "label", type = "str", default = {_toml_basic(DOC)} }}]
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not BRIDGEGEN.exists():
        pytest.skip("needs the bridgegen CLI (target/release)")
    work = tmp_path_factory.mktemp("spectext")
    (work / "spec.toml").write_text(SPEC, encoding="utf-8")
    env = dict(os.environ, CARGO_TARGET_DIR=cargo_target())
    done = subprocess.run([BRIDGEGEN, "build", "spec.toml", "--cuda-arch", "none", "--quiet", "--out", "dist"],
                          cwd=work, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-4000:]
    return work


def test_generated_python_compiles_and_reads_back_the_text(built):
    pkg = built / "generated" / "jax_spectext" / "python" / "jax_spectext"
    for f in pkg.glob("*.py"):
        py_compile.compile(str(f), doraise=True)
    code = (
        "import json, inspect, jax_spectext as m;"
        "p = inspect.signature(m.clip_to).parameters;"
        "print(json.dumps([m.__doc__, m.gammaln.__doc__, m.clip_to.__doc__, repr(p['a_min'].default), "
        "repr(p['a_max'].default), repr(p['fill'].default), p['label'].default]))"
    )
    site = built / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site,
                    *sorted((built / "dist").glob("jax_spectext-*.whl"))], check=True)
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=built)
    assert out.returncode == 0, out.stderr[-3000:]
    import json

    module_doc, ufunc_doc, function_doc, a_min, a_max, fill, label = json.loads(out.stdout)
    assert module_doc.startswith(SUMMARY)
    assert ufunc_doc.startswith(DOC) and function_doc.startswith(DOC)
    assert (a_min, a_max, fill) == ("-inf", "inf", "nan")
    assert label == DOC


def test_metadata_keeps_one_line_per_header(built):
    (wheel,) = (built / "dist").glob("jax_spectext-*.whl")
    with zipfile.ZipFile(wheel) as z:
        meta = z.read("jax_spectext-0.1.0.dist-info/METADATA").decode()
    summary = [line for line in meta.splitlines() if line.startswith("Summary:")]
    assert summary == ['Summary: Line one Requires-Dist: evil-package "quoted" \\ and']
    assert not any(line.startswith("Requires-Dist: evil") for line in meta.splitlines())
