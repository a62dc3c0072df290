"""Device ports, checked on the host: where a function's CUDA kernel runs code of its own
`prelude` instead of the xsf call in `expr` (lpmv: specfun.h does not compile under NVRTC;
kv, kve, ive, kn: AMOS does not; k0, k0e, k1, k1e: I0 and I1 from the math library; spherical_jn, _yn, _in, airy: their headers include AMOS; pseudo_huber: fewer transcendental calls; rgamma: Cephes' recurrence further, then the math library's lgamma; beta, betaln,
binom, poch, exp1, expi: xsf's code made faster for the device; logit, rel_entr: one log per
element; log_expit: one log1p; zetac: zeta(1 - x) without Hurwitz's series; yv, yve: Temme's method, where cephes' yv lost digits near integer orders), this builds both with g++ and compares them on random and edge inputs,
so CI without a GPU tests the port itself; ports whose float32 loop runs in single precision
(FLOAT_PORTS) are compared in float32 too. Preludes that reroute calls inside xsf's headers
on the device only (SEAMS: incbet's Gamma, igam's lgam, erfc and expm1) are built with g++ as the device reads
them and compared with SciPy. The GPU tests (test_accuracy's `_on_gpu`) check the kernels.
"""

from __future__ import annotations

import importlib.util
import itertools
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest
import scipy.special

from conditioning import KAPPA_NEAR_ZERO, condition_numbers, scipy_function
from conftest import load_spec
from near_one import assert_within_ulps_of_scipy, near_one_args

SPEC = load_spec()
UFUNCS = {u["name"]: u for u in SPEC["ufunc"]}
PRELUDES = {p["name"]: p for p in SPEC.get("prelude", [])}
# function -> largest relative difference allowed between the port and the host loops
# (lpmv: only specfun's gamma2 became tgamma, for negative orders; the bessel_ik prelude is
# another algorithm than AMOS: 3e-13 seen, the GPU tests' default tolerance is 1e-12).
PORTS = {"lpmv": 1e-13, "kv": 1e-12, "kve": 1e-12, "ive": 1e-12, "kn": 1e-12}
# rgamma: glibc's tgamma/lgamma here (CUDA's on the device) against Cephes' rgamma; an ulp of
# lgamma(171) is 1e-13 of exp(-lgamma).
PORTS["rgamma"] = 1e-12
# beta, betaln, binom, poch: the same Cephes code over the math library's tgamma/lgamma
# instead of Cephes' Gamma/lgam: an ulp of lgamma(200) is 1e-13 of exp(lgamma(a) -
# lgamma(b)); 4.5e-13 seen.
PORTS |= {"beta": 1e-12, "betaln": 1e-12, "binom": 1e-12, "poch": 1e-12}
# exp1, expi: xsf's series with k / (k + 1)^2 from a table, exp1's continued fraction with
# one division a step, expi's asymptotic terms times 1 / x: each rounds differently.
PORTS |= {"exp1": 2e-15, "expi": 2e-15}
# spherical_jn, spherical_in: cephes' jv and iv at half-integer orders where the host loops
# call AMOS (as jv's and iv's device loops): within 1e-12 of AMOS (1e-13 fails); spherical_yn:
# the same recurrence as the host loops.
PORTS |= {"spherical_jn": 1e-12, "spherical_in": 1e-12, "spherical_yn": 0.0}
# airy: cephes past |x| = 10 where the host loops call AMOS (3e-13 apart relative to the
# envelope at x < 0; the condition number allows the rest).
PORTS["airy"] = 1e-12
# pseudo_huber: v^2 / (sqrt(1 + v^2) + 1) against expm1(log1p(v^2) / 2): a few ulps, but
# xsf is 1e-13 off past |v| = 1e150 (exp of a log near 700).
PORTS["pseudo_huber"] = 1e-13
# k0, k0e, k1, k1e: xsf's Cephes code, I0 and I1 from the math library on the device only
# (the host build keeps Cephes' i0/i1, so this checks the rest of the port: the same doubles).
PORTS |= {"k0": 0.0, "k0e": 0.0, "k1": 0.0, "k1e": 0.0}
# logit, rel_entr: one log of x (1 / y) plus the quotient's rounding error near 1: 3 ulps from
# SciPy at most; log_expit: xsf's two branches as one, the same doubles.
PORTS |= {"logit": 1e-15, "rel_entr": 1e-15, "log_expit": 0.0}
# zetac: xsf's reflection formula for x < 0 with zeta(1 - x) from Cephes' rational
# approximations (1 + zetac) instead of Hurwitz's series; near zeta's trivial zeros and where
# zeta crosses 1 the condition number allows more.
PORTS["zetac"] = 1e-14
# yv, yve: the bessel_jy prelude (Temme's method) against AMOS, each some eps kappa from
# mpmath (AMOS 9e-14 relative at yv(-12.58, 18.99), where kappa is 1), as for kv.
PORTS |= {"yv": 1e-12, "yve": 1e-12}
# Ports whose float32 loop runs in single precision, checked in float32 against the host's
# float32 loop (xsf's templates in float, as SciPy's loops): largest relative difference
# (logit, rel_entr: 1 / y, x (1 / y), the residual and logf each round).
FLOAT_PORTS = {"logit": 8 * 2.0**-24, "rel_entr": 8 * 2.0**-24, "log_expit": 0.0}
# k0, k0e, k1, k1e: Cephes' Chebyshev series in float (the host's I0/I1 in double, CUDA's
# cyl_bessel_i0f/i1f on the device): 10 ulps seen just below x = 2, where Clenshaw's
# rounding is several times the sum; the float32 GPU tolerance is 1e-5.
FLOAT_PORTS |= {"k0": 16 * 2.0**-24, "k0e": 16 * 2.0**-24, "k1": 16 * 2.0**-24, "k1e": 16 * 2.0**-24}
# Functions on a log scale, compared absolutely below 1 (betaln is 0 where |B| = 1).
ABSOLUTE_BELOW_ONE = {"betaln"}
# Random inputs where the spec's test ranges are mostly outside the real domain (exp1 and
# the K functions are NaN below 0; the grid has the negative arguments).
RANGES = {"exp1": {"z": (0.0, 20.0)}, "expi": {"x": (-60.0, 60.0)}} | {k: {"x": (0.0, 20.0)} for k in ("k0", "k0e", "k1", "k1e")}
# airy: past the spec's [-30, 30], where the host loops run AMOS and the port cephes.
RANGES["airy"] = {"z": (-1000.0, 110.0)}

