"""Every ufunc of specs/xsf.toml, under jax.jit on CPU and (marker `gpu`) on CUDA, against
scipy.special.

Inputs are fresh random draws (the spec's `test.ranges`, else [-10, 10]) plus edge values
(0, negatives, integers, large magnitudes, nan, inf). The reference is SciPy in float64 on
the same (float32-rounded, where the loop is float32) inputs. Checks: identical NaN
pattern, identical infinities, and a max relative error of 1e-13 (float64) or 1e-5
(float32) away from zeros of the function. Documented differences leave their points out
(`*_DIFFERS` below). For the orthogonal polynomials of the 2F1 family the exact value
(exact_polynomials.py) decides where ours and SciPy's disagree: where the value overflows
(SciPy's 2F1 may give NaN, ours the infinity) and where SciPy's value is off by more
than the tolerance (its Gegenbauer and Legendre recurrences near x = 0).

"Away from zeros" is measured, not guessed: the relative condition number
kappa = sum_j |x_j df/dx_j| / |f| is estimated from SciPy by central differences. Near a
zero of f (kappa > 10) any two correct implementations may differ by about kappa ulps,
so there the bound is rtol * kappa instead of rtol; nothing is skipped.

A spec may set `test.skip_edges = true` (with a comment saying why): that function then
gets only moderate edge values (no huge magnitudes or infinities).
"""

from __future__ import annotations


import jax
import numpy as np
import scipy.special
import pytest

from conditioning import KAPPA_NEAR_ZERO, condition_numbers, scipy_at_least, scipy_function
from conftest import load_spec
from exact_polynomials import EXACT, exact_value, overflows_as

jax_xsf = pytest.importorskip("jax_xsf")

SPEC = load_spec()
# Elementwise functions; generalized ufuncs (a `signature`) have their own tests (test_gufunc.py).
UFUNCS = {u["name"]: u for u in SPEC["ufunc"] if "signature" not in u}
EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -7.0, 10.0, 1e-300, -1e-300,
                  1e10, -1e10, 1e300, -1e300, np.nan, np.inf, -np.inf])
N_RANDOM = 3000
REAL = {"f": np.float32, "d": np.float64}
COMPLEX = {"F": np.complex64, "D": np.complex128}
INTS = {"i": np.int32, "l": np.int64}


# SciPy 1.17.1's Mathieu functions crash (SIGSEGV) on q = NaN, so their reference values
# are taken without NaN edges; test_mathieu_nan_is_nan checks ours there.
# (argument, value, why): inputs where SciPy 1.17.1's value is wrong and ours is kept.
SCIPY_DIFFERS = {
    "stdtrit": [("p", 0.0, "SciPy returns +inf at p = 0, where the quantile is -inf (stdtrit(1, 1e-300) = -3.2e299)")],
    "cotdg": [("x", 0.0, "SciPy returns +inf at -0, where cot(-0) is -inf")],
    "nrdtrisd": [("p", 0.5, "SciPy's root search stops near 1e17 where the standard deviation is infinite")],
}

# Where this spec computes otherwise than SciPy: CuPy 14.2's xsf against SciPy's newer copy, or
# the spec's own construction (docs/spec.md, Known differences): name -> (why, mask over the
# arguments of the points left out).
XSF_DIFFERS = {
    "hyp2f1": (
        "a NaN argument where a, b = 0 or c = 0, -1, -2, ...: this xsf's complex hyp2f1 checks for "
        "NaN first and returns NaN, SciPy's newer one checks those cases first (1, inf)",
        lambda a, b, c, z: np.iscomplexobj(z)
        & ((a == 0) | (b == 0) | ((c <= 0) & (c == np.round(c))) | (z == 0))
        & (np.isnan(a) | np.isnan(b) | np.isnan(c) | np.isnan(z)),
    ),
    # (The real loop's conventions differ too, where a and c are both non-positive integers:
    # test_edge_sweep.py's grid meets them; random draws do not.)
    "eval_jacobi": (
        "complex x = 1 with a NaN beta: P_n^(alpha, beta)(1) = binom(n + alpha, n) through this xsf's complex "
        "hyp2f1 at z = 0, which returns NaN for the NaN parameter (as hyp2f1's entry); SciPy's returns 1",
        lambda n, alpha, beta, x: np.iscomplexobj(x) & (x == 1) & np.isnan(beta),
    ),
    "hyp0f1": (
        "real z <= -1e32, where 0F1 is Gamma(v) (-z)^((1 - v)/2) J_{v-1}(2 sqrt(-z)) and the phase "
        "2 sqrt(-z) (rounded: 3e134 radians off at z = -1e300) has no significant digit: this xsf's "
        "jv and SciPy's give different values, and opposite signs where the result overflows "
        "(hyp0f1(-1e-300, -1e300): -inf here, +inf in SciPy; a fresh-random CI run, 2026-12-06)",
        lambda v, z: (not np.iscomplexobj(z)) & np.isfinite(z) & (np.real(z) <= -1e32),
    ),
    # The real-degree loops take the integer degree's recurrence for integer n and |x| <= 1
    # (specs/xsf/orthogonal.toml); SciPy's take 2F1 at (1 - x) / 2, which rounds a tiny x away.
    **{
        name: (
            "0 < |x| < 1e-16 with an integer degree: SciPy's real-degree loop evaluates 2F1 at (1 - x) / 2, "
            "which rounds to 1/2 and gives exactly 0 for the odd degrees; the recurrence keeps x "
            "(T_1(1e-300) = 1e-300, as SciPy's integer-degree loop)",
            lambda n, x: (not np.iscomplexobj(x)) & (n == np.round(n)) & (n >= 0) & (x != 0) & (np.abs(x) < 1e-16),
        )
        for name in ("eval_chebyt", "eval_chebyu", "eval_chebyc", "eval_chebys", "eval_legendre")
    },
    "stdtridf": (
        "no degrees of freedom give p (stdtr(df, t) lies strictly between 1/2 and ndtr(t)): NaN here, "
        "inf at or past the normal limit; SciPy's cdflib search answers its bounds (1e10, -1e100, "
        "5e-51, and -inf at t = -inf), and the same -1e100 where one does past |t| ~ 1e100 "
        "(stdtridf(0.6, 1e140) = 6.8e-4 here); test_stdtridf_without_a_root checks ours",
        lambda p, t: (np.abs(np.asarray(t, dtype=np.float64)) > 1e100)
        | ~(((t > 0) & (p > 0.5) & (p < scipy.special.ndtr(t))) | ((t < 0) & (p < 0.5) & (p > scipy.special.ndtr(t)))),
    ),
    # The parameter inverses of the beta, binomial and negative binomial distributions
    # (specs/xsf/statistics.toml, beta_parameters): where a probability or a parameter makes
    # the distribution degenerate, or the root sits exactly at the search range's end, SciPy's
    # cdflib search answers its own bounds (1e100, 1e-100, 2.2e-308, 5, 1957.5) or NaN, and
    # answers p = 0 or 1 before checking the other arguments; ours are the limits
    # (test_beta_parameter_inverses_at_their_limits). Where SciPy 1.18 answers the same limits
    # (bdtrik, bdtrin, nbdtrik), SCIPY_OLDER_DIFFERS leaves those points out for older SciPys only.
    "btdtria": (
        "p = 0 or 1: inf or 0 here (SciPy inf or 2.2e-308, whatever b and x)",
        lambda p, b, x: (p == 0) | (p == 1),
    ),
    "btdtrib": (
        "p = 0 or 1: 0 or inf here (SciPy 2.2e-308 or inf, whatever a and x)",
        lambda a, p, x: (p == 0) | (p == 1),
    ),
    "nbdtrik": (
        "y = p^n: the least k >= 0 with nbdtr(k, n, p) >= y is 0 here; SciPy's search ends a rounding away "
        "(1.1e-16 or 5e-51). SCIPY_OLDER_DIFFERS has the other limits",
        lambda y, n, p: y == np.asarray(p, np.float64) ** n,
    ),
    "nbdtrin": (
        "y or p = 0 or 1: inf at y = 0, 0 at y = 1, NaN where nbdtr does not depend on n; SciPy's bounds or NaN",
        lambda k, y, p: (y == 0) | (y == 1) | (p == 0) | (p == 1),
    ),
    "bdtrik": (
        "y = (1 - p)^n: the least k is 0, where the root search of ours or SciPy's may end a rounding away "
        "(3e-16, 5e-51). SCIPY_OLDER_DIFFERS has the other limits",
        lambda y, n, p: y == (1 - np.asarray(p, np.float64)) ** n,
    ),
    "bdtrin": (
        "k = 0 at y = 1: n = k = 0 here, SciPy's search bound 2.2e-308. SCIPY_OLDER_DIFFERS has the other limits",
        lambda k, y, p: (k == 0) & (y == 1),
    ),
    "lpmv": (
        "m = 0, x = -1 and v not an integer (a pole, whose sign is that of -sin(pi v)): this xsf "
        "returns inf there, SciPy's -inf, each right for half of the v; the same for degrees past "
        "int's range (|v| >= 2^31, inf and NaN), which specfun's int cast takes for non-integers. "
        "At x = 1 and v = 2^31 SciPy's cast gives NaN for m <= -2, where P_v^m(1) = 0 is this "
        "spec's value for every degree past int's range (specfun's cast is undefined in C++: "
        "the spec answers those degrees without it, on the host and the device)",
        lambda m, v, x: ((m == 0) & (x == -1) & ~((v == np.round(v)) & (np.abs(v) < 2.0**31)))
        | ((m <= -2) & (x == 1) & (v == 2.0**31)),
    ),
}


