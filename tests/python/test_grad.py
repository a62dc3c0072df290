"""Derivative rules of specs/xsf.toml: jax.test_util.check_grads (orders 1 and 2, forward
and reverse mode) for every rule, at a point inside the function's test range; and the
errors for arguments that cannot be differentiated."""

from __future__ import annotations

import jax
import numpy as np
import pytest
import scipy.special as _sc
from jax.test_util import check_grads

from conftest import load_spec

jax_xsf = pytest.importorskip("jax_xsf")

SPEC = load_spec()
RULES = [u for u in SPEC["ufunc"] if u.get("derivatives")]
# Points where a rule's own functions are smooth (keeps away from poles and branch cuts).
POINTS = {
    "hyp2f1": (0.7, 1.3, 2.9, 0.35), "zeta": (3.1, 1.7), "lambertw": (0.8,), "spence": (0.6,),
    "exp1": (0.8,), "loggamma": (2.3,),
    # Discrete distributions: k < n, so the binomial rules are away from their k >= n branch.
    "bdtr": (3.0, 10, 0.3), "bdtrc": (3.0, 10, 0.3), "bdtri": (3.0, 10, 0.4),
    "nbdtr": (3, 5, 0.4), "nbdtrc": (3, 5, 0.4), "nbdtri": (3, 5, 0.4), "pdtri": (3, 0.4),
    "gdtria": (0.4, 2.5, 1.7), "gdtrix": (1.3, 2.5, 0.4), "lpmv": (1.0, 2.5, 0.3),
    "poch": (1.7, 0.6), "binom": (5.3, 2.2), "huber": (1.5, 0.8), "owens_t": (0.7, 1.4),
    "wright_bessel": (0.5, 1.2, 1.7), "log_wright_bessel": (0.5, 1.2, 1.7),
    "spherical_jn": (2, 1.7), "spherical_yn": (2, 1.7), "spherical_in": (2, 1.7),
    "ellipkinc": (0.7, 0.4), "ellipeinc": (0.7, 0.4), "nrdtrisd": (0.5, 0.7, 2.0),
    # xsf's modified Fresnel integrals are the integrals only for x >= 0 (see the spec).
    "modfresnelp": (1.3,), "modfresnelm": (1.3,),
    # Positive real arguments: there the scaled functions are real-valued (and eAi is not NaN).
    "ive": (1.3, 1.7), "jve": (1.3, 1.7), "yve": (1.3, 1.7), "airye": (1.3,),
    # Orthogonal polynomials at degree 4 (the integer loop; the default point would be n = 1).
    "eval_jacobi": (4, 0.7, 1.3, 0.35), "eval_sh_jacobi": (4, 2.5, 1.5, 0.35),
    "eval_gegenbauer": (4, 0.8, 0.35), "eval_genlaguerre": (4, 0.7, 1.3),
    **{n: (4, 0.35) for n in ("eval_chebyt", "eval_chebyu", "eval_sh_chebyt", "eval_sh_chebyu", "eval_legendre", "eval_sh_legendre")},
    **{n: (4, 0.7) for n in ("eval_chebyc", "eval_chebys")},
    **{n: (4, 1.3) for n in ("eval_laguerre", "eval_hermite", "eval_hermitenorm")},
}  # fmt: skip
# Spheroidal wave functions at m = 1, n = 3, c = 1.7, their `_cv` forms with SciPy's cv there.
for _name, _x in [("pro_ang1", 0.3), ("obl_ang1", 0.3), ("pro_rad1", 1.6), ("pro_rad2", 1.6), ("obl_rad1", 0.6)]:
    POINTS[_name] = (1.0, 3.0, 1.7, _x)
    POINTS[_name + "_cv"] = (1.0, 3.0, 1.7, float(getattr(_sc, _name[:3] + "_cv")(1.0, 3.0, 1.7)), _x)
# First order only: the rules use xsf's kolmogp/smirnovp, whose own derivatives xsf lacks.
FIRST_ORDER = {"kolmogorov", "kolmogi", "smirnov", "smirnovi"}