# Grids over each port's branch points, beside the random points of the spec's ranges.
_LPMV_GRID = list(
    itertools.product(
        [-3, -1, 0, 1, 2, 5, 7, 0.5],
        [-3.5, -2, -1, -0.5, 0, 0.25, 1, 2.5, 3, 6, 9.75, 30.5],
        [-1, -0.999, -0.6, -0.35, -0.3499, 0, 0.4, 0.999, 1, np.nan],
    )
)
# Degrees inf, NaN and past int's range at x = -1, where specfun answers +-inf before any
# loop (a GPU run drew lpmv(4, -inf, -1): NaN on the device, inf from SciPy); inf and NaN
# elsewhere (NaN from both). Not v = -2^31 at x = -1: the host loops 2^31 times there.
_LPMV_GRID += [(m, v, -1.0) for m in (-3, 0, 1, 4, 0.5) for v in (-np.inf, np.inf, np.nan, -3e9, 3e9)]
_LPMV_GRID += [(m, v, x) for m in (0, 2) for v in (-np.inf, np.inf, np.nan) for x in (-0.6, 0, 1)]
# Degrees past int's range elsewhere: 1 at x = 1 for m = 0, inf beyond (the GPU run of the
# edge grid, 2026-12-06: the port said NaN for all of them). The host loops answer these with
# the port too (specfun's int casts are undefined there), so here they only show that the
# port runs them; test_edge_sweep compares their values with SciPy's.
_LPMV_GRID += [
    (m, v, x)
    for m in (-1, 0, 1, 2)
    for v in (-1e300, -1e10, -3e9, 3e9, 1e10, 1e300, np.inf)
    for x in (-7.0, -0.5, 0.0, 0.5, 1.0, 2.0, 1e10, np.inf)
]
# Negative orders at tiny degrees, where DLMF 14.9.3's Gamma(v - m + 1) meets a pole once
# v - m + 1 rounds (specfun's 1e300 there; the GPU run's tgamma gave inf, 2026-12-06).
_LPMV_GRID += [(m, v, x) for m in (-1, -3) for v in (1e-300, -1e-300, 1e-17, 2.0000000000000004) for x in (-0.6, -0.5, 0.0, 0.5, 1.0)]
# Orders near integers (Temme's gamma1), past 50 (the uniform expansion); arguments at the
# series/CF2 switch (2), CF1/Hankel (500), AMOS's limits (1.07e9, 2.2e-305), 0, inf, NaN.
_IK_ORDERS = [-60.5, -20.0, -2.5, -1.0, -0.5, -1e-7, 0.0, 1e-7, 0.5, 1.0, 2.0000001, 2.5, 20.0, 50.5, 150.25, np.nan]
_IK_ARGS = [0.0, 1e-310, 1e-300, 1e-6, 0.5, 1.999, 2.0, 2.001, 30.0, 499.0, 501.0, 1e4, 1e9, 1.1e9, np.inf, np.nan, -1.0, -2.5]
GRIDS = {
    "lpmv": _LPMV_GRID,
    "kv": list(itertools.product(_IK_ORDERS, _IK_ARGS)),
    "kve": list(itertools.product(_IK_ORDERS, _IK_ARGS)),
    # With a point where I_{-v} = I_v + (2/pi) sin(v pi) K_v nearly cancels (CI, 2026-12-05).
    "ive": [*itertools.product(_IK_ORDERS, _IK_ARGS), (-17.63101958, 11.85299102)],
    "kn": list(itertools.product([0.0, 1.0, 2.0, 5.0, 20.0, 60.0, 200.0], _IK_ARGS)),
    # Poles, the negative range where Gamma underflows, tgamma's overflow at 171.6, 0, inf, NaN.
    "rgamma": [(x,) for x in [-200.5, -180.0, -171.5, -34.5, -34.034, -34.0, -33.9, -20.0, -4.5, -3.0, 4.5, 10.3, 34.8, 34.85, -2.5, -1.0, -1e-300, -0.0, 0.0, 1e-300, 0.5, 1.0, 34.9, 170.5, 171.0, 171.5, 172.0, 200.5, 1e6, np.inf, -np.inf, np.nan]],
    "exp1": [(x,) for x in [-700.0, -1.0, -1e-300, 0.0, 1e-300, 1e-8, 0.5, 1.0, 1.0000001, 2.0, 80.0, 700.0, 800.0, np.inf, -np.inf, np.nan]],
    # The series' and the asymptotic form's switch at 40, exp1's at -1, overflow past 709.
    "expi": [(x,) for x in [-800.0, -700.0, -1.0000001, -1.0, -0.5, -1e-300, -0.0, 0.0, 1e-300, 1e-8, 0.5, 1.0, 39.999, 40.0, 40.001, 100.0, 709.0, 720.0, np.inf, -np.inf, np.nan]],
}
# The x = 2 switch between the two Chebyshev series, 0, the domain's edge, overflow of e^x.
for _name in ("k0", "k0e", "k1", "k1e"):
    GRIDS[_name] = [(x,) for x in [-1.0, -0.0, 0.0, 1e-300, 1e-8, 0.5, 1.9999999, 2.0, 2.0000001, 10.0, 700.0, 800.0, np.inf, -np.inf, np.nan]]
