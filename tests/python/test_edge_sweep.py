"""Every ufunc loop of specs/xsf.toml on every combination of edge values, against
scipy.special, on CPU and (marker `gpu`) on CUDA.

test_accuracy.py mixes edge values into fresh random draws, so an edge meets another edge
only by chance and a device-only bug at one such corner surfaces in one run out of many
(lpmv(4, -inf, -1) on the device, 2026-12-06). Here the grid is deterministic: the outer
product of each argument's edge values, so every corner is met in every run. The checks
are test_accuracy's (NaN pattern, infinities, relative error with the condition number),
with the same documented differences, plus the corners listed in EDGE_DIFFERS below.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

from test_accuracy import (
    COMPLEX,
    EDGES,
    INTS,
    MODERATE_EDGES,
    REAL,
    SCIPY_CRASHES_ON_NAN,
    UFUNCS,
    cases,
    check_args_against_scipy,
    jax_xsf,
    with_characteristic_values,
    without_documented_points,
)

INTEGER_EDGES = np.array([0.0, 1.0, 2.0, 5.0, -1.0])
COMPLEX_EDGES = np.array([r + 1j * i for r in (0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 10.0, np.nan) for i in (0.0, 1.0, -1.0, 0.5)])
# Four or more arguments: fewer values each, so the grid stays near 10^4 points.
FEWER_EDGES = np.array([0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 1e300, -1e300, np.nan, np.inf, -np.inf])

# Corners the grid meets where SciPy's value is not the function's, or the conventions of this
# xsf (CuPy 14.2's) and SciPy 1.17's differ (name -> (why, mask over the arguments of the
# points left out)). Ours at each is checked in test_edge_values_where_scipy_differs.
EDGE_DIFFERS = {
    "hyp0f1": (
        "v = 1 where I_0(2 sqrt z) overflows: inf here; SciPy's large-order expansion divides by "
        "nu = v - 1 = 0 and its value is the 0 of the ZeroDivisionError it ignores",
        lambda v, z: (v == 1) & (z > 1.3e5),
    ),
    "betainc": (
        "b = 1e300 and x = 1e-300 (b x = 1): I_x(a, b) is P(a, b x) to O(1 / b), gammainc(2, 1) = "
        "0.264 at a = 2; SciPy's (Boost's) ibeta is NaN there",
        lambda a, b, x: np.isfinite(b) & (b >= 1e300) & (x > 0) & (x <= 1e-300),
    ),
    "hyp2f1": (
        "real a and c both non-positive integers (a >= c): this xsf sums the terminating series "
        "(2F1(-1, 3; -1; 0.5) = 2.5); SciPy 1.17 takes (1 - z)^-b where a = c (8, inf past |z| = 1) "
        "and NaN where the terminating sum is 0",
        lambda a, b, c, z: (not np.iscomplexobj(z)) & (a <= 0) & (a == np.round(a)) & (c <= 0) & (c == np.round(c)) & (a >= c),
    ),
    "nrdtrimn": (
        "p = 1/2 and std = inf: the mean x - std ndtri(p) is x - inf * 0, NaN here; SciPy's cdflib "
        "root search stops at -6.6e-17 std, -inf",
        lambda p, std, x: (p == 0.5) & np.isinf(std),
    ),
    # (The spheroidal functions' grids are their moderate edges without NaN: skip_edges.)
    **{
        name: (
            "c = x = 0: specfun's oblate radial code reads values it never set there (SciPy 1.17.1 "
            "at m = n = 0: 1 or 25882 from run to run); the spec answers NaN",
            lambda *args: (args[2] == 0) & (args[-1] == 0),
        )
        for name in ("obl_rad1", "obl_rad1_cv")
    },
    "struve": (
        "integer v at |x| = 1e300: SciPy's value goes through cephes' y0 / y1, whose phase is wrong "
        "there (SciPy's y0(1e300) = -6.5e-151; mpmath and ours -1.368136045034248e-151)",
        lambda v, x: (v == np.round(v)) & (np.abs(x) > 1e100),
    ),
}
# Where SciPy (and this xsf) take time proportional to |q|: zeta(x, q) for negative non-integer
# q sums |q| terms; the condition numbers' steps about q = -1e10 took SciPy 160 s a point.
TOO_SLOW = {"zeta": lambda x, q: q < -1e6}


def edge_values(u, code, arg, nargs):
    test = u.get("test", {})
    if code in INTS or arg in test.get("integers", []):
        vals = INTEGER_EDGES
    elif code in COMPLEX:
        vals = COMPLEX_EDGES
    elif test.get("skip_edges", False):
        vals = MODERATE_EDGES
    elif nargs >= 4:
        vals = FEWER_EDGES
    else:
        vals = EDGES
    if u["name"] in SCIPY_CRASHES_ON_NAN:
        vals = vals[~np.isnan(vals)]
    return vals


def edge_grid(u, sig):
    """The outer product of each argument's edge values, in the loop's types."""
    codes = sig.split("->")[0]
    axes = [edge_values(u, c, a, len(codes)) for c, a in zip(codes, u["inputs"])]
    args = []
    for c, g in zip(codes, np.meshgrid(*axes, indexing="ij")):
        g = g.ravel()
        with np.errstate(over="ignore"):
            args.append(g.real.astype(INTS[c]) if c in INTS else g.astype({**REAL, **COMPLEX}[c]))
    args = with_characteristic_values(u, args)
    for masks in (EDGE_DIFFERS, TOO_SLOW):
        if u["name"] in masks:
            mask = masks[u["name"]]
            keep = ~(mask[1] if isinstance(mask, tuple) else mask)(*args)
            args = [a[keep] for a in args]
    return without_documented_points(u["name"], args)


def check_edges(name, sig, platform):
    check_args_against_scipy(name, sig, platform, edge_grid(UFUNCS[name], sig))


@pytest.mark.parametrize("name,sig", list(cases()))
def test_edge_grid_matches_scipy(name, sig):
    check_edges(name, sig, "cpu")


@pytest.mark.gpu
@pytest.mark.parametrize("name,sig", list(cases("cuda")))
def test_edge_grid_matches_scipy_on_gpu(name, sig):
    check_edges(name, sig, "cuda")


def test_edge_values_where_scipy_differs():
    """Ours at EDGE_DIFFERS' corners: what the mathematics says, or this xsf's convention."""
    assert np.isinf(np.asarray(jax_xsf.hyp0f1(1.0, 1e10))) and np.isinf(np.asarray(jax_xsf.hyp0f1(np.float32(1), np.float32(1e10))))
    np.testing.assert_allclose(np.asarray(jax_xsf.hyp0f1(1.0, 1e5)), scipy.special.i0(2 * np.sqrt(1e5)), rtol=1e-13)
    # I_x(a, b) -> P(a, b x) as b -> inf.
    for a in (0.5, 2.0, 3.0, 10.0):
        np.testing.assert_allclose(float(jax_xsf.betainc(a, 1e300, 1e-300)), scipy.special.gammainc(a, 1.0), rtol=1e-13)
    # The terminating series: 1 + (a b / c) z, and 0 where SciPy says NaN.
    assert float(jax_xsf.hyp2f1(-1.0, 3.0, -1.0, 0.5)) == 2.5 and float(jax_xsf.hyp2f1(-1.0, 1.0, -2.0, -2.0)) == 0.0
    assert np.isnan(float(jax_xsf.nrdtrimn(0.5, np.inf, 0.0))) and float(jax_xsf.nrdtrimn(0.5, 1e10, 0.25)) == 0.25
    # mpmath (50 digits): struveh(0, 1e300) = bessely(0, 1e300) + O(1e-300).
    np.testing.assert_allclose(float(jax_xsf.struve(0.0, 1e300)), -1.3681360450342480e-151, rtol=1e-14)
    for out in (*jax_xsf.obl_rad1(0.0, 0.0, 0.0, 0.0), *jax_xsf.obl_rad1_cv(0.0, 0.0, -0.0, 0.5, -0.0)):
        assert np.isnan(float(out))
