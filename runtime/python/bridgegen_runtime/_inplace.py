"""Where a bridged call in a loop body writes its result over its operand (the default,
``overwrite_input=None``).

XLA never lets a custom call write over an operand unless the call declares the alias,
so a loop whose carry is updated by a bridged call (``x = f(x)`` in ``fori_loop``,
``scan`` or ``while_loop``) copies the result back into the carried buffer on every
iteration, where a native fusion writes in place. Declaring the alias is not free either:
XLA then copies the operand first wherever it is still needed (a jit argument that is not
donated, a value used again), so it pays only where the operand dies at the call.

That is known once the loop body is complete, i.e. when the while loop is lowered (scan
and fori_loop lower to one): the wrapped lowering gives the alias to each call whose
candidate operand is a loop-carried value used by nothing else in the body (not even
passed on to the next iteration), following the body's calls into jitted functions.
Every other call keeps the no-alias lowering. The result is the same either way (XLA
inserts whatever copies an alias needs); only the copies differ.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter

from jax.extend.core import ClosedJaxpr, Jaxpr, Var

from . import _jax_compat

# Call primitives whose jaxpr parameter takes the equation's operands one to one (names
# across jax releases: closed_call became eval_jaxpr, pjit became jit; remat is remat2 or
# checkpoint). Not loops, whose invars live across iterations: each loop is decided when
# it is lowered.
_CALLS = {
    "closed_call": "call_jaxpr", "core_call": "call_jaxpr", "eval_jaxpr": "call_jaxpr",
    "pjit": "jaxpr", "jit": "jaxpr", "checkpoint": "jaxpr", "remat2": "jaxpr",
}  # fmt: skip

# `BRIDGEGEN_INPLACE_LOOPS=0` leaves JAX's while-loop lowering alone (calls in loops then
# never alias by default; `overwrite_input=True` still does).
ENV = "BRIDGEGEN_INPLACE_LOOPS"


def _inner(sub):
    return sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub


def _mentions(jaxpr: Jaxpr, prim) -> bool:
    """Whether `prim` is bound with the default overwrite anywhere under `jaxpr` (through
    every sub-jaxpr in any parameter, loops included): the test that keeps every other
    loop's lowering untouched."""
    for eqn in jaxpr.eqns:
        if eqn.primitive is prim:
            if eqn.params.get("overwrite") == "in-loops":
                return True
            continue
        for p in eqn.params.values():
            for sub in p if isinstance(p, (tuple, list)) else (p,):
                if isinstance(sub, (ClosedJaxpr, Jaxpr)) and _mentions(_inner(sub), prim):
                    return True
    return False


def _rewrite(jaxpr: Jaxpr, dying: set[int], prim) -> Jaxpr | None:
    """`jaxpr` with calls of `prim` set to overwrite an operand that is one of the invars
    `dying` (by position) used exactly once, with the first output's shape and dtype; None
    when nothing changes. Only equations of `prim` (and the calls leading to them) change."""
    uses = Counter(v for eqn in jaxpr.eqns for v in eqn.invars if isinstance(v, Var))
    uses.update(v for v in jaxpr.outvars if isinstance(v, Var))
    once = {jaxpr.invars[i] for i in dying if uses[jaxpr.invars[i]] == 1}
    if not once:
        return None

    def dies(v) -> bool:  # operands may be Literals, which do not hash
        return isinstance(v, Var) and v in once

    eqns, changed = [], False
    for eqn in jaxpr.eqns:
        if eqn.primitive is prim and eqn.params.get("overwrite") == "in-loops":
            # Any operand with the first output's shape and dtype will do, not only the
            # first (`gammainc(a, x)` with `x` carried).
            out = eqn.outvars[0].aval
            k = next((k for k, v in enumerate(eqn.invars) if dies(v) and v.aval.shape == out.shape and v.aval.dtype == out.dtype), -1)
            if k >= 0:
                eqn = eqn.replace(params={**eqn.params, "alias": k, "overwrite": "always"})
                changed = True
        elif eqn.primitive.name in _CALLS and _CALLS[eqn.primitive.name] in eqn.params:
            key = _CALLS[eqn.primitive.name]
            sub = eqn.params[key]
            passed = {k for k, v in enumerate(eqn.invars) if dies(v)}
            new = _rewrite(_inner(sub), passed, prim) if passed else None
            if new is not None:
                sub = sub.replace(jaxpr=new) if isinstance(sub, ClosedJaxpr) else new
                eqn = eqn.replace(params={**eqn.params, key: sub})
                changed = True
        eqns.append(eqn)
    return jaxpr.replace(eqns=eqns) if changed else None


_warned = False


def _body_for(params: dict, prim):
    """The body to lower: a rewritten one, or None to lower with `params` as given."""
    # Parameters looked up, not declared: a jax that renames them gets its own lowering.
    body, nconsts = params.get("body_jaxpr"), params.get("body_nconsts")
    if not (isinstance(body, ClosedJaxpr) and isinstance(nconsts, int)) or not _mentions(body.jaxpr, prim):
        return None
    new = _rewrite(body.jaxpr, set(range(nconsts, len(body.jaxpr.invars))), prim)
    return None if new is None else body.replace(jaxpr=new)


def install(prim) -> None:
    """Wrap the while-loop lowering (once per process) to decide for calls of `prim`.

    The wrapper is inert for every loop whose body binds no `prim` with the default
    overwrite: JAX's own rule gets the very arguments it would have had. Where it does,
    only those equations change; any failure of the analysis lowers the loop with JAX's
    rule unchanged (with one warning). `BRIDGEGEN_INPLACE_LOOPS=0` skips the wrapping."""
    if os.environ.get(ENV, "1") == "0":
        return

    def make(rule):
        def lowering(ctx, *args, **params):
            global _warned
            try:
                body = _body_for(params, prim)
            except Exception as e:  # noqa: BLE001 - never break a loop over an optimisation
                body = None
                if not _warned:
                    _warned = True
                    warnings.warn(
                        f"bridgegen_runtime: in-place analysis of a loop body failed ({type(e).__name__}: {e}); "
                        f"the loop is lowered as JAX does (set {ENV}=0 to skip the analysis)",
                        RuntimeWarning,
                        stacklevel=2,
                    )
            if body is not None:
                params = {**params, "body_jaxpr": body}
            return rule(ctx, *args, **params)

        return lowering

    _jax_compat.wrap_while_lowering(make)
