"""docs/coverage.md is what scripts/coverage.py writes from the specs (so it is fresh),
every scipy.special ufunc the specs leave out has a reason, and the README quotes the
page's counts."""

from __future__ import annotations

import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_coverage_page_is_fresh_and_every_left_out_ufunc_says_why():
    scipy = pytest.importorskip("scipy")
    # The page counts the pinned SciPy's ufuncs (requirements/dev.txt); another SciPy (the
    # trixie chroot's SCIPY=1.18.1 runs, the GPU machine's) has other ones.
    pinned = re.search(r"^scipy==(\S+)$", (ROOT / "requirements" / "dev.txt").read_text(), re.M).group(1)
    if scipy.__version__ != pinned:
        pytest.skip(f"docs/coverage.md is generated with the pinned SciPy {pinned}, this is {scipy.__version__}")
    r = subprocess.run([sys.executable, "scripts/coverage.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_readme_quotes_the_counts():
    # `coverage.py --check` (above) compares the quoted counts with the page's; this makes
    # sure there is a line to compare (a README without it would pass that check).
    spec = importlib.util.spec_from_file_location("bg_coverage_script", ROOT / "scripts" / "coverage.py")
    cov = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cov)
    assert cov.README_LINE.search((ROOT / "README.md").read_text()), "README.md must quote docs/coverage.md's counts"


def test_every_host_only_function_says_why(tmp_path):
    # A host-only function in none of its spec's [[host_only]] groups is a problem `--check`
    # reports (the page's last section lists the groups; the generator checks the groups).
    pytest.importorskip("scipy")
    spec = importlib.util.spec_from_file_location("bg_coverage_script", ROOT / "scripts" / "coverage.py")
    cov = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cov)
    section, problems = cov.host_only()
    assert problems == [] and "## Why not on the GPU" in section
    specs = tmp_path / "specs"
    shutil.copytree(ROOT / "specs", specs)
    text = (specs / "xsf.toml").read_text()
    assert '"kolmogi", "kolmogorov"' in text
    (specs / "xsf.toml").write_text(text.replace('"kolmogi", "kolmogorov"', '"kolmogorov"'))
    _, problems = cov.host_only(specs)
    assert problems == ["kolmogi has no CUDA kernel and no [[host_only]] reason in specs/xsf.toml"]