def point(u):
    if u["name"] in POINTS:
        return POINTS[u["name"]]
    ranges = u.get("test", {}).get("ranges", {})
    out = []
    for arg in u["inputs"]:
        lo, hi = ranges.get(arg, (-10.0, 10.0))
        lo, hi = max(lo, -3.0), min(hi, 3.0)
        if lo >= hi:
            lo, hi = ranges.get(arg, (-10.0, 10.0))
        v = lo + 0.37 * (hi - lo)
        v = v if abs(v) > 0.2 else v + 0.45
        # Integer slots (expn's and kn's n) take an integer.
        out.append(max(1, round(v)) if arg in u.get("test", {}).get("integers", []) else v)
    return tuple(out)


def real_loop(u):
    """Whether a float64 loop takes the differentiable inputs (integer slots only for nondiff ones)."""
    fixed = set(u.get("nondiff", []))
    for s in u["loops"]:
        codes = s.split(" as ")[0].split("->")[0]
        if all(c == "d" or (c in "il" and a in fixed) for c, a in zip(codes, u["inputs"])):
            return True
    return False


def cases():
    for u in RULES:
        if real_loop(u):
            yield pytest.param(u, "cpu", id=f"cpu-{u['name']}")
            if "cuda" in u.get("platforms", ["cpu", "cuda"]):
                yield pytest.param(u, "cuda", id=f"cuda-{u['name']}", marks=pytest.mark.gpu)


@pytest.mark.parametrize("u,platform", cases())
def test_check_grads(u, platform):
    f = getattr(jax_xsf, u["name"])
    x = point(u)
    dev = jax.devices(platform)[0]
    for arg in u["derivatives"]:
        k = u["inputs"].index(arg)

        def partial(t, k=k):
            args = list(jax.device_put(x, dev))
            args[k] = t
            return f(*args)

        order = 1 if u["name"] in FIRST_ORDER else 2
        check_grads(partial, (jax.device_put(np.float64(x[k]), dev),), order=order, modes=["fwd", "rev"], rtol=1e-5, atol=1e-7)


def test_nondiff_and_missing_rules_raise_naming_the_argument():
    with pytest.raises(TypeError, match=r"jax_xsf.gammaincinv: cannot differentiate with respect to 'a': it is declared not differentiable"):
        jax.grad(jax_xsf.gammaincinv)(2.0, 0.3)
    with pytest.raises(TypeError, match=r"jax_xsf.kv: cannot differentiate with respect to 'v'"):
        jax.grad(jax_xsf.kv)(1.5, 2.0)
    no_rule = next(u for u in SPEC["ufunc"] if not u.get("derivatives") and not u.get("nondiff") and real_loop(u))
    with pytest.raises(TypeError, match="the spec gives no derivative rule"):
        jax.grad(getattr(jax_xsf, no_rule["name"]))(*([0.5] * len(no_rule["inputs"])))


def test_grad_under_jit_and_vmap():
    xs = np.linspace(0.5, 5.0, 7)
    g = jax.jit(jax.vmap(jax.grad(jax_xsf.gammaln)))(xs)
    import scipy.special as sc

    np.testing.assert_allclose(g, sc.digamma(xs), rtol=1e-13)


def test_tukeylambdacdf_rule_is_the_density():
    # lambda = 0 is the logistic distribution; lambda = 1 the uniform on [-1, 1]; outside a
    # bounded support (lambda = 2: |x| > 1/2) the density is 0.
    g = jax.grad(jax_xsf.tukeylambdacdf)
    for x in (-1.3, 0.0, 0.4, 2.5):
        np.testing.assert_allclose(float(g(x, 0.0)), np.exp(-x) / (1 + np.exp(-x)) ** 2, rtol=1e-12)
    np.testing.assert_allclose(float(g(0.3, 1.0)), 0.5, rtol=1e-12)
    assert float(g(0.8, 2.0)) == 0.0 and float(g(-0.8, 2.0)) == 0.0
    assert np.isfinite(float(jax.grad(g)(0.8, 2.0)))


