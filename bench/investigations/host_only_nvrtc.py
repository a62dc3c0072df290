"""Why is each host-only function host only (issue 17 item 2: "on the GPU wherever NVRTC
compiles it")? No GPU needed.

Copies specs/ to a temporary directory, turns every function whose `platforms` lacks
"cuda" into a device function, runs `bridgegen generate` on the copy, and compiles each such
function's kernel source with NVRTC and the options `bridgegen build` passes (the ones
register_caps.py times with), one process per function with a time limit. Prints, grouped by
the first compiler error, which functions fail and why, and which compile (those could go on
the device once a GPU run has tested them). The `[[host_only]]` groups of specs/xsf.toml record
the answer; lowering for CUDA quotes it, and docs/coverage.md shows it.

    python bench/investigations/host_only_nvrtc.py [--out probe.json] [--only ber,gdtria]

Needs `bridgegen` on PATH (target/release), NVRTC and CuPy's headers (requirements/dev.txt).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import spec_toml  # noqa: E402

LIMIT_S = 600  # cdflib's gdtria took 126 s for one architecture on a 2-core machine

COMPILE = """
import sys
sys.path.insert(0, {here!r})
import register_caps as r
lib, _ = r.load_nvrtc()
r.compile_one(lib, open({src!r}).read(), {name!r}, r.nvrtc_options(None))
"""


def host_only() -> list[str]:
    spec = spec_toml.load(ROOT / "specs" / "xsf.toml")
    default = spec.get("defaults", {}).get("platforms", ["cpu", "cuda"])
    return [u["name"] for u in spec["ufunc"] if "cuda" not in u.get("platforms", default)]


def first_error(log: str) -> str:
    """The first compiler error, without the include path before `xsf/`."""
    for line in log.splitlines():
        if "error" in line and ("(" in line or "catastrophic" in line):
            return re.sub(r"^\S*?/include/cupy/", "", line.strip())
    return log.strip().splitlines()[-1] if log.strip() else "no log"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=pathlib.Path)
    p.add_argument("--only", default="")
    a = p.parse_args()
    names = [n for n in host_only() if not a.only or n in a.only.split(",")]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        shutil.copytree(ROOT / "specs", tmp / "specs")
        for f in (tmp / "specs").rglob("*.toml"):
            text = f.read_text().replace('platforms = ["cpu"]', 'platforms = ["cpu", "cuda"]')
            # Without the [[host_only]] groups, which may not name device functions.
            f.write_text(re.sub(r"\[\[host_only\]\]\nwhy = .*\nfunctions = \[.*\]\n", "", text))
        subprocess.run(["bridgegen", "generate", str(tmp / "specs" / "xsf.toml"), "--out", str(tmp / "gen")],
                       check=True, capture_output=True)
        for name in names:
            src = tmp / "gen" / "rust" / "cuda" / f"{name}.cu"
            code = COMPILE.format(here=str(pathlib.Path(__file__).parent), src=str(src), name=f"{name}.cu")
            started = time.time()
            try:
                run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=LIMIT_S)
                status = "compiles" if run.returncode == 0 else first_error(run.stderr)
            except subprocess.TimeoutExpired:
                status = f"no answer within {LIMIT_S} s"
            results[name] = {"status": status, "seconds": round(time.time() - started, 1)}
            print(f"{name}: {status} ({results[name]['seconds']} s)", flush=True)
    groups: dict[str, list[str]] = {}
    for name, r in results.items():
        groups.setdefault(r["status"], []).append(name)
    print()
    for status, fns in groups.items():
        print(f"{status}\n    {' '.join(fns)}")
    if a.out:
        a.out.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