# Orders at and around the argument (jn's switch between jv and the recurrence), 0, tiny,
# large and infinite arguments of either sign, NaN.
_SPH_ARGS = [-700.0, -30.0, -5.0, -1e-300, -0.0, 0.0, 1e-300, 1e-10, 0.5, 4.999, 5.0, 5.001, 29.9, 30.0, 50.0, 700.0, 1e4, np.inf, -np.inf, np.nan]
for _name in ("spherical_jn", "spherical_yn", "spherical_in"):
    GRIDS[_name] = list(itertools.product([0.0, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0], _SPH_ARGS))
# The host loops' switch to AMOS at |x| = 10, cephes' own at 2.09, AMOS's overflow of Bi at
# 103.28 and argument limit at 1048576, inf, NaN.
GRIDS["airy"] = [(x,) for x in [-1048577.0, -1048575.9996744784, -1048575.9996744783, -1e6, -300.0, -30.0, -10.0001, -10.0, -9.9999, -2.09, -0.0, 0.0, 1e-300, 2.09, 9.9999, 10.0, 10.0001, 30.0, 103.0968265011212, 103.09682650112123, 103.09684998811503, 103.2827799460052, 103.28277994600522, 103.29, 103.892, 104.0, 300.0, 1e6, 1048576.0, np.inf, -np.inf, np.nan]]
# Small and huge ratios r / delta (the 1e150 switch), zeros, the domain's edge, overflow.
_PH = [-1e300, -1e160, -1e10, -1.0, -1e-10, -1e-170, -0.0, 0.0, 1e-300, 1e-170, 1e-10, 1.0, 1e10, 1e149, 1e151, 1e300, np.inf, -np.inf, np.nan]
GRIDS["pseudo_huber"] = list(itertools.product([-1.0, 0.0, 1e-200, 1e-5, 1.0, 3.0, 1e5, 1e200, np.inf, np.nan], _PH))
# Poles, negative integers, the 171.6 overflow of Gamma, the asymptotic forms (1e6, 1e8,
# 1e10 ratios), 0, inf, NaN.
_GAMMA_ARGS = [-200.5, -171.5, -20.0, -3.0, -2.5, -1.0, -0.5, -1e-9, 0.0, 1e-9, 0.5, 1.0, 2.5, 3.0, 10.25, 150.0, 171.0, 172.0, 200.5, 1e7, 1e12, np.inf, -np.inf, np.nan]
for _name in ("beta", "betaln", "binom", "poch"):
    GRIDS[_name] = list(itertools.product(_GAMMA_ARGS, _GAMMA_ARGS))
