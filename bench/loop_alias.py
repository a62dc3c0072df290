"""Why a loop of bridged calls can cost more per iteration than a loop of native ones (run
on the GPU machine): a custom call cannot write its result over its operand unless the call
declares the alias, so without it XLA copies the result into the loop-carried buffer every
iteration, where a native fusion writes in place. Times a fori_loop of 100 chained gammaln
calls on 2^10 float32 four ways (native; the bridge by default, which declares the alias
where the carried value dies at the call; `overwrite_input=False`, never; `=True`, always),
counts the copies in each compiled loop, and times one call at 2^26 each way, where an
alias that is always declared makes XLA copy the non-donated argument first.

Run: python bench/loop_alias.py
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402
from gpu import jax_sync, timeit  # noqa: E402

import jax_xsf  # noqa: E402


def main(iters=100):
    dev = jax.devices("cuda")[0]
    paths = {
        "jax.scipy": jsp.gammaln,
        "bridge": jax_xsf.gammaln,
        "bridge, never in place": lambda v: jax_xsf.gammaln(v, overwrite_input=False),
        "bridge, always in place": lambda v: jax_xsf.gammaln(v, overwrite_input=True),
    }
    small = jax.device_put(np.linspace(2.5, 3.5, 1 << 10).astype(np.float32), dev)
    large = jax.device_put(np.random.default_rng(0).uniform(0.1, 100, 1 << 26).astype(np.float32), dev)
    for name, f in paths.items():
        loop = jax.jit(lambda v, f=f: jax.lax.fori_loop(0, iters, lambda i, acc: f(acc), v))
        hlo = loop.lower(small).compile().as_text()
        copies = len(re.findall(r"= \S+ copy\(", hlo))
        t_loop = timeit(lambda: loop(small), jax_sync) / iters
        one = jax.jit(f)
        t_one = timeit(lambda: one(large), jax_sync)
        print(f"{name:24s} loop {t_loop * 1e6:7.2f} us/iteration ({copies} copies in the compiled loop)   "
              f"one call at 2^26 {t_one * 1e6:8.1f} us", flush=True)


if __name__ == "__main__":
    main()
