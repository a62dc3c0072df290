"""A few bridged and CuPy calls at 2^26, for a profiler (nsys, ncu) to time kernels alone.

Run: nsys profile -t cuda python bench/bridge_calls.py   (see scripts/gpu_profile.sh)
"""

import jax

jax.config.update("jax_enable_x64", True)
import cupy  # noqa: E402
import cupyx.scipy.special as cps  # noqa: E402
import numpy as np  # noqa: E402

import jax_xsf  # noqa: E402

N = 1 << 26
for name in ["digamma", "exp2", "cbrt"]:
    for dtype in ["float32", "float64"]:
        host = np.random.default_rng(0).uniform(0.1, 20.0, N).astype(dtype)
        x = jax.device_put(host, jax.devices("cuda")[0])
        f = jax.jit(getattr(jax_xsf, name))
        xc = cupy.asarray(host)
        for _ in range(5):
            jax.block_until_ready(f(x))
            getattr(cps, name)(xc)
        cupy.cuda.get_current_stream().synchronize()
