"""JAX's own programs (loops, scan, while, cond, custom_jvp, jax.scipy.special functions
with internal loops), run as a script: prints, per program, its lowered text's hash and
its result. test_jax_untouched.py runs it with and without our packages imported.

    python jax_programs.py [--import-bridge]
"""

from __future__ import annotations

import hashlib
import json
import sys

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

if "--import-bridge" in sys.argv:
    import jax_cupy_bridge  # noqa: F401
    import jax_xsf  # noqa: F401

    try:
        import jax_cupy  # noqa: F401
    except ImportError:
        pass


@jax.custom_jvp
def softclip(x):
    return jnp.log1p(jnp.exp(x))


@softclip.defjvp
def _softclip_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softclip(x), jax.nn.sigmoid(x) * t


def _nested(x):
    def outer(c, xs):
        c = lax.fori_loop(0, 2, lambda i, y: y * 1.5 + xs, c)
        return c, c.sum()

    return lax.scan(outer, x, jnp.arange(3.0))


x4 = jnp.linspace(0.5, 3.0, 4)
PROGRAMS = {
    # The reported failure: a Python scalar (a Literal) in a loop body, through a jit.
    "fori_literal_jit": (lambda x: lax.fori_loop(0, 3, lambda i, y: jax.jit(jnp.multiply)(y, 2.0), x), (1.25,)),
    "fori_dynamic": (lambda x, n: lax.fori_loop(0, n, lambda i, y: y * 0.5 + i, x), (x4, 5)),
    "scan": (lambda x: lax.scan(lambda c, v: (c * v + 1.0, c), x, jnp.arange(1.0, 4.0)), (x4,)),
    "while": (lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.1), (0, x)), (x4,)),
    "cond": (lambda x: lax.cond(x.sum() > 0, lambda y: y * 2.0, lambda y: -y, x), (x4,)),
    "switch": (lambda x, i: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x), (x4, 1)),
    "custom_jvp_grad": (lambda x: jax.grad(lambda y: softclip(y).sum())(x), (x4,)),
    "nested_loops": (_nested, (x4,)),
    "map": (lambda x: lax.map(lambda y: lax.fori_loop(0, 4, lambda i, z: z * y, 1.0), x), (x4,)),
    "vmap_while": (jax.vmap(lambda y: lax.while_loop(lambda c: c < 5.0, lambda c: c * y + 0.1, 0.2)), (x4 + 0.5,)),
    "expi": (jsp.expi, (x4,)),
    "exp1": (jsp.exp1, (x4,)),
    "gammainc": (jsp.gammainc, (x4, x4[::-1])),
    "betainc": (jsp.betainc, (x4, x4[::-1], jnp.linspace(0.1, 0.9, 4))),
    "igamma_grad": (jax.grad(lambda a: jsp.gammainc(a, 2.0).sum()), (x4,)),
    "zeta": (jsp.zeta, (x4 + 1.0, x4)),
    "digamma": (jsp.digamma, (x4,)),
    "bessel_i1e": (jsp.i1e, (x4,)),
}


def main() -> None:
    out = {}
    for name, (fn, args) in PROGRAMS.items():
        static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
        jitted = jax.jit(fn, static_argnums=static)
        text = jitted.lower(*args).as_text()
        leaves = jax.tree_util.tree_leaves(jitted(*args))
        out[name] = {
            "lowered_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "result": [np.asarray(v).tobytes().hex() for v in leaves],
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
