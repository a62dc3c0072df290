"""A bridgegen spec as one TOML dictionary: the root file with the `[[prelude]]`,
`[[host_only]]`, `[[ufunc]]` and `[[function]]` tables of the files its `include` names (paths relative to the root's
directory) appended in include order, as `bridgegen` reads it (docs/spec.md, "Splitting a
spec"). For scripts and tests that read specs directly; the generator is the authority.
"""

from __future__ import annotations

import pathlib
import tomllib

TABLES = ("prelude", "host_only", "ufunc", "function")


def load(path: str | pathlib.Path) -> dict:
    path = pathlib.Path(path)
    data = tomllib.loads(path.read_text())
    for rel in data.pop("include", []):
        part = tomllib.loads((path.parent / rel).read_text())
        for key in TABLES:
            data.setdefault(key, []).extend(part.get(key, []))
    return data