def test_exprel_rule_on_both_sides_of_its_series_switch():
    # The rule switches to a Taylor series at |x| = 1e-3; both branches against the series
    # d/dx sum x^n / (n+1)! = sum n x^(n-1) / (n+1)!, to 12 terms (exact at these x).
    from math import factorial

    def series(x):
        return sum(n * x ** (n - 1) / factorial(n + 1) for n in range(1, 13))

    for x in [0.0, 3e-4, -9.99e-4, 1.01e-3, -2e-3, 0.05]:
        for g in (jax.grad(jax_xsf.exprel), jax.jacfwd(jax_xsf.exprel)):
            got = float(g(np.float64(x)))
            assert np.isfinite(got) and abs(got - series(x)) <= 2e-12 * abs(series(x)), (x, got, series(x))


def central(f, x, h=1e-6):
    return (np.asarray(f(x + h)) - np.asarray(f(x - h))) / (2 * h)


def test_agm_rule_against_scipy_differences_at_and_off_the_diagonal():
    # a = b is m = 0, where the rule switches to K's series (the closed form is 0/0 there).
    import scipy.special as sc

    for a, b in [(1.11, 1.11), (1.0, 1.0005), (2.0, 0.5), (0.5, 3.0), (-2.0, -0.7)]:
        ga, gb = jax.grad(jax_xsf.agm, argnums=(0, 1))(a, b)
        np.testing.assert_allclose(float(ga), central(lambda t: sc.agm(t, b), a), rtol=1e-8)
        np.testing.assert_allclose(float(gb), central(lambda t: sc.agm(a, t), b), rtol=1e-8)
        check_grads(jax_xsf.agm, (a, b), order=2, modes=["fwd", "rev"], rtol=1e-5, atol=1e-7)


AGAINST_SCIPY = [
    "fresnel", "sici", "shichi", "airy", "pbdv", "pbwa", "itairy", "it2j0y0", "modfresnelp",
    "airye", "kelvin", "ellipj", "besselpoly", "ive", "jve", "yve", "kolmogorov", "kolmogi",
    "smirnov", "smirnovi", "voigt_profile", "mathieu_cem", "mathieu_sem", "mathieu_modcem1",
    "mathieu_modcem2", "mathieu_modsem1", "mathieu_modsem2", "pro_ang1", "obl_ang1", "pro_rad1",
    "pro_rad2", "obl_rad1", "pro_ang1_cv", "obl_ang1_cv", "pro_rad1_cv", "pro_rad2_cv", "obl_rad1_cv",
    "eval_jacobi", "eval_sh_jacobi", "eval_gegenbauer", "eval_chebyt", "eval_chebyu", "eval_chebyc",
    "eval_chebys", "eval_sh_chebyt", "eval_sh_chebyu", "eval_legendre", "eval_sh_legendre",
    "eval_genlaguerre", "eval_laguerre", "eval_hermite", "eval_hermitenorm",
]  # fmt: skip


@pytest.mark.parametrize("name", AGAINST_SCIPY)
def test_rules_against_scipy_differences(name):
    # Every partial of the rule (one per output for a tuple rule) against SciPy's own central
    # difference of the same function.
    import scipy.special as sc

    u = next(u for u in SPEC["ufunc"] if u["name"] == name)
    x = point(u)
    f, g = getattr(jax_xsf, name), getattr(sc, name)
    for arg in u["derivatives"]:
        k = u["inputs"].index(arg)

        def at(t, fn, k=k):
            args = list(x)
            args[k] = t
            return fn(*args)

        _, tangents = jax.jvp(lambda t: at(t, f), (np.float64(x[k]),), (np.float64(1.0),))
        single = len(u.get("outputs", ["out"])) == 1
        tangents, want = ((tangents,), (central(lambda t: at(t, g), x[k]),)) if single else (tangents, central(lambda t: at(t, g), x[k]))
        assert len(tangents) == len(u.get("outputs", ["out"]))
        for got, w in zip(tangents, want):
            # rtol 1e-5: specfun's itairy is good to ~1e-8, which its central difference amplifies.
            np.testing.assert_allclose(np.asarray(got), w, rtol=1e-5, atol=1e-9, err_msg=f"{name} in {arg}")


