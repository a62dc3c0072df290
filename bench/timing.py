"""The one timing helper of bench/: every script that publishes a table times through here,
so that "median of repeated calls after a warm-up" means the same thing in every table.

Ratios are quoted only within one run of one script (docs/benchmarks.md says why).
"""

from __future__ import annotations

import os
import platform
import statistics
import time


def no_sync(_):
    pass


def jax_sync(x):
    import jax

    return jax.block_until_ready(x)


def cupy_sync(_):
    import cupy

    cupy.cuda.get_current_stream().synchronize()


def median_time(fn, sync=no_sync, budget=1.0, min_reps=5, max_reps=2000):
    """Median seconds of `sync(fn())` after two warm-up calls (compile, first touch):
    at least `min_reps` calls, then more while `budget` seconds last, up to `max_reps`."""
    fn()
    sync(fn())
    times = []
    start = time.perf_counter()
    while len(times) < min_reps or (time.perf_counter() - start < budget and len(times) < max_reps):
        t0 = time.perf_counter()
        sync(fn())
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def pipelined_time(fn, sync=no_sync, k=10, budget=1.0, min_reps=5):
    """Per-call seconds of `k` calls issued back to back and one wait: the steady-state
    cost when the host's dispatch overlaps the previous call's kernel (what a loop over
    large arrays pays), as opposed to `median_time`'s one call and a wait."""
    sync(fn())
    times = []
    start = time.perf_counter()
    while len(times) < min_reps or time.perf_counter() - start < budget:
        t0 = time.perf_counter()
        outs = [fn() for _ in range(k)]
        sync(outs[-1])
        times.append((time.perf_counter() - t0) / k)
        del outs
    return statistics.median(times)


def environment(**extra):
    """Date, machine and versions of a run, for the header of its table."""
    import jax
    import numpy as np

    env = dict(
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        machine=f"{platform.machine()}, {os.cpu_count()} cores",
        python=platform.python_version(),
        jax=jax.__version__,
        numpy=np.__version__,
    )
    env.update(extra)
    return env
