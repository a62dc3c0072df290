"""Inputs near a ratio of 1 for logit and rel_entr, where a plain log of the rounded ratio
(cupyx's) loses digits that SciPy keeps: test_device_ports checks the device code built on
the host, test_gpu the kernels."""

from __future__ import annotations

import numpy as np


def near_one_args(name, dtype, n, rng):
    """n points whose ratio (x / y, or p / (1 - p)) is 1 + t, t from a few ulps of the type
    to 0.1."""
    t = rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-6 if dtype == np.float32 else -15, -1, n)
    if name == "rel_entr":
        y = rng.uniform(0.1, 100, n).astype(dtype)
        return [(y * (1 + t)).astype(dtype), y]
    return [(0.5 + t / 2).astype(dtype)]


def assert_within_ulps_of_scipy(label, got, args, scipy_fn, dtype, ulps=4):
    """got agrees with SciPy's float64 value, rounded to dtype, to `ulps` units of dtype."""
    want = scipy_fn(*[a.astype(np.float64) for a in args]).astype(dtype).astype(np.float64)
    got = np.asarray(got, dtype=np.float64)
    ok = want != 0
    err = np.abs(got[ok] - want[ok]) / np.abs(want[ok]) / np.finfo(dtype).eps
    assert ok.sum() > want.size // 2 and err.max() <= ulps, f"{label}: {err.max():.3g} ulps from SciPy near a ratio of 1"