def test_voigt_profile_rule_at_sigma_zero_is_the_lorentzian():
    # sigma = 0: the closed form divides by sigma; the rule switches to the Lorentzian's partials.
    x, gamma = 0.7, 1.3
    gx, gs, gg = jax.grad(jax_xsf.voigt_profile, argnums=(0, 1, 2))(x, 0.0, gamma)
    lor = lambda x, g: g / (np.pi * (x * x + g * g))  # noqa: E731
    np.testing.assert_allclose(float(gx), central(lambda t: lor(t, gamma), x), rtol=1e-7)
    np.testing.assert_allclose(float(gg), central(lambda t: lor(x, t), gamma), rtol=1e-7)
    assert float(gs) == 0.0


@pytest.mark.parametrize("name,x", [("hyp1f1", (0.7, 1.9, 0.8 + 0.4j)), ("hankel1e", (1.3, 1.7 + 0.5j)), ("hankel2e", (1.3, 1.7 + 0.5j))])
def test_complex_argument_rules(name, x):
    # Holomorphic in the complex argument: check_grads in complex directions, and the
    # derivative along the real axis against SciPy's central difference.
    import scipy.special as sc

    f, g = getattr(jax_xsf, name), getattr(sc, name)
    fixed, z = x[:-1], np.complex128(x[-1])
    check_grads(lambda t: f(*fixed, t), (z,), order=2, modes=["fwd", "rev"], rtol=1e-5, atol=1e-7)
    _, got = jax.jvp(lambda t: f(*fixed, t), (z,), (np.complex128(1.0),))
    np.testing.assert_allclose(complex(got), central(lambda t: g(*fixed, t), z), rtol=1e-7)


def test_scaled_bessel_rules_are_nan_for_complex_arguments():
    # ive, jve, yve and airye's eBi are scaled by e^-|Re| or e^-|Im|: not holomorphic, so a JVP
    # linear in dz cannot be right; NaN rather than a wrong number.
    z = np.complex128(1.3 + 0.4j)
    for name in ("ive", "jve", "yve"):
        _, t = jax.jvp(lambda s, name=name: getattr(jax_xsf, name)(1.5, s), (z,), (np.complex128(1.0),))
        assert np.isnan(complex(t)), name
    tangents = jax.jvp(jax_xsf.airye, (z,), (np.complex128(1.0),))[1]
    assert np.isfinite(complex(tangents[0])) and np.isfinite(complex(tangents[1]))
    assert np.isnan(complex(tangents[2])) and np.isnan(complex(tangents[3]))


def test_kolmogorov_rules_have_no_second_derivative():
    g = jax.grad(jax_xsf.kolmogorov)
    np.testing.assert_allclose(float(g(0.8)), -1.627024345636592, rtol=1e-12)  # SciPy's _kolmogp(0.8)
    with pytest.raises(TypeError, match="jax_xsf.kolmogp: cannot differentiate with respect to 'y'"):
        jax.grad(g)(0.8)


def test_modfresnel_rules_are_nan_where_xsf_is_not_the_integral():
    fp, kp = jax.jvp(jax_xsf.modfresnelp, (np.float64(-0.5),), (np.float64(1.0),))[1]
    assert np.isnan(complex(fp)) and np.isfinite(complex(kp))


@pytest.mark.parametrize("name,x", [
    ("eval_jacobi", (2.5, 0.7, 1.3, 0.35)), ("eval_gegenbauer", (2.5, 0.8, 0.35)), ("eval_chebyt", (2.5, 0.35)),
    ("eval_legendre", (2.5, 0.35)), ("eval_genlaguerre", (2.5, 0.7, 1.3)), ("eval_laguerre", (2.5, 1.3)),
])  # fmt: skip
def test_orthogonal_rules_at_real_degree(name, x):
    # The rules (DLMF 18.9.x) hold for real degree too: the float loop, through the
    # hypergeometric forms, to second order and against SciPy's own central difference.
    f, g = getattr(jax_xsf, name), getattr(_sc, name)
    k = len(x) - 1

    def at(t, fn):
        return fn(*x[:k], t)

    check_grads(lambda t: at(t, f), (np.float64(x[k]),), order=2, modes=["fwd", "rev"], rtol=1e-5, atol=1e-7)
    _, tangent = jax.jvp(lambda t: at(t, f), (np.float64(x[k]),), (np.float64(1.0),))
    np.testing.assert_allclose(np.asarray(tangent), central(lambda t: at(t, g), x[k]), rtol=1e-6)
