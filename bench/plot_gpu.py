"""Plot bench/gpu.py results: time per call against size for each path, float32 and
float64 side by side (log-log). Usage: python bench/plot_gpu.py results.json out.png"""

from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    res = json.load(open(src))
    rows = [r for r in res["rows"] if r["function"] == "gammaln"]
    paths = ["bridge", "jax.scipy", "cupy eager", "buffer_callback", "pure_callback"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, dtype in zip(axes, ["float32", "float64"]):
        for p in paths:
            pts = sorted((r["n"], r["seconds"]) for r in rows if r["dtype"] == dtype and r["path"] == p)
            if pts:
                ax.plot([n for n, _ in pts], [t * 1e6 for _, t in pts], marker="o", label=p)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_title(f"gammaln, {dtype}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("µs per jitted call (median, incl. wait for result)")
    axes[1].legend()
    env = res.get("environment", {})
    fig.suptitle(f"{env.get('gpu', 'GPU')}, jax {env.get('jax', '?')}, CuPy {env.get('cupy', '?')}, {env.get('date', '')}")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(*sys.argv[1:3])