# Where a SciPy newer than the pinned 1.17.1 (the GPU machine's 1.18.1) changed a value we
# keep: name -> (first SciPy version, why, mask over the arguments of the points left out).
SCIPY_NEWER_DIFFERS = {
    "expm1": (
        (1, 18),
        "expm1(nan + 0j): SciPy 1.18 returns nan + nanj; we keep C99's cexp convention, nan + 0j (SciPy 1.17.1)",
        lambda z: np.iscomplexobj(z) & np.isnan(z.real) & (z.imag == 0),
    ),
    "yn": (
        (1, 18),
        "yn(n, 0) for odd negative n: SciPy 1.18 returns -inf; this xsf's host loops and SciPy 1.17.1 +inf, "
        "the limit of Y_n = (-1)^n Y_|n| from the right (the H200 run of 2026-12-05 met it with CUDA's yn)",
        lambda n, x: (x == 0) & (n < 0) & (n % 2 != 0),
    ),
    "hyp1f1": (
        (1, 18),
        "complex z with a NaN argument: SciPy 1.18's complex hyp1f1 returns NaN first; this xsf's (specfun's "
        "cchg, SciPy 1.17.1's) gives 1 for a = 0 and inf where b is 0 or a negative integer",
        lambda a, b, z: np.iscomplexobj(z) & (np.isnan(a) | np.isnan(b) | np.isnan(z)),
    ),
    **{
        name: (
            (1, 18),
            "complex x with a NaN in x or a parameter: SciPy 1.18's complex 2F1 and 1F1 return NaN first, so its "
            "degree 0 is NaN there; we keep SciPy 1.17.1's 1, the constant polynomial (specs/xsf/orthogonal.toml's f21)",
            lambda *args: np.iscomplexobj(args[-1]) & np.any([np.isnan(a) for a in args[1:]], axis=0),
        )
        for name in (
            "eval_jacobi", "eval_sh_jacobi", "eval_gegenbauer", "eval_chebyt", "eval_chebyu", "eval_chebyc",
            "eval_chebys", "eval_sh_chebyt", "eval_sh_chebyu", "eval_legendre", "eval_sh_legendre",
            "eval_genlaguerre", "eval_laguerre",
        )
    },
}


# Where SciPy 1.18 fixed a value that the pinned 1.17.1 gets wrong and we follow 1.18
# (specs/xsf/orthogonal.toml, statistics.toml's beta_parameters): name -> (first SciPy version
# with our value, why, mask over the arguments of the points left out with an older SciPy).
# Ours there: test_orthogonal_follows_scipy_1_18, test_beta_parameter_inverses_at_their_limits.
SCIPY_OLDER_DIFFERS = {
    "eval_jacobi": (
        (1, 18),
        "alpha = -1 and |beta| = 1: SciPy 1.18 (gh-7001) takes Szego's (4.22.2), SciPy 1.17 returns NaN",
        lambda n, alpha, beta, x: (alpha == -1) & (np.abs(beta) == 1),
    ),
    "eval_sh_jacobi": (
        (1, 18),
        "p - q = -1 and |q - 1| = 1: the Jacobi polynomial of alpha = -1, |beta| = 1 (see eval_jacobi)",
        lambda n, p, q, x: (p - q == -1) & (np.abs(q - 1) == 1),
    ),
    # (For a real x and an integer degree SciPy 1.18's real-degree loop is its integer-degree
    # loop; conditioning.AS_IN_NEWER_SCIPY makes an older SciPy's reference so.)
    "eval_gegenbauer": (
        (1, 18),
        "alpha = 0 (SciPy 1.18: 0 for every degree, 0 included) and real x = +-inf (gh-11713)",
        lambda n, alpha, x: (alpha == 0) | ((not np.iscomplexobj(x)) & np.isinf(x)),
    ),
    # The binomial inverses' and nbdtrik's limits (docs/spec.md): SciPy 1.18 answers them,
    # SciPy 1.17's cdflib search its bounds (5, 1e100, 1957.5, n / 2) or NaN.
    "bdtrik": (
        (1, 18),
        "y = 0 with p = 1 (0; SciPy 1.17 n / 2), and p = 0 or n = 0 (0; SciPy 1.17 NaN)",
        lambda y, n, p: ((y == 0) & (p == 1)) | (p == 0) | (n == 0),
    ),
    "bdtrin": (
        (1, 18),
        "y or p = 0 or 1: inf at y = 0, k at y = 1, else NaN where bdtr does not depend on n; SciPy 1.17's "
        "bounds (1957.5, 5, 1e100, 1e-100) or values below k",
        lambda k, y, p: (y == 0) | (y == 1) | (p == 0) | (p == 1),
    ),
    "nbdtrik": (
        (1, 18),
        "y or p = 0 or 1, or n = 0: 0 at y = 0 or p = 1, inf at y = 1 or p = 0, NaN at n = 0 (as nbdtr); "
        "SciPy 1.17's bounds (5, 1e100) or 0 at p = 0",
        lambda y, n, p: (y == 0) | (y == 1) | (p == 0) | (p == 1) | (n == 0),
    ),
}


def test_scipy_exceptions_are_what_the_math_says():
    z = complex(jax_xsf.expm1(np.complex128(complex(np.nan, 0.0))))
    assert np.isnan(z.real) and z.imag == 0
    assert float(jax_xsf.stdtrit(1.0, 0.0)) == -np.inf and float(jax_xsf.stdtrit(1.0, 1.0)) == np.inf
    assert float(jax_xsf.cotdg(-0.0)) == -np.inf and float(jax_xsf.cotdg(0.0)) == np.inf
    assert float(jax_xsf.nrdtrisd(0.0, 0.5, 1.0)) == np.inf
    assert float(jax_xsf.yn(np.int64(-1), 0.0)) == np.inf and float(jax_xsf.yn(np.int64(-2), 0.0)) == -np.inf


