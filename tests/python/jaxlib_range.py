"""The jaxlib range a package built in this environment admits, computed as the generator
computes it (generator/src/build/headers.rs, `JaxlibRange::new`): runtime/abi.toml's range,
widened to the release under test where `BRIDGEGEN_JAXLIB_UNDER_TEST` names one
(scripts/release_check.sh and trixie_suite.sh set it, so that the suite can run on a release
before abi.toml admits it). Tests that check the range's messages and metadata read it here,
never as literals: a literal newest release failed every release check of the next one
(jaxlib 0.12.1, 2026-12-06)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

# The import-time check's ordering of release numbers.
from bridgegen_runtime._library import _version

ABI = tomllib.loads((Path(__file__).resolve().parents[2] / "runtime" / "abi.toml").read_text())

OLDEST: str = ABI["jaxlib_oldest"]
NEWEST: str = ABI["jaxlib_newest_tested"]
EXCLUDED: list[str] = list(ABI["jaxlib_not_tested"])
_under_test = os.environ.get("BRIDGEGEN_JAXLIB_UNDER_TEST")
if _under_test:
    EXCLUDED = [v for v in EXCLUDED if v != _under_test]
    if _version(_under_test) > _version(NEWEST):
        NEWEST = _under_test
# Requirement specifier, as in Requires-Dist: ">=OLDEST,<=NEWEST,!=EXCLUDED...".
SPECIFIER = f">={OLDEST},<={NEWEST}" + "".join(f",!={v}" for v in EXCLUDED)
