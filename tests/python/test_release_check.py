"""The jaxlib watch's script against a published release: `scripts/release_check.sh
--build-only 0.10.2` fetches that jaxlib's headers (pip, cached), builds specs/xsf.toml
against them with the layout probe, and reports; an unknown release fails in one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _check(*args):
    return subprocess.run(["bash", "scripts/release_check.sh", *args], cwd=ROOT, capture_output=True, text=True, timeout=1200)


def test_a_published_release_builds_and_passes_the_layout_probe():
    done = _check("--build-only", "0.10.2")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "jaxlib 0.10.2: build + layout probe ok (FFI API 0.3)" in done.stdout, done.stdout
    assert "layout probe passed" in done.stderr


def test_a_release_that_does_not_exist_fails():
    done = _check("--build-only", "0.0.1")
    assert done.returncode != 0
    assert "release-check 0.0.1: build or layout probe FAILED" in done.stderr, done.stderr