def test_orthogonal_follows_scipy_1_18():
    # SciPy 1.18's test_orthogonal_eval.py: its Mathematica values for P_n^(-1, 1) (gh-7001) and
    # C_n^(alpha)(+-inf) (gh-11713); whichever SciPy is installed.
    x = np.linspace(-1.0, 1.0, 11)
    want = {
        3: [-4.0, -1.98, -0.64, 0.14, 0.48, 0.5, 0.32, 0.06, -0.16, -0.22, 0.0],
        5: [-6.0, -0.43308, 0.79104, 0.36876, -0.21312, -0.375, -0.14208, 0.15804, 0.19776, -0.04812, 0.0],
    }
    for n, w in want.items():
        for degree in (np.int64(n), float(n)):
            np.testing.assert_allclose(np.asarray(jax_xsf.eval_jacobi(degree, -1.0, 1.0, x)), w, rtol=1e-10, atol=1e-14)
    for n in range(6):
        for alpha in (-0.45, 0.0, 0.25, 2.0):
            for sign in (-1.0, 1.0):
                if alpha == 0.0:
                    expected = 0.0
                elif n == 0:
                    expected = 1.0
                else:
                    lead = scipy.special.gammasgn(n + alpha) * scipy.special.gammasgn(alpha)
                    expected = lead * sign**n * np.inf
                for degree in (np.int64(n), float(n)):
                    assert float(jax_xsf.eval_gegenbauer(degree, alpha, sign * np.inf)) == expected
    # Degree 0 of alpha = 0 is 0 in SciPy 1.18 (1 in 1.17): C_n^(0) = 0 for every n.
    assert float(jax_xsf.eval_gegenbauer(np.int64(0), 0.0, 0.3)) == 0.0
    # A tiny x kept by the real degree's recurrence (XSF_DIFFERS).
    assert float(jax_xsf.eval_chebyt(1.0, 1e-300)) == 1e-300 and float(jax_xsf.eval_legendre(3.0, -1e-300)) == 1.5e-300