# The bands' edges, 1/2 (logit's zero), the domain's edges and beyond, subnormal ratios.
GRIDS["logit"] = [(x,) for x in [-1.0, -0.0, 0.0, 1e-310, 1e-40, 1e-10, 0.2999999, 0.3, 0.3000001, 0.4999, 0.5, 0.5001, 0.65, 0.6500001, 0.9999999, 1.0, 1.5, np.inf, -np.inf, np.nan]]
GRIDS["log_expit"] = [(x,) for x in [-1e300, -800.0, -100.0, -20.0, -1e-10, -0.0, 0.0, 1e-10, 20.0, 100.0, 800.0, 1e300, np.inf, -np.inf, np.nan]]
# Ratios at 1/2 and 2, near 1, and past the double range (xsf's log(x) - log(y) branch).
_RE = [-1.0, -0.0, 0.0, 1e-310, 1e-300, 1e-10, 0.5, 1.0, 1.0000000001, 1.9999999, 2.0, 2.0000001, 3.0, 1e300, np.inf, np.nan]
GRIDS["rel_entr"] = list(itertools.product(_RE, _RE))
# yv, yve: integer orders (cephes' yn) and orders near them (where cephes' yv failed: 2.99942
# from the H200 run), the CF1 length at |v| = 200 and past it (cephes' yv), Temme's series /
# CF2 switch (2), Hankel's expansion (x = 50; x = v^2 / 4: 50 at v = 14.142, 5643.8 at
# 150.25), 0, tiny, inf, NaN, negative x. Not 1e9: there AMOS returns 0 or 2x the value for
# |v| = 150.25 (mpmath; the port is within 3e-16).
_JY_ORDERS = [-200.5, -150.25, -19.000001, -11.0, -3.5, -1.0000000001, -0.5, -1e-9, 0.0, 1e-300, 1e-9, 0.5, 1.0, 2.9994159, 3.0, 11.000000000002, 14.142, 14.15, 19.999999, 150.25, 200.5, np.nan]
_JY_ARGS = [-2.5, 0.0, 1e-300, 1e-6, 0.5, 1.999, 2.0, 2.001, 13.24, 49.99, 50.0, 50.01, 60.0, 5643.0, 5645.0, 1e4, 1e6, np.inf, np.nan]
GRIDS["yv"] = list(itertools.product(_JY_ORDERS, _JY_ARGS))
# yve: not where Y_v overflows (tiny x, large orders), where SciPy's yve is +inf or NaN (AMOS's
# error) and the device's -inf (specs/xsf/bessel.toml).
with np.errstate(all="ignore"):
    GRIDS["yve"] = [(v, x) for v, x in GRIDS["yv"] if not np.isinf(scipy.special.yv(v, x))]
# zetac: the small-negative switch at -0.01, trivial zeros (even negative integers), odd
# negative integers, zeta = 1 between -16 and -15, overflow of the reflection past -141, inf, NaN.
GRIDS["zetac"] = [(x,) for x in [-1e300, -300.0, -172.0, -141.5, -141.0, -100.5, -30.5, -16.0, -15.5, -15.0, -10.0, -2.0000001, -2.0, -1.9999999, -1.0, -0.5, -0.0100001, -0.01, -0.0099999, -1e-300, -0.0, 0.0, 0.5, 1.0, 1.0000001, 2.0, 10.0, 30.5, 50.0, 127.0, np.inf, -np.inf, np.nan]]


