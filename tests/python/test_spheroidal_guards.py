"""The spheroidal wave functions' guards (specs/xsf/spheroidal.toml) under AddressSanitizer:
specfun's fixed-size work arrays overflow for large orders and parameters (SciPy 1.17.1
crashes there), so each function's `expr` answers NaN outside the domain its arrays hold.
This compiles every spheroidal function's own `expr` with g++ -fsanitize=address and runs it
on and beyond each guard's boundary (and with NaN, inf and huge values): any out-of-bounds
access aborts the run, any hang trips the timeout.
"""

from __future__ import annotations

import importlib.util
import itertools
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from conftest import load_spec

SPHD = [u for u in load_spec()["ufunc"] if u.get("headers") == ["xsf/sphd_wave.h"]]


def xsf_include() -> pathlib.Path:
    spec = importlib.util.find_spec("cupy")
    if spec is None:
        pytest.skip("the CuPy wheel (xsf's headers) is not installed")
    return pathlib.Path(spec.submodule_search_locations[0]) / "_core" / "include" / "cupy"


def points():
    """(m, n - m, c) on and past the three guards' boundaries, plus non-finite values."""
    ms = [0, 1, 2, 7, 40, 100, 199, 1000, 1e4, 1e4 + 1, 1e10]
    dns = [0, 1, 2, 51, 120, 198, 199]
    cs = [0.0, 1e-12, 0.5, 3.0, 20.0, 49.5, 50.5, 99.0, 100.5, 150.0, 151.0, 200.0, 250.0, 251.0, 1e5, -3.0, -250.0]
    for m, dn, c in itertools.product(ms, dns, cs):
        yield m, m + dn, c
    # Fresh random points around the boundaries (the failing case is named on failure).
    rng = np.random.default_rng()
    for _ in range(800):
        m, dn = rng.integers(0, 200), rng.integers(0, 199)
        yield float(m), float(m + dn), float(rng.uniform(0, 260))
    for bad in (float("nan"), float("inf"), -float("inf"), 1e300):
        yield bad, 3.0, 1.0
        yield 1.0, bad, 1.0
        yield 1.0, 3.0, bad


def test_every_spheroidal_function_has_a_guarded_expr():
    names = {u["name"] for u in SPHD}
    assert {"pro_cv", "obl_cv", "pro_ang1", "obl_ang1", "pro_rad1", "pro_rad2", "obl_rad1"} <= names
    assert len(names) == 12


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
def test_spheroidal_guards_under_address_sanitizer(tmp_path):
    fns = []
    for k, u in enumerate(SPHD):
        outs = u.get("outputs", ["out"])
        args = ", ".join(f"double {a}" for a in u["inputs"])
        decl = "".join(f"double {o};\n" for o in outs)
        body = f"{u['expr']};" if len(outs) > 1 else f"double out = {u['expr']};"
        fns.append(
            f"static double f{k}({args}) {{\n{decl if len(outs) > 1 else ''}{body}\nreturn {' + '.join(outs)};\n}}"
        )
    calls = []
    for k, u in enumerate(SPHD):
        call_args = ", ".join(u["inputs"])
        # The case goes out first, so a failing run's last line of stdout names it.
        calls.append(f'std::printf("{u["name"]} %g %g %g x=%g\\n", m, n, c, x); std::fflush(stdout);')
        calls.append(f"sink += std::isnan(f{k}({call_args}));")
    src = f"""#include "xsf/sphd_wave.h"
#include <cmath>
#include <cstdio>
{chr(10).join(fns)}
int main() {{
    double m, n, c, sink = 0;
    while (std::scanf("%lf %lf %lf", &m, &n, &c) == 3) {{
        const double cv = 30.0;
        for (double x : {{0.3, 0.999, 1.5, 40.0, 1e10}}) {{
            {chr(10).join(calls)}
        }}
    }}
    std::printf("%g\\n", sink);
}}
"""
    (tmp_path / "guards.cpp").write_text(src)
    exe = tmp_path / "guards"
    cc = subprocess.run(
        [
            "g++",
            "-std=c++17",
            "-O1",
            "-g",
            "-fsanitize=address",
            "-fno-omit-frame-pointer",
            "-I",
            str(xsf_include()),
            "-o",
            str(exe),
            str(tmp_path / "guards.cpp"),
        ],
        capture_output=True,
        text=True,
    )
    assert cc.returncode == 0, cc.stderr[-4000:]
    stdin = "\n".join(f"{m!r} {n!r} {c!r}" for m, n, c in points()) + "\n"
    run = subprocess.run(
        [str(exe)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=900,
        env={"ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0"},
    )
    last = run.stdout.strip().splitlines()[-1:]
    assert run.returncode == 0, f"at {last}: " + run.stderr[:3000]