@pytest.mark.parametrize("platform", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_incomplete_beta_large_parameters_matches_scipy(platform):
    # The spec's random ranges stop at 50; past 8 incbet's factor x^a (1 - x)^b / B(a, b) is
    # the incbet_large prelude's (cephes' lbeta form was 1.2e-11 off at a, b ~ 1e3, 5e-10 at
    # 1e4). SciPy (Boost's ibeta) is within 3e-13 of mpmath here
    # (bench/investigations/incbet_large_parameters.py). Both parameters in [8, 1e5], or one
    # in [0.1, 8] and the other to 1e6 (where cephes' continued fraction, its z from a rounded
    # 1 - x, was 5.2e-12 off); x within four standard deviations of the mean. The device
    # takes basym from 1000 (the host from 100; specs/xsf/statistics.toml), where its
    # continued fraction alone was 5.7e-12 off at 1e5.
    device = jax.devices(platform)[0]
    rng = np.random.default_rng()
    n = 4000
    top = 5
    a, b = 10 ** rng.uniform(np.log10(8), top, (2, n))
    small = rng.random(n) < 0.5
    a = np.where(small, 10 ** rng.uniform(np.log10(8), top + 1, n), a)
    b = np.where(small, 10 ** rng.uniform(-1, np.log10(8), n), b)
    a, b = np.where(rng.random(n) < 0.5, (b, a), (a, b))
    m = a / (a + b)
    x = np.clip(m + rng.uniform(-4, 4, n) * np.sqrt(m * (1 - m) / (a + b + 1)), 0, 1)
    for f, rtol in ((jax_xsf.betainc, 1e-12), (jax_xsf.betaincc, 1e-12)):
        got = np.asarray(jax.jit(f)(*jax.device_put([a, b, x], device)))
        want = getattr(scipy.special, f.__name__)(a, b, x)
        np.testing.assert_array_less(np.abs(got - want), rtol * np.abs(want) + 1e-300)


def test_incomplete_beta_with_one_parameter_past_1e150():
    # One parameter l past 1e150 and the other s small, l x between 0.01 and 50: cephes'
    # continued fractions square a + b and overflow past 1.3e154, so betainc(1, 1e160, 1e-159)
    # was NaN (SciPy 0.99995). The host takes the gamma limit there, I_x(s, l) = P(s, -l log(1 - x))
    # to O(s / l) (incbet_large's incbet); betaincc reaches its other branch (s, l swapped, with
    # y = x exact). SciPy's betainc is NaN at 15 % of these points; the rest are compared.
    # The device keeps NaN there (specs/xsf/statistics.toml; docs/spec.md).
    rng = np.random.default_rng()
    n = 4000
    a = rng.uniform(0.1, 15, n)
    b = 10 ** rng.uniform(150, 300, n)
    x = rng.uniform(0.01, 50, n) / b
    for f in (jax_xsf.betainc, jax_xsf.betaincc):
        got = np.asarray(jax.jit(f)(a, b, x))
        want = getattr(scipy.special, f.__name__)(a, b, x)
        assert not np.isnan(got).any(), f.__name__
        ok = np.isfinite(want)
        np.testing.assert_allclose(got[ok], want[ok], rtol=1e-13, err_msg=f.__name__)


@pytest.mark.parametrize("platform", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_incomplete_beta_inverses_large_parameters_match_scipy(platform):
    # Past a parameter of 50 incbi's root is refined on incbet_large (the incbet_inverse
    # prelude): incbi alone was 2.8e-12 off at a, b ~ 1e4, 3.4e-6 at 1e6, and off in every digit
    # in the far tails (betaincinv(22715, 361, 6.6e-244) = 1.1e-16, SciPy 0.94). Both
    # parameters in [50, 1e5], or one in [0.1, 50] and the other to 1e4; p uniform or
    # log-uniform down to 1e-30, either tail. Further out SciPy's (Boost's) roots are the ones
    # off: betaincinv(75.9, 1.0e5, 1.7e-93) = 1.5e-8, mpmath 1.78e-5
    # (bench/investigations/incbet_large_parameters.py).
    device = jax.devices(platform)[0]
    rng = np.random.default_rng()
    n = 4000
    a, b = 10 ** rng.uniform(np.log10(50), 5, (2, n))
    small = rng.random(n) < 0.5
    b = np.where(small, 10 ** rng.uniform(-1, np.log10(50), n), b)
    a = np.where(small, np.minimum(a, 1e4), a)
    a, b = np.where(rng.random(n) < 0.5, (b, a), (a, b))
    p = np.where(rng.random(n) < 0.5, rng.uniform(0, 1, n), 10 ** rng.uniform(-30, np.log10(0.5), n))
    p = np.where(rng.random(n) < 0.5, p, 1 - p)
    for f in (jax_xsf.betaincinv, jax_xsf.betainccinv):
        got = np.asarray(jax.jit(f)(*jax.device_put([a, b, p], device)))
        want = getattr(scipy.special, f.__name__)(a, b, p)
        # 6.2e-13 measured (CPU, 20000 draws a row).
        np.testing.assert_array_less(np.abs(got - want), 2e-12 * np.abs(want) + 1e-300)


@pytest.mark.parametrize("platform", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_stdtrit_large_df_matches_scipy(platform):
    # Past df = 1e4 Hill's deviate inverted; the incbet root it replaced solved for
    # z = df / (df + t^2), whose 1 - z rounds: 1e-10 off at 1e6, 3e-2 at 1e14, 150x at 1e16.
    device = jax.devices(platform)[0]
    rng = np.random.default_rng()
    df = 10 ** rng.uniform(2, 19, 4000)
    p = 10 ** rng.uniform(-300, np.log10(0.5), 4000)
    p = np.where((rng.random(4000) < 0.5) & (p > 1e-15), 1 - p, p)
    got = np.asarray(jax.jit(jax_xsf.stdtrit)(*jax.device_put([df, p], device)))
    want = scipy.special.stdtrit(df, p)
    # 1e-12 past 1e3 (3e-15 measured past 1e4); below, z's rounding is eps df / t^2 of t.
    rtol = np.where(df > 1e3, 1e-12, 1e-11)
    np.testing.assert_array_less(np.abs(got - want), rtol * np.abs(want) + 1e-300)


def test_stdtr_large_df_matches_scipy():
    # The spec's random range stops at df = 100; past it stdtr changes method (the
    # incbet_large prelude's incbet, then Hill's expansion past 1e4, where incbet lost 3e-9 at
    # 1e6 and 2e-6 at 1e10).
    rng = np.random.default_rng()
    for lo, hi, rtol in ((1e2, 1e4, 1e-12), (1e4, 1e14, 1e-12)):
        df = 10 ** rng.uniform(np.log10(lo), np.log10(hi), 4000)
        t = rng.uniform(-20, 20, 4000)
        got = np.asarray(jax.jit(jax_xsf.stdtr)(df, t))
        want = scipy.special.stdtr(df, t)
        # Relative to the smaller tail, where the value's information is; near 1 a double
        # holds the upper tail only to its spacing there (1.1e-16: a CI draw at 1 - 5.4e-7).
        tail = np.minimum(want, 1 - want)
        np.testing.assert_array_less(np.abs(got - want), rtol * tail + 2 * np.spacing(want) + 1e-300)
    # Small df at large |t| (t^2 / df past 2^53): the tail as it is, not the centre's form,
    # whose t^2 / (df + t^2) rounds to 1 there (stdtr(0.0175, 1e10) was 1, not 0.681).
    df, t = np.meshgrid([1e-3, 0.0175, 0.3], [-1e100, -1e10, 1e10, 1e100])
    got = np.asarray(jax.jit(jax_xsf.stdtr)(df.ravel(), t.ravel()))
    np.testing.assert_allclose(got, scipy.special.stdtr(df.ravel(), t.ravel()), rtol=1e-13)


def test_stdtridf_without_a_root():
    # XSF_DIFFERS' points: NaN on the far side of 1/2 and at t = 0 or +-inf, inf at or past
    # ndtr(t); and just inside, a root that stdtr maps back to p.
    nan_points = [(0.4, 1.0), (0.5, 1.0), (0.6, -1.0), (0.3, 0.0), (0.5, 0.0), (0.7, np.inf), (0.7, -np.inf), (0.5, np.inf)]
    for p, t in nan_points:
        assert np.isnan(float(jax_xsf.stdtridf(p, t))), (p, t)
    for p, t in [(0.9, 1.0), (float(scipy.special.ndtr(1.0)), 1.0), (0.1, -1.0), (1.0, 3.0), (0.0, -3.0)]:
        assert float(jax_xsf.stdtridf(p, t)) == np.inf, (p, t)
    for p, t in [(0.5 + 1e-12, 1.0), (float(scipy.special.ndtr(1.0)) - 1e-9, 1.0), (1e-300, -40.0), (0.5 - 1e-12, -2.0), (0.6, 1e140), (0.2, -1e300)]:
        df = float(jax_xsf.stdtridf(p, t))
        assert 0 < df < np.inf and float(jax_xsf.stdtr(df, t)) == pytest.approx(p, rel=1e-13, abs=0), (p, t, df)
    # Random roots map back to p through SciPy's stdtr (the spec's rtol64 is SciPy's search's).
    rng = np.random.default_rng()
    t = rng.uniform(-10, 10, 2000)
    p = 0.5 + (scipy.special.ndtr(t) - 0.5) * rng.uniform(0.001, 0.999, 2000)
    df = np.asarray(jax.jit(jax_xsf.stdtridf)(p, t))
    np.testing.assert_allclose(scipy.special.stdtr(df, t), p, rtol=2e-14)


# CPU only while the six are host-only (specs/xsf.toml's [[host_only]]); with their kernels
# run, this takes the `cuda` platform too.
@pytest.mark.parametrize("platform", ["cpu"])
def test_beta_parameter_inverses_at_their_limits(platform):
    # XSF_DIFFERS' points of btdtria ... bdtrin: the limits, where SciPy's search answers its
    # bounds; and random roots mapped back to p through SciPy's betainc (the spec's rtol64 is
    # SciPy's search's, which stops short: 5e-11 where ours maps back within 2e-13).
    device = jax.devices(platform)[0]

    def call(name, *args):
        args = [jax.device_put(np.asarray(a, np.float64), device) for a in args]
        return np.asarray(jax.jit(getattr(jax_xsf, name))(*args))

    inf, nan = np.inf, np.nan
    limits = {
        "btdtria": [((0.0, 2.0, 0.5), inf), ((1.0, 2.0, 0.5), 0.0), ((0.0, 2.0, 1.5), nan), ((0.5, 0.0, 0.5), nan)],
        "btdtrib": [((2.0, 0.0, 0.5), 0.0), ((2.0, 1.0, 0.5), inf), ((2.0, 1.0, 0.0), nan), ((0.0, 0.5, 0.5), nan)],
        "nbdtrik": [((0.0, 3.0, 0.5), 0.0), ((0.5, 3.0, 1.0), 0.0), ((0.0, 3.0, 0.0), 0.0), ((0.125, 3.0, 0.5), 0.0),
                    ((0.5, 3.0, 0.0), inf), ((1.0, 3.0, 0.5), inf), ((0.5, 0.0, 0.5), nan)],
        "nbdtrin": [((3.0, 0.0, 0.4), inf), ((3.0, 1.0, 0.4), 0.0), ((3.0, 0.5, 1.0), nan), ((3.0, 0.5, 0.0), nan)],
        "bdtrik": [((0.0, 10.0, 1.0), 0.0), ((1.0, 10.0, 0.5), 10.0), ((0.25, 2.0, 0.5), 0.0), ((0.5, 10.0, 0.0), 0.0),
                   ((0.5, 0.0, 0.5), 0.0), ((1.0, 3.0, 0.0), 3.0), ((0.5, -1.0, 0.5), nan)],
        "bdtrin": [((3.0, 0.0, 0.4), inf), ((3.0, 1.0, 0.4), 3.0), ((3.0, 0.5, 1.0), nan), ((3.0, 0.5, 0.0), nan),
                   ((3.0, 0.0, 0.0), inf), ((3.0, 1.0, 1.0), 3.0)],
    }
    for name, points in limits.items():
        got = call(name, *np.array([a for a, _ in points]).T)
        np.testing.assert_array_equal(got, [w for _, w in points], err_msg=name)
    rng = np.random.default_rng()
    n = 2000
    a, b, x, p = rng.uniform(0.5, 30, n), rng.uniform(0.5, 30, n), rng.uniform(0.02, 0.98, n), rng.uniform(0.001, 0.999, n)
    k = rng.uniform(0, 30, n)
    back = {
        "btdtria": (lambda r: scipy.special.betainc(r, b, x), (p, b, x), p),
        "btdtrib": (lambda r: scipy.special.betainc(a, r, x), (a, p, x), p),
        "nbdtrin": (lambda r: scipy.special.betainc(r, k + 1, x), (k, p, x), p),
        "bdtrin": (lambda r: scipy.special.betainc(r - k, k + 1, 1 - x), (k, p, x), p),
    }
    for name, (forward, args, want) in back.items():
        np.testing.assert_allclose(forward(call(name, *args)), want, rtol=2e-13, err_msg=name)
    # k's inverses where the root is inside (0, n): past nbdtr(0, ...) and bdtr(0, ...).
    y = p ** a + (1 - p ** a) * rng.uniform(0.01, 0.99, n)
    np.testing.assert_allclose(scipy.special.betainc(a, call("nbdtrik", y, a, p) + 1, p), y, rtol=2e-13, err_msg="nbdtrik")
    y = (1 - p) ** b + (1 - (1 - p) ** b) * rng.uniform(0.01, 0.99, n)
    r = call("bdtrik", y, b, p)
    np.testing.assert_allclose(scipy.special.betainc(b - r, r + 1, 1 - p), y, rtol=2e-13, err_msg="bdtrik")


@pytest.mark.parametrize("platform", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_stdtrit_solves_for_the_smaller_of_z_and_w(platform):
    # stdtrit's root is z = df / (df + t^2) or w = 1 - z, whichever is below 1/2 at the start
    # (specs/xsf/statistics.toml). Solving for z alone, t^2 = df (1 - z) / z kept only
    # eps / (1 - z) of its precision near the centre at large df (1.3e-12 at df in
    # [500, 1e4]); for w alone, the same near w = 1 at small df (3.8e-9 at df in [0.1, 0.5]).
    # The measured error is past p's own rounding, which moves t by eps p / pdf(t) (2.9e-12 at
    # df = 3.4, p = 0.499985, where SciPy is the one 5.5e-13 from mpmath).
    device = jax.devices(platform)[0]
    rng = np.random.default_rng()
    stdtrit = jax.jit(jax_xsf.stdtrit)
    for (lo, hi), (p_lo, p_hi), rtol in (((500, 1e4), (0, 1), 1e-13), ((0.1, 0.5), (0.25, 0.75), 2e-11)):
        df = 10 ** rng.uniform(np.log10(lo), np.log10(hi), 4000)
        p = rng.uniform(p_lo, p_hi, 4000)
        got = np.asarray(stdtrit(*jax.device_put([df, p], device)))
        want = scipy.special.stdtrit(df, p)
        pdf = np.exp(scipy.special.gammaln((df + 1) / 2) - scipy.special.gammaln(df / 2) - 0.5 * np.log(df * np.pi) - (df + 1) / 2 * np.log1p(want**2 / df))
        slack = 4 * np.finfo(np.float64).eps * np.minimum(p, 1 - p) / pdf
        # Measured (CPU, 4 x 20000 draws): 1.5e-15 and 5.4e-12 (cephes' incbet at a = df / 2
        # below 1/4); solving for z alone or w alone, 1.4e-12 and 1e-8.
        np.testing.assert_array_less(np.abs(got - want) - slack, rtol * np.abs(want))


def test_f_distribution_with_both_complements():
    # fdtr and fdtrc take both w = dfn x / (dfd + dfn x) and v = 1 - w formed to rounding
    # (specs/xsf/statistics.toml, f_distribution); xsf's pass one to cephes' incbet, which
    # forms the other, and were 1.3e-10 - 6.2e-10 from SciPy here with a parameter past 16.
    # CPU only: the device keeps xsf's, as cupyx (the spec's random test covers it).
    rng = np.random.default_rng()
    dfn = 10 ** rng.uniform(np.log10(16), 3, 4000)
    dfd = 10 ** rng.uniform(-1, 3, 4000)
    dfn, dfd = np.where(rng.random(4000) < 0.5, (dfd, dfn), (dfn, dfd))
    x = 10 ** rng.uniform(-4, np.log10(20), 4000)
    for f in (jax_xsf.fdtr, jax_xsf.fdtrc):
        got = np.asarray(jax.jit(f)(dfn, dfd, x))
        want = getattr(scipy.special, f.__name__)(dfn, dfd, x)
        # Below 1e-100 SciPy's Boost drifts (1.1e-6 from mpmath at 1.4e-284, where we are
        # within 2e-14). Measured 4e-13 (3 x 20000 draws; SciPy itself 1.3e-13 from mpmath).
        kept = want > 1e-100
        np.testing.assert_array_less(np.abs(got - want)[kept], 1e-12 * want[kept] + 2 * np.spacing(want[kept]))
    # x = inf: SciPy's limits, where xsf's w = inf / inf was NaN.
    assert float(jax_xsf.fdtr(3.0, 4.0, np.inf)) == 1.0 and float(jax_xsf.fdtrc(3.0, 4.0, np.inf)) == 0.0


@pytest.mark.parametrize("platform", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_fdtri_from_the_tail_below_one_half(platform):
    # fdtri from p or q = 1 - p, whichever is below 1/2, itself (specs/xsf/statistics.toml,
    # f_quantile): xsf's formed 1 - p and was off by factors in the lower tail
    # (fdtri(395, 131, 9.2e-18) was 0; SciPy 0.325).
    device = jax.devices(platform)[0]
    rng = np.random.default_rng()
    n = 4000
    dfn, dfd = 10 ** rng.uniform(np.log10(0.5), 2, (2, n))
    tail = 10 ** rng.uniform(-30, np.log10(0.5), n)
    upper = (rng.random(n) < 0.5) & (tail > 1e-15)
    p = np.where(upper, 1 - tail, tail)
    tail = np.where(upper, 1 - p, p)
    x = np.asarray(jax.jit(jax_xsf.fdtri)(*jax.device_put([dfn, dfd, p], device)))
    # Against SciPy from 1e-15 (below, its lower tail at small parameters is off: 0.42 from
    # mpmath at fdtri(3.2, 1.15, 1.3e-27), where we are within 1.2e-16). Measured (CPU):
    # 4.6e-14; the device takes incbi's root unrefined, 1.3e-11 where it is 1 - the unknown.
    moderate = tail >= 1e-15
    rtol = 1e-12 if platform == "cpu" else 3e-11
    np.testing.assert_allclose(x[moderate], scipy.special.fdtri(dfn, dfd, p)[moderate], rtol=rtol)
    # Everywhere by the round trip through SciPy's fdtr and fdtrc: the tail moves by about
    # max(dfn, dfd) / 2 times x's relative error (a power law in x at either end).
    back = np.where(upper, scipy.special.fdtrc(dfn, dfd, x), scipy.special.fdtr(dfn, dfd, x))
    kappa = 1 + np.maximum(dfn, dfd) / 2
    np.testing.assert_array_less(np.abs(back - tail), rtol * kappa * tail)


def test_stdtrit_round_trips_in_the_tails():
    # The spec's random p is uniform on [0, 1]; the Newton steps (specs/xsf/statistics.toml)
    # also start from the tails' power law, which is the answer past z = 1e-17. SciPy is no
    # reference there: its stdtrit(0.59, 1.2e-182) is -5.2e153, whose stdtr is 3.7e-92 (SciPy
    # 1.18). So the round trip, against SciPy's stdtr: relative to p, with the condition
    # number df (dp/p = df dt/t in the tail), where t^2 does not overflow in stdtr.
    rng = np.random.default_rng()
    # df log-uniform: a quarter below 2, where |t| reaches past 1e150.
    df = 0.5 * 200 ** rng.uniform(0, 1, 4000)
    p = 10 ** rng.uniform(-300, -1, 4000)
    t = np.asarray(jax.jit(jax_xsf.stdtrit)(df, p))
    assert np.all(t < 0)
    moderate = t > -1e150
    assert moderate.mean() > 0.5
    with np.errstate(under="ignore"):
        back = scipy.special.stdtr(df[moderate], t[moderate])
    np.testing.assert_allclose(back, p[moderate], rtol=1e-13 * df.max(), atol=0)
    # Beyond, where z = df / (df + t^2) underflows for |t| past 1.3e154: the tail is
    # I_z(df / 2, 1 / 2) / 2 = z^a / (2 a B(a, 1/2)) to rounding, z = df / t^2; -inf only where
    # that tail at t = -DBL_MAX is still above p.
    def log_tail(df, t):
        a = 0.5 * df
        return a * (np.log(df) - 2 * np.log(-t)) - np.log(2 * a) - scipy.special.betaln(a, 0.5)

    deep = ~moderate & np.isfinite(t)
    assert deep.sum() > 10
    np.testing.assert_allclose(log_tail(df[deep], t[deep]), np.log(p[deep]), rtol=1e-15, atol=1e-13 * df.max())
    # ... and our stdtr's far tail (the same power law; SciPy's is 0 past |t| = 1.3e154).
    np.testing.assert_allclose(np.asarray(jax.jit(jax_xsf.stdtr)(df[deep], t[deep])), p[deep], rtol=1e-13)
    overflows = ~np.isfinite(t)
    assert np.all(log_tail(df[overflows], -np.finfo(np.float64).max) > np.log(p[overflows]))
    # mpmath's quantiles (40 digits; findroot on its regularized betainc), SciPy right at
    # df = 1 only; the last is 5e-14 off if the exponent's rounding is not put back.
    df_mp = np.array([1.0, 0.5, 1.5, 0.59, 0.7714853988249647])
    p_mp = np.array([3e-201, 1e-100, 1e-250, 1.2e-182, 1.0833350959328693e-236])
    t_mp = np.array([-1.0610329539459689e200, -1.0284911563163400e199, -2.4226631011346149e166, -3.0814800016279624e307, -1.5845832841018293e305])
    np.testing.assert_allclose(np.asarray(jax_xsf.stdtrit(df_mp, p_mp)), t_mp, rtol=2e-15)
    # mpmath's tails where SciPy's stdtr is 0 (t^2 overflows).
    df_mp, t_mp = np.array([0.5, 1.0, 1.5, 2.0]), np.array([-1e200, -1e160, -1e155, -1e152])
    p_mp = np.array([3.207009754142229e-101, 3.1830988618379067e-161, 1.1924482405556578e-233, 5e-305])
    np.testing.assert_allclose(np.asarray(jax_xsf.stdtr(df_mp, t_mp)), p_mp, rtol=1e-14)


MATHIEU = {f"mathieu_{k}" for k in ("a", "b", "cem", "sem", "modcem1", "modcem2", "modsem1", "modsem2")}
# ... and its spheroidal wave functions on c = NaN (specs/xsf/spheroidal.toml's guards).
SPHEROIDAL = {u["name"] for u in SPEC["ufunc"] if u.get("headers") == ["xsf/sphd_wave.h"]}
SCIPY_CRASHES_ON_NAN = MATHIEU | SPHEROIDAL


def test_mathieu_nan_and_huge_orders_are_nan():
    # specfun's Mathieu code (SciPy's too) crashes for q = NaN and for m or q near 1e10;
    # the spec's guard answers NaN instead.
    q = np.array([np.nan, 1e10, 1.0, 1e300])
    m = np.array([1.0, 1.0, 1e10, 2.0])
    for name in ("mathieu_a", "mathieu_b"):
        assert np.isnan(np.asarray(getattr(jax_xsf, name)(m, q))).all(), name
    for name in sorted(MATHIEU - {"mathieu_a", "mathieu_b"}):
        for out in getattr(jax_xsf, name)(m, q, np.full(4, 0.5)):
            assert np.isnan(np.asarray(out)).all(), name


def test_spheroidal_nan_and_outside_the_guards_is_nan():
    # SciPy crashes on these (c = NaN, c = 1e5, m + n + 2c past specfun's arrays); ours is NaN.
    m = np.array([1.0, 2.0, 1e10, 150.0, 1.0])
    n = np.array([3.0, 5.0, 1e10, 190.0, 3.0])
    c = np.array([np.nan, 1e5, 1.0, 10.0, 2.0])
    for name in sorted(SPHEROIDAL):
        u = UFUNCS[name]
        extra = {"x": np.full(5, 0.5 if "ang" in name else 1.5 if name.startswith("pro") else 0.5), "cv": np.full(5, 30.0)}
        args = [{"m": m, "n": n, "c": c}.get(a, extra.get(a)) for a in u["inputs"]]
        outs = getattr(jax_xsf, name)(*args)
        for out in outs if isinstance(outs, tuple) else (outs,):
            out = np.asarray(out)
            assert np.isnan(out[:3]).all(), name
            assert np.isfinite(out[4]), name  # inside every guard
            # (150, 190, 10): outside the radial functions' guard (n + m + 2|c| > 350).
            assert np.isnan(out[3]) or "rad" not in name, name


def cases(platform="cpu"):
    for name, u in sorted(UFUNCS.items()):
        if platform not in u.get("platforms", ["cpu", "cuda"]):
            continue
        for sig in (s.split(" as ")[0] for s in u["loops"]):
            # `cuda_loops`: the loops with device kernels (the others are host-only).
            if platform == "cuda" and sig not in u.get("cuda_loops", [sig]):
                continue
            yield pytest.param(name, sig, id=f"{name}[{sig}]")


MODERATE_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, np.nan])


def draw(rng, code, lo, hi, integer, n, moderate=False):
    """n random values of the loop type `code` in [lo, hi], with edge values mixed in."""
    real = rng.uniform(lo, hi, n)
    if integer:
        real = np.round(real)
    if code in INTS:
        return real.astype(INTS[code])
    edges = MODERATE_EDGES if moderate else EDGES
    if integer:
        edges = np.array([0.0, 1.0, 2.0, 5.0, -1.0])
    if code in COMPLEX:
        # Complex special values (inf parts, huge moduli) are implementation-defined in
        # C++ std::complex arithmetic; complex inputs get finite edges plus NaN.
        imag = rng.uniform(lo, hi, n) * rng.choice([0.0, 1.0, 1e-3], n)
        vals = real + 1j * imag
        cedges = np.array([0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 10.0, np.nan])
        k = len(cedges)
        vals[:k] = cedges + 1j * rng.choice(cedges[:-1], k)
        return vals.astype(COMPLEX[code])
    vals = real.copy()
    vals[: len(edges)] = edges
    with np.errstate(over="ignore"):
        return vals.astype(REAL[code])


def relative_tolerance(rtol, kappa):
    """The relative error allowed: rtol, times the condition number near a zero of f."""
    return rtol * np.maximum(1.0, np.where(kappa > KAPPA_NEAR_ZERO, kappa, 1.0))


def compare(name, got, want, out_code, rtol, kappa, args=()):
    """Assert `got` matches SciPy's `want`; `args` (the inputs) only name the failing point,
    so a fresh random draw that fails can be reproduced."""
    got = np.asarray(got)

    def at(i):
        return ", ".join(repr(a[i].item()) for a in args) if args else "?"

    if out_code in "fF":
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            want = want.astype(np.complex64 if out_code == "F" else np.float32)
    want = np.asarray(want)
    if np.iscomplexobj(want):
        # NaNs per component; overflow of the value (either component infinite) as a whole,
        # since the other component of an overflowing result is rounding noise.
        bad = (np.isnan(got.real) != np.isnan(want.real)) | (np.isnan(got.imag) != np.isnan(want.imag))
        bad |= (np.isinf(got) != np.isinf(want)) & ~np.isnan(want)
    else:
        bad = (np.isnan(got) != np.isnan(want)) | ((np.isinf(got) | np.isinf(want)) & (got != want))
    bad = np.flatnonzero(bad)
    assert bad.size == 0, (
        f"{name}: NaN/inf pattern differs at {bad.size} points, first ({at(bad[0]) if bad.size else ''}): "
        f"got {got[bad[:5]]}, scipy {want[bad[:5]]}"
    )
    finite = np.isfinite(want) & np.isfinite(got)
    tiny = np.finfo(np.float32 if out_code in "fF" else np.float64).tiny
    # Below the smallest normal number relative error means nothing: compare absolutely.
    normal = finite & (np.abs(want) > tiny)
    with np.errstate(invalid="ignore"):
        sub = np.flatnonzero(finite & ~normal & ~(np.abs(got - want) <= tiny))
    assert sub.size == 0, f"{name}: subnormal results differ at ({at(sub[0]) if sub.size else ''}): got {got[sub[:5]]}, scipy {want[sub[:5]]}"
    if normal.any():
        with np.errstate(all="ignore"):
            # Differences below the smallest normal number do not count, per component: the
            # device flushes float32 subnormals (CuPy's -ftz=true), e.g. a tiny imaginary
            # part, or both parts of a complex value of modulus just above it.
            d = got[normal] - want[normal]
            if np.iscomplexobj(d):
                excess = np.hypot(np.maximum(np.abs(d.real) - tiny, 0), np.maximum(np.abs(d.imag) - tiny, 0))
            else:
                excess = np.maximum(np.abs(d) - tiny, 0)
            err = excess / np.abs(want[normal])
        allowed = relative_tolerance(rtol, kappa[normal])
        worst = int(np.argmax(err / allowed))
        assert err[worst] <= allowed[worst], (
            f"{name}: relative error {err[worst]:.3g} > {allowed[worst]:.3g} at ({at(np.flatnonzero(normal)[worst])}) "
            f"(got {got[normal][worst]!r}, scipy {want[normal][worst]!r}, condition number {kappa[normal][worst]:.3g})"
        )


# Default tolerances: (float64, float32) on CPU and on CUDA, where the device math
# library (libdevice) is not glibc's and differs by an ulp or two before xsf amplifies it.
RTOL = {"cpu": (1e-13, 1e-5), "cuda": (1e-12, 1e-5)}


def random_args(u, sig, rng):
    test = u.get("test", {})
    ranges = test.get("ranges", {})
    integers = set(test.get("integers", []))
    moderate = test.get("skip_edges", False)
    args = [
        draw(rng, c, *ranges.get(arg, (-10.0, 10.0)), arg in integers, N_RANDOM, moderate)
        for c, arg in zip(sig.split("->")[0], u["inputs"])
    ]
    if u["name"] in SCIPY_CRASHES_ON_NAN:
        args = [np.where(np.isnan(a), 0, a) if a.dtype.kind in "fc" else a for a in args]
    # Shuffle each argument independently so edge values meet random partners.
    for a in args[1:]:
        rng.shuffle(a)
    return with_characteristic_values(u, args)


def with_characteristic_values(u, args):
    """The `_cv` spheroidal functions take the characteristic value of (m, n, c): SciPy's."""
    if "cv" in u["inputs"]:
        m, n, c = (args[u["inputs"].index(k)] for k in ("m", "n", "c"))
        with np.errstate(all="ignore"):
            cv = getattr(scipy.special, u["name"][:3] + "_cv")(m.astype(np.float64), n.astype(np.float64), c.astype(np.float64))
        args[u["inputs"].index("cv")] = cv.astype(args[0].dtype)
    return args


def without_documented_points(name, args):
    """`args` without the points where a documented difference from SciPy lies (SciPy's value
    wrong: compared in test_scipy_exceptions...; this xsf's; a newer SciPy's)."""
    u = UFUNCS[name]
    for arg, value, _why in SCIPY_DIFFERS.get(name, ()):
        keep = args[u["inputs"].index(arg)] != value
        args = [a[keep] for a in args]
    if name in XSF_DIFFERS:
        keep = ~XSF_DIFFERS[name][1](*args)
        args = [a[keep] for a in args]
    if name in SCIPY_NEWER_DIFFERS and scipy_at_least(SCIPY_NEWER_DIFFERS[name][0]):
        keep = ~SCIPY_NEWER_DIFFERS[name][2](*args)
        args = [a[keep] for a in args]
    if name in SCIPY_OLDER_DIFFERS and not scipy_at_least(SCIPY_OLDER_DIFFERS[name][0]):
        keep = ~SCIPY_OLDER_DIFFERS[name][2](*args)
        args = [a[keep] for a in args]
    return args


def check_against_scipy(name, sig, platform):
    args = without_documented_points(name, random_args(UFUNCS[name], sig, np.random.default_rng()))
    check_args_against_scipy(name, sig, platform, args)


def check_args_against_scipy(name, sig, platform, args):
    """ufunc `name`'s loop `sig` on `platform` at `args` against SciPy (also test_edge_sweep's)."""
    u = UFUNCS[name]
    test = u.get("test", {})
    outs = sig.split("->")[1]
    device = jax.devices(platform)[0]
    got = jax.jit(getattr(jax_xsf, name))(*jax.device_put(args, device))
    got = got if isinstance(got, tuple) else (got,)
    assert all(g.devices() == {device} for g in got)
    ref_args = [a.astype(np.int64) if a.dtype.kind == "i" else a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) for a in args]
    f = scipy_function(u)
    # scipy.special.errstate too: SciPy raises for some errors (pbdv: "memory allocation")
    # by default; the reference is then its NaN.
    with np.errstate(all="ignore"), scipy.special.errstate(all="ignore"):
        want = f(*ref_args)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want) == len(outs)
    with np.errstate(all="ignore"), scipy.special.errstate(all="ignore"):
        kappas = condition_numbers(f, ref_args, [np.asarray(w) for w in want])
    suffix = "" if platform == "cpu" else "_gpu"
    rtol64, rtol32 = RTOL[platform]
    for g, w, code, kappa in zip(got, want, outs, kappas):
        assert np.asarray(g).dtype == np.dtype({**REAL, **COMPLEX}[code])
        rtol = test.get("rtol32" + suffix, rtol32) if code in "fF" else test.get("rtol64" + suffix, rtol64)
        w = exact_where_scipy_differs(name, args, np.asarray(g), np.asarray(w), code, rtol, np.asarray(kappa))
        compare(f"{name}[{sig}] on {platform}", np.asarray(g), w, code, rtol, kappa, args)


def exact_where_scipy_differs(name, args, got, want, code, rtol, kappa):
    """SciPy's reference with the exact value (exact_polynomials.py) put in where ours and
    SciPy's disagree, for the orthogonal polynomials: SciPy's NaN where the exact value
    overflows to our infinity (its series meets inf - inf; real loops), and where ours is
    finite, SciPy's values further apart than the tolerance, or not finite where its own
    integer-degree loop is finite. SciPy 1.17.1's eval_gegenbauer(21, 4.12, -3.6e-4), integer
    degree, is 2.2e-13 from the exact value: its recurrence in differences cancels near x =
    0; ours 2.5e-15. Its eval_sh_jacobi(3, 1.779, 2.778, 0.203 + 0j) is 2.6e-13 off:
    binom(n + alpha, n) at alpha = p - q = -0.9991; ours 5e-16. Its eval_genlaguerre of a
    float degree sums 1F1, which cancels: 2.2e-5 off inside the tests' ranges, and inf or
    NaN at some finite values. The complex loops' exact values are Gaussian rationals. The
    comparison that follows holds ours to the exact value with the same tolerance."""
    if code not in REAL and code not in COMPLEX or name not in EXACT:
        return want
    with np.errstate(all="ignore"):
        allowed = relative_tolerance(rtol, kappa) * np.abs(want)
        apart = np.isfinite(got) & (~np.isfinite(want) | (np.abs(got - want) > allowed))
    want = want.copy()
    if code in REAL:
        limit = float(np.finfo(REAL[code]).max)
        for i in np.flatnonzero(np.isnan(want) & np.isinf(got)):
            if overflows_as(name, [a[i] for a in args], float(got[i]), limit):
                want[i] = got[i]
    for i in np.flatnonzero(apart):
        point = [a[i] for a in args]
        if not np.isfinite(want[i]) and not scipy_integer_loop_is_finite(name, point):
            continue  # SciPy's NaN or inf as a convention (its integer loop agrees), not a lost value
        v = exact_value(name, point)
        if v is not None:
            want[i] = complex(v) if code in COMPLEX else float(v)
    return want


def scipy_integer_loop_is_finite(name, point):
    """Whether SciPy's integer-degree loop is finite at a real point of integer degree."""
    n, *rest = point
    if np.iscomplexobj(rest[-1]) or not float(n).is_integer() or abs(float(n)) > 2**62:
        return False
    with np.errstate(all="ignore"):
        return bool(np.isfinite(getattr(scipy.special, name)(np.int64(n), *rest)))


@pytest.mark.parametrize("name,sig", list(cases()))
def test_matches_scipy(name, sig):
    check_against_scipy(name, sig, "cpu")


@pytest.mark.gpu
@pytest.mark.parametrize("name,sig", list(cases("cuda")))
def test_matches_scipy_on_gpu(name, sig):
    check_against_scipy(name, sig, "cuda")


def test_exact_polynomials_match_scipy_and_find_its_overflow_nan():
    # The exception's arbiter agrees with SciPy where SciPy is finite (the terminating
    # series, exactly), and finds U_32(1e10) ~ 4.3e329 where SciPy's 2F1 gives NaN.
    rng = np.random.default_rng()
    params = {"eval_gegenbauer": 1, "eval_jacobi": 2, "eval_sh_jacobi": 2, "eval_genlaguerre": 1}
    for name in EXACT:
        for _ in range(20):
            n = int(rng.integers(0, 25))
            extra = list(rng.uniform(0.1, 3.0, params.get(name, 0)))
            if name == "eval_sh_jacobi":
                extra = [extra[0] + extra[1], extra[1]]  # p - q > -1, q > 0
            x = float(rng.uniform(-1.0, 1.0))
            want = getattr(scipy.special, name)(n, *extra, x)
            got = float(exact_value(name, [n, *extra, x]))
            assert got == pytest.approx(want, rel=1e-10, abs=1e-12), (name, n, extra, x)
            # The complex loops: Gaussian rationals (low degrees: SciPy's complex 2F1 loses
            # digits of its own as the degree grows, 2e-9 at T_22(-0.93 - 0.88i)).
            n, z = n % 8, complex(*rng.uniform(-1.0, 1.0, 2))
            want = getattr(scipy.special, name)(float(n), *extra, z)
            got = complex(exact_value(name, [n, *extra, z]))
            assert got == pytest.approx(want, rel=1e-10, abs=1e-12), (name, n, extra, z)
    v = exact_value("eval_chebyu", [32.0, 1e10])
    assert v > 429 * 10**327 and overflows_as("eval_chebyu", [32.0, 1e10], np.inf, np.finfo(np.float64).max)
    assert not overflows_as("eval_chebyu", [32.0, 1e10], -np.inf, np.finfo(np.float64).max)
    assert not overflows_as("eval_chebyu", [32.0, 1e9], np.inf, np.finfo(np.float64).max)  # 4.3e297
    assert overflows_as("eval_chebyu", [32.0, 1e9], np.inf, np.finfo(np.float32).max)


# Integer-degree points where SciPy's value loses digits (SciPy 1.17.1's error): its sum of
# differences cancels near x = 0 (the first four: 3.6e-13, 1.3e-13, 2.2e-13, 1.1e-11); its
# binomial normalisation rounds alpha's low bits away, C_n(1) = binom(n + 2 alpha - 1, n) for
# small alpha (the next three: 7.4e-13, 2e-9, 1.4e-10) and binom(n + alpha, n) near alpha =
# -1 for Jacobi and Laguerre (the next five: 1.1e-10, 1.1e-7, 2.6e-13, 2.2e-12, 1.1e-7); and
# a float degree's 1F1 form of the Laguerre polynomial cancels (the last: 6.5e-4). Each
# value is exact for its floating-point arguments: near alpha = -1 a change in alpha's last
# bit moves the value by up to 1 / (alpha + 1) ulps, but ours keeps the inputs' digits
# (specs/xsf/orthogonal.toml, rising_over_factorial). The loop codes: "d" where the
# real-degree loop is held to the same 1e-14; at (30, -1 + 1e-9, 2, -0.7) it sums Cephes'
# 2F1 (as SciPy), which loses digits of its own there (1.9e-14).
WHERE_SCIPY_LOSES_DIGITS = [
    ("eval_gegenbauer", [5, -0.224, -9.0e-5], "ld"),
    ("eval_gegenbauer", [23, 2.82, -4.8e-4], "ld"),
    ("eval_gegenbauer", [21, 4.12, -3.6e-4], "ld"),
    ("eval_legendre", [13, -1.0148370820726136e-05], "ld"),
    ("eval_gegenbauer", [27, -1.1868425981242936e-3, -0.20986972220146383], "ld"),
    ("eval_gegenbauer", [2, 1e-9, 1.0], "ld"),
    ("eval_gegenbauer", [10, 3e-6, 0.3], "ld"),
    ("eval_jacobi", [5, -1 + 1e-6, 0.5, 0.3], "ld"),
    ("eval_jacobi", [30, -1 + 1e-9, 2.0, -0.7], "l"),
    ("eval_sh_jacobi", [3, 1.7789641050373086, 2.7781065619509033, 0.20295990456554025], "ld"),
    ("eval_genlaguerre", [7, -1 + 1e-4, 2.5], "ld"),
    ("eval_genlaguerre", [25, -1 + 1e-9, 11.0], "ld"),
    ("eval_genlaguerre", [30, 3.852146844022037, 19.983986365569166], "ld"),
]


@pytest.mark.parametrize("platform", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_orthogonal_polynomials_exact_where_scipy_loses_digits(platform):
    device = jax.devices(platform)[0]
    for name, args, codes in WHERE_SCIPY_LOSES_DIGITS:
        loops = UFUNCS[name]["loops"] if platform == "cpu" else UFUNCS[name].get("cuda_loops", UFUNCS[name]["loops"])
        for n in (np.int64(args[0]), np.float64(args[0])):  # the l loop and the d loop
            if n.dtype.char not in codes or not any(s.startswith(n.dtype.char + "d") for s in loops):
                continue
            values = [np.array([n]), *(np.array([a], dtype=np.float64) for a in args[1:])]
            got = float(jax.jit(getattr(jax_xsf, name))(*jax.device_put(values, device))[0])
            want = float(exact_value(name, args))
            assert got == pytest.approx(want, rel=1e-14, abs=0), (name, args, n.dtype, (got - want) / want)


@pytest.mark.gpu
@pytest.mark.parametrize("sig", ["ff->f", "dd->d"])
def test_overflowing_polynomial_on_gpu(sig):
    # The point of the GPU run of 2026-12-07 that found the exception, and its neighbours.
    n = np.array([32.0, 31.0, 33.0, 32.0, 40.0])
    x = np.array([1e10, 1e10, -1e10, 1e9, 1e10])
    dt = REAL[sig[0]]
    check_args_against_scipy("eval_chebyu", sig, "cuda", [n.astype(dt), x.astype(dt)])