def xsf_include() -> pathlib.Path:
    spec = importlib.util.find_spec("cupy")
    if spec is None:
        pytest.skip("the CuPy wheel (xsf's headers) is not installed")
    return pathlib.Path(spec.submodule_search_locations[0]) / "_core" / "include" / "cupy"


def run_program(tmp_path, stem, src, rows):
    """Build `src` with g++ against xsf's headers, feed it `rows` (a point per line) and
    return its output lines."""
    (tmp_path / f"{stem}.cpp").write_text(src)
    exe = tmp_path / stem
    cc = subprocess.run(
        ["g++", "-std=c++17", "-O2", "-I", str(xsf_include()), "-o", str(exe), str(tmp_path / f"{stem}.cpp")],
        capture_output=True,
        text=True,
    )
    assert cc.returncode == 0, cc.stderr[-4000:]
    run = subprocess.run(
        [str(exe)],
        input="\n".join(" ".join(repr(float(v)) for v in row) for row in rows) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return run.stdout.splitlines()


def laid_out(headers, preludes=(), own=""):
    """C++ as the generator lays out a function's source: its headers, then the named
    preludes' headers (each once), <cstdio> for the test's main, the named preludes' code and
    the function's own prelude."""
    named = [PRELUDES[n] for n in preludes]
    every = [*headers, *(h for p in named for h in p.get("headers", []))]
    includes = "\n".join(f'#include "{h}"' for h in dict.fromkeys(every))
    return includes + "\n#include <cstdio>\n" + "\n".join([*(p["code"] for p in named), own])


def inputs(u, rng):
    """Random points in the spec's test ranges plus a grid over the series' branch points."""
    test = u.get("test", {})
    ranges = {**test.get("ranges", {}), **RANGES.get(u["name"], {})}
    rand = [rng.uniform(*ranges.get(a, (-10.0, 10.0)), 4000) for a in u["inputs"]]
    for a, col in zip(u["inputs"], rand):
        if a in test.get("integers", []):
            col[:] = np.round(col)
    grid = np.array(list(GRIDS[u["name"]])).T
    rand = [np.concatenate([r, g]) for r, g in zip(rand, grid)]
    return np.stack(rand, axis=1)


@pytest.mark.parametrize(
    ("name", "real"), [(n, "double") for n in sorted(PORTS)] + [(n, "float") for n in sorted(FLOAT_PORTS)]
)
def test_device_port_matches_host_loops(name, real, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    u = UFUNCS[name]
    args = ", ".join(f"{real} {a}" for a in u["inputs"])
    call = ", ".join(f"a[{k}]" for k in range(len(u["inputs"])))
    outputs = u.get("outputs", ["out"])
    # Functions of several outputs (airy) write them through references, as in the kernels.
    refs = "".join(f"{real} &{o} = o[{k}]; " for k, o in enumerate(outputs))
    body = (lambda e: f"{{ {refs}{e}; }}") if len(outputs) > 1 else (lambda e: f"{{ o[0] = {e}; }}")
    source = laid_out([*u.get("headers", []), *u.get("cuda_headers", [])], u.get("preludes", []), u.get("prelude", ""))
    # The loop's device expression (a float64 port's float32 loop casts it).
    code = "f" if real == "float" else "d"
    loop = code * len(u["inputs"]) + "->" + code * len(outputs)
    double_loop = "d" * len(u["inputs"]) + "->" + "d" * len(outputs)
    port_expr = u.get("cuda_expr_by_loop", {}).get(loop) or u.get("cuda_expr") or u["cuda_expr_by_loop"][double_loop]
    src = f"""{source}
static void host({args}, {real} *o) {body(u["expr"])}
static void port({args}, {real} *o) {body(port_expr)}
int main() {{
    double in[{len(u["inputs"])}];
    {real} a[{len(u["inputs"])}], h[{len(outputs)}], p[{len(outputs)}];
    while (true) {{
        for (int k = 0; k < {len(u["inputs"])}; ++k) {{
            if (std::scanf("%lf", &in[k]) != 1) return 0;
            a[k] = static_cast<{real}>(in[k]);
        }}
        host({call}, h);
        port({call}, p);
        for (int k = 0; k < {len(outputs)}; ++k) std::printf("%.17g %.17g ", static_cast<double>(h[k]), static_cast<double>(p[k]));
        std::printf("\\n");
    }}
}}
"""
    x = inputs(u, np.random.default_rng())
    if real == "float":  # the points the float32 loop sees
        with np.errstate(over="ignore"):  # 1e300 becomes inf
            x = x.astype(np.float32).astype(np.float64)
    table = np.loadtxt(run_program(tmp_path, "port", src, x), ndmin=2)
    assert table.shape == (len(x), 2 * len(outputs))
    with np.errstate(all="ignore"):
        f = scipy_function(u)
        # Integer arguments (kn's n) as integers: SciPy takes them so, and kappa skips them.
        integers = u.get("test", {}).get("integers", [])
        ref_args = [col.astype(np.int64) if a in integers else col for a, col in zip(u["inputs"], x.T)]
        want = f(*ref_args)
        want = want if isinstance(want, tuple) else (want,)
        kappas = condition_numbers(f, ref_args, [np.asarray(w) for w in want])
    for k, name_k in enumerate(outputs):
        label = f"{name}.{name_k}" if len(outputs) > 1 else name
        check_output(label, x, table[:, 2 * k], table[:, 2 * k + 1], kappas[k], name, real)


def check_output(label, x, host, port, kappa, name, real):
    same = (host == port) | (np.isnan(host) & np.isnan(port))
    # Near a zero both may differ by about kappa ulps (ive at negative orders is the difference
    # of two nearly equal terms: kappa 500 at ive(-17.63, 11.853)), as in the accuracy tests.
    with np.errstate(all="ignore"):
        allowed = (FLOAT_PORTS if real == "float" else PORTS)[name] * np.where(kappa > KAPPA_NEAR_ZERO, kappa, 1.0)
        scale = np.maximum(np.abs(host), 1.0) if name in ABSOLUTE_BELOW_ONE else np.abs(host)
        close = np.abs(port - host) <= allowed * scale
        # Below the smallest normal number compared absolutely, as the accuracy tests do
        # (Cephes' rgamma(172) is 0, the subnormal 8e-310 through lgamma).
        close |= np.abs(port - host) <= np.finfo(np.float32 if real == "float" else np.float64).tiny
    bad = ~(same | close)
    assert not bad.any(), (
        f"{label}: port differs from the host loops at {x[bad][:5]}: {host[bad][:5]} vs {port[bad][:5]}"
    )
    assert np.isfinite(host).sum() > len(x) // 2  # the comparison saw real values


# Named preludes that reroute calls inside xsf's headers on the device (a macro while the
# headers are read), or take another path there (f_quantile: fdtri's unrefined incbi root);
# their device code is also built here, with JAX_XSF_SEAMS_ON_HOST, and compared with SciPy
# as the GPU test compares the kernels (glibc's tgamma/lgamma here, the CUDA math library's
# there).
SEAMS = {"igam_math_library", "incbet_device", "f_quantile"}
SEAM_FUNCTIONS = sorted(n for n, u in UFUNCS.items() if SEAMS & set(u.get("preludes", [])))
CTYPE = {"d": "double", "l": "long long", "i": "int"}


@pytest.mark.parametrize("name", SEAM_FUNCTIONS)
def test_seam_prelude_matches_scipy(name, tmp_path):
    from test_accuracy import RTOL, compare, random_args, without_documented_points

    if shutil.which("g++") is None:
        pytest.skip("no g++")
    u = UFUNCS[name]
    # The float64 loop of the kernels and their expression, laid out as the generated .cu:
    # cuda_headers (else headers), the named preludes' headers, their code, the own prelude.
    sig = next(lp for lp in (lp.split(" as ")[-1] for lp in u["loops"]) if lp.endswith("->d") and "d" in lp.split("->")[0])
    ins = sig.split("->")[0]
    expr = u.get("cuda_expr_by_loop", {}).get(sig) or u.get("cuda_expr") or u["expr"]
    source = laid_out(u.get("cuda_headers", u.get("headers", [])), u.get("preludes", []), u.get("prelude", ""))
    params = ", ".join(f"{CTYPE[c]} {a}" for c, a in zip(ins, u["inputs"]))
    src = f"""#define JAX_XSF_SEAMS_ON_HOST 1
{source}
static double kernel({params}) {{ return {expr}; }}
int main() {{
    double in[{len(ins)}];
    while (true) {{
        for (int k = 0; k < {len(ins)}; ++k)
            if (std::scanf("%lf", &in[k]) != 1) return 0;
        std::printf("%.17g\\n", kernel({", ".join(f"static_cast<{CTYPE[c]}>(in[{k}])" for k, c in enumerate(ins))}));
    }}
}}
"""
    args = without_documented_points(name, random_args(u, sig, np.random.default_rng()))
    got = np.loadtxt(run_program(tmp_path, "seam", src, zip(*args)), ndmin=1)
    assert got.shape == (len(args[0]),)
    f = scipy_function(u)
    ref_args = [a.astype(np.int64) if a.dtype.kind == "i" else a.astype(np.float64) for a in args]
    with np.errstate(all="ignore"):
        want = np.asarray(f(*ref_args))
        kappa = condition_numbers(f, ref_args, [want])[0]
    compare(f"{name}[{sig}] (seam on the host)", got, want, "d", u.get("test", {}).get("rtol64_gpu", RTOL["cuda"][0]), kappa, ref_args)


@pytest.mark.parametrize("real", ["double", "float"])
@pytest.mark.parametrize("name", ["logit", "rel_entr"])
def test_log_ratio_near_one_matches_scipy(name, real, tmp_path):
    """Where the ratio is within a few ulps to 1e-1 of 1, logit's and rel_entr's device code
    agrees with SciPy (float64, rounded for the float32 loop) to 4 ulps, not only to the
    condition number's allowance, which a plain log of the rounded ratio (cupyx's) also meets."""
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    u = UFUNCS[name]
    call = ", ".join(f"static_cast<{real}>(in[{k}])" for k in range(len(u["inputs"])))
    src = f"""{laid_out([], ["log_one_call"])}
int main() {{
    double in[{len(u["inputs"])}];
    while (true) {{
        for (int k = 0; k < {len(u["inputs"])}; ++k)
            if (std::scanf("%lf", &in[k]) != 1) return 0;
        std::printf("%.17g\\n", static_cast<double>(jax_xsf_log1::{name}({call})));
    }}
}}
"""
    dtype = np.float32 if real == "float" else np.float64
    args = near_one_args(name, dtype, 3000, np.random.default_rng())
    got = np.loadtxt(run_program(tmp_path, "near", src, zip(*[a.astype(np.float64) for a in args])), ndmin=1)
    assert_within_ulps_of_scipy(f"{name}({real})", got, args, scipy_function(u), dtype)


# digamma's roots; the series' discs about them (r +- 0.3 and 0.5: the most terms at the edge).
_NEGROOT = -0.504083008264455409
_POSROOT = 1.4616321449683623


@pytest.mark.parametrize(("table", "root"), [("kNegRootZeta", _NEGROOT), ("kPosRootZeta", _POSROOT)])
def test_digamma_series_table_is_scipy_zeta(table, root):
    """The digamma_series prelude's tables hold zeta(n + 1, r) at digamma's roots r, n = 1..99,
    as scipy.special.zeta rounds them (the same Cephes zeta as xsf's series calls)."""
    from scipy import special

    code = PRELUDES["digamma_series"]["code"]
    body = re.search(rf"{table}\[99\] = \{{(.*?)\}};", code, re.S).group(1)
    got = np.array([float(v) for v in body.split(",") if v.strip()])
    want = special.zeta(np.arange(2, 101), root)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def _digamma_points(rng, complex_):
    """Both discs and their edges, the spec's range, poles, 0, inf, NaN (complex: around both
    discs, near the negative axis where the reflection applies, and |z| past 16)."""
    re_ = np.concatenate([
        np.linspace(_NEGROOT - 0.3, _NEGROOT + 0.3, 2001),
        rng.uniform(_NEGROOT - 0.3, _NEGROOT + 0.3, 2000),
        rng.uniform(-10.0, 10.0, 2000),
        [_NEGROOT - 0.3, _NEGROOT + 0.3, np.nextafter(_NEGROOT - 0.3, 0), np.nextafter(_NEGROOT + 0.3, -1), _NEGROOT],
        [-2.0, -1.0, -0.0, 0.0, 1e-300, _POSROOT, 1e300, np.inf, -np.inf, np.nan],
    ])
    if not complex_:
        return re_, np.zeros_like(re_)
    t = rng.uniform(0, 2 * np.pi, 4000)
    rad = np.sqrt(rng.uniform(0, 1, 4000))
    disc_re = np.concatenate([_POSROOT + 0.5 * rad[:2000] * np.cos(t[:2000]), _NEGROOT + 0.3 * rad[2000:] * np.cos(t[2000:])])
    disc_im = np.concatenate([0.5 * rad[:2000] * np.sin(t[:2000]), 0.3 * rad[2000:] * np.sin(t[2000:])])
    # |z| < 0.5 (one step of the recurrence into the positive disc), reflections of both.
    more_re = rng.uniform(-20.0, 20.0, 3000)
    more_im = np.concatenate([rng.uniform(-0.6, 0.6, 1500), rng.uniform(-20.0, 20.0, 1500)])
    return np.concatenate([re_, disc_re, more_re]), np.concatenate([rng.uniform(-1, 1, len(re_)), disc_im, more_im])


@pytest.mark.parametrize("real", ["double", "float", "std::complex<double>", "std::complex<float>"])
def test_digamma_series_is_xsf_digamma(real, tmp_path):
    """digamma's expression (host loops, real kernels) gives xsf::digamma's doubles, real and
    complex: across the series' discs, at their edges, poles, 0, inf, NaN and random points."""
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    u = UFUNCS["digamma"]
    assert u["expr"] == "jax_xsf_digamma::digamma(z)" and "cuda_expr" not in u
    assert set(u.get("cuda_expr_by_loop", {})) <= {"F->F", "D->D"}  # the complex kernels: xsf's
    complex_ = real.startswith("std::complex")
    part = "float" if "float" in real else "double"
    make = f"{real}(static_cast<{part}>(re), static_cast<{part}>(im))" if complex_ else f"static_cast<{real}>(re)"
    show = "(double)w.real(), (double)w.imag()" if complex_ else "(double)w, 0.0"
    src = f"""{laid_out([], ["digamma_series"])}
int main() {{
    double re, im;
    while (std::scanf("%lf %lf", &re, &im) == 2) {{
        const {real} z = {make};
        {real} w = xsf::digamma(z);
        std::printf("%.17g %.17g ", {show});
        w = jax_xsf_digamma::digamma(z);
        std::printf("%.17g %.17g\\n", {show});
    }}
}}
"""
    x_re, x_im = _digamma_points(np.random.default_rng(), complex_)
    table = np.loadtxt(run_program(tmp_path, "digamma", src, zip(x_re, x_im)), ndmin=2)
    assert table.shape == (len(x_re), 4)
    xsf, ours = table[:, :2], table[:, 2:]
    same = ((xsf == ours) | (np.isnan(xsf) & np.isnan(ours))).all(axis=1)
    at = x_re[~same][:5] + 1j * x_im[~same][:5]
    assert same.all(), f"differs from xsf::digamma at {at}: {xsf[~same][:5]} vs {ours[~same][:5]}"
    assert np.isfinite(xsf[:, 0]).sum() > len(x_re) // 2


def test_igam_noarray_is_igam_h(tmp_path):
    """igam_math_library's igam and igamc (the asymptotic series without its array of eta's
    powers) give igam.h's doubles, as read under the same reroutes: in the series' regime
    (20 < a < 200 within 30 % of x; past 200 near x), the others and the edges."""
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    src = f"""#define JAX_XSF_SEAMS_ON_HOST 1
{laid_out([], ["igam_math_library"])}
int main() {{
    double a, x;
    while (std::scanf("%lf %lf", &a, &x) == 2) {{
        namespace c = xsf::cephes;
        std::printf("%.17g %.17g %.17g %.17g\\n", c::igam(a, x), c::igam_noarray(a, x), c::igamc(a, x), c::igamc_noarray(a, x));
    }}
}}
"""
    rng = np.random.default_rng()
    a = np.concatenate([rng.uniform(20, 200, 3000), 10.0 ** rng.uniform(2.3, 6, 1000), rng.uniform(0, 30, 2000)])
    x = np.concatenate([a[:3000] * rng.uniform(0.7, 1.3, 3000), a[3000:4000] * (1 + rng.uniform(-4, 4, 1000) / np.sqrt(a[3000:4000])), rng.uniform(0, 40, 2000)])
    edges = [(0.0, 1.0), (1.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (np.inf, 1.0), (1.0, np.inf), (np.nan, 1.0), (20.0, 20.0), (200.0, 200.0), (50.0, 50.0)]
    rows = [*zip(a, x), *edges]
    table = np.loadtxt(run_program(tmp_path, "igam", src, rows), ndmin=2)
    assert table.shape == (len(rows), 4)
    for k, name in ((0, "igam"), (2, "igamc")):
        want, got = table[:, k], table[:, k + 1]
        same = (want == got) | (np.isnan(want) & np.isnan(got))
        assert same.all(), f"{name}: differs at {np.array(rows)[~same][:5]}: {want[~same][:5]} vs {got[~same][:5]}"
    assert np.isfinite(table[:, 0]).sum() > len(rows) // 2
