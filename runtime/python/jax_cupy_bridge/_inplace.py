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

from collections import Counter

from jax import lax
from jax._src import core
from jax._src.interpreters import mlir

# Call primitives whose jaxpr parameter takes the equation's operands one to one (names
# across jax releases: closed_call became eval_jaxpr, pjit became jit; remat is remat2 or
# checkpoint). Not loops, whose invars live across iterations: each loop is decided when
# it is lowered.
_CALLS = {
    "closed_call": "call_jaxpr", "core_call": "call_jaxpr", "eval_jaxpr": "call_jaxpr",
    "pjit": "jaxpr", "jit": "jaxpr", "checkpoint": "jaxpr", "remat2": "jaxpr",
}  # fmt: skip


def _rewrite(jaxpr: core.Jaxpr, dying: set[int], prim) -> core.Jaxpr | None:
    """`jaxpr` with calls of `prim` set to overwrite an operand that is one of the invars
    `dying` (by position) used exactly once, with the first output's shape and dtype; None
    when nothing changes."""
    uses = Counter(v for eqn in jaxpr.eqns for v in eqn.invars if isinstance(v, core.Var))
    uses.update(v for v in jaxpr.outvars if isinstance(v, core.Var))
    once = {jaxpr.invars[i] for i in dying if uses[jaxpr.invars[i]] == 1}
    if not once:
        return None
    eqns, changed = [], False
    for eqn in jaxpr.eqns:
        if eqn.primitive is prim and eqn.params.get("overwrite") == "in-loops":
            # Any operand with the first output's shape and dtype will do, not only the
            # first (`gammainc(a, x)` with `x` carried).
            out = eqn.outvars[0].aval
            k = next((k for k, v in enumerate(eqn.invars) if v in once and v.aval.shape == out.shape and v.aval.dtype == out.dtype), -1)
            if k >= 0:
                eqn = eqn.replace(params={**eqn.params, "alias": k, "overwrite": "always"})
                changed = True
        elif eqn.primitive.name in _CALLS and _CALLS[eqn.primitive.name] in eqn.params:
            key = _CALLS[eqn.primitive.name]
            sub = eqn.params[key]
            inner = sub.jaxpr if isinstance(sub, core.ClosedJaxpr) else sub
            passed = {k for k, v in enumerate(eqn.invars) if v in once}
            new = _rewrite(inner, passed, prim) if passed else None
            if new is not None:
                sub = sub.replace(jaxpr=new) if isinstance(sub, core.ClosedJaxpr) else new
                eqn = eqn.replace(params={**eqn.params, key: sub})
                changed = True
        eqns.append(eqn)
    return jaxpr.replace(eqns=eqns) if changed else None


def install(prim) -> None:
    """Wrap the while-loop lowering (once per process) to decide for calls of `prim`.
    Where this jax keeps its lowering rules in a form not recognized, nothing is wrapped
    and calls in loops never alias on their own."""
    entry = getattr(mlir, "_lowerings", {}).get(lax.while_p)
    rule = getattr(entry, "rule", entry)  # a LoweringRuleEntry, or the rule itself
    if not callable(rule) or getattr(rule, "_bridgegen_inplace", False):
        return

    def lowering(ctx, *args, **params):
        # Parameters looked up, not declared: a jax that renames them gets its own lowering
        # unchanged rather than an error in every while loop.
        body, nconsts = params.get("body_jaxpr"), params.get("body_nconsts")
        if isinstance(body, core.ClosedJaxpr) and isinstance(nconsts, int):
            new = _rewrite(body.jaxpr, set(range(nconsts, len(body.jaxpr.invars))), prim)
            if new is not None:
                params["body_jaxpr"] = body.replace(jaxpr=new)
        return rule(ctx, *args, **params)

    lowering._bridgegen_inplace = True
    mlir.register_lowering(lax.while_p, lowering)
