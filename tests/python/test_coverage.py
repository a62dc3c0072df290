"""docs/coverage.md is what scripts/coverage.py writes from the specs (so it is fresh),
every scipy.special ufunc the specs leave out has a reason, and the README quotes the
page's counts."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_coverage_page_is_fresh_and_every_left_out_ufunc_says_why():
    pytest.importorskip("scipy")
    r = subprocess.run([sys.executable, "scripts/coverage.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_readme_counts_are_the_coverage_pages():
    page = (ROOT / "docs" / "coverage.md").read_text()
    total, cpu, gpu = re.search(
        r"has \*\*(\d+)\*\* public ufuncs.*?cover\s+\*\*(\d+)\*\* of them on the CPU, \*\*(\d+)\*\* also on CUDA", page, re.S
    ).groups()
    readme = (ROOT / "README.md").read_text()
    quoted = re.search(r"(\d+) of scipy\.special's (\d+) ufuncs on the CPU, (\d+) of them also on CUDA", readme)
    assert quoted, "README.md must quote docs/coverage.md's counts"
    assert quoted.groups() == (cpu, total, gpu), (quoted.groups(), (cpu, total, gpu))
