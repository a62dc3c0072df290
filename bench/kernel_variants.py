"""Kernel-only timings on the GPU machine: a bridged kernel against CuPy's kernel for the
same function, without JAX. Compiles the generated `cuda/<fn>.cu` (as shipped) with
CuPy's NVRTC and CuPy's options and times it with CUDA events at 2^26 elements, beside:

- `generated/<k>`: the same kernel with the grid capped at k blocks per multiprocessor
  (the runtime's choice is `BLOCKS_PER_SM` in runtime/rust/src/cuda/module.rs);
- `unroll<u>/<k>`: the same kernel with its grid-stride loop unrolled u times
  (`#pragma unroll`), so a thread may issue several elements' loads before their stores;
- linear32: the function's expression in the simplest kernel (32-bit index, one element
  per thread, contiguous data), as a yardstick (one-input functions of `LINEAR`);
- cupy: the cupyx.scipy.special ufunc writing into a preallocated output;
- copy: a device-to-device copy of the input (the memory-bound ceiling).

(Until 2026-12-06 the generated loop indexed in 64 bits; that run also timed its body under
a 32-bit loop, "dense32", which became the shipped template: docs/benchmarks-log.md.)

Run: python bench/kernel_variants.py [--json out.json]
(`SIZES=22,24` picks the sizes as log2, default 26; `ONLY=exp10,xlogy` the functions, any
device function of specs/xsf.toml that cupyx has, inputs drawn from the spec's test ranges;
default `DEFAULT`.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import cupy
import cupyx.scipy.special as cps
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import spec_toml  # noqa: E402

GENERATED = ROOT / "generated" / "jax_xsf" / "rust" / "cuda"
RUNTIME_INCLUDE = ROOT / "runtime" / "rust" / "include"
SIZES = [1 << int(s) for s in os.environ.get("SIZES", "26").split(",")]
# The memory-bound kernels over 1.05x cupyx (docs/benchmarks.md), then the yardsticks.
DEFAULT = "exp2,exp10,expit,xlogy,xlog1py,huber,kl_div,boxcox,boxcox1p,radian,rel_entr,logit,gammaln"
ONLY = [f for f in os.environ.get("ONLY", DEFAULT).split(",") if f]
UFUNCS = {u["name"]: u for u in spec_toml.load(ROOT / "specs" / "xsf.toml")["ufunc"]}
BLOCK = 128
SMS = cupy.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
CAPS = [16, 32, 64, 128]
UNROLLS = [2, 4]

# linear32's cases: function -> (header, expression over `x`, input range)
# (the device expression of specs/xsf.toml: `cuda_expr` where it has one)
LINEAR = {
    "gammaln": ("xsf/gamma.h", "lgamma(x)", (0.1, 100.0)),
    "digamma": ("xsf/digamma.h", "xsf::digamma(x)", (0.1, 100.0)),
    "exp2": ("xsf/cephes/exp2.h", "exp2(x)", (-20.0, 20.0)),
    # Both call CUDA's exp10 (the spec's cuda_expr, cupyx's kernel): a pure template comparison.
    "exp10": ("xsf/cephes/exp10.h", "exp10(x)", (-10.0, 10.0)),
    "expit": ("xsf/log_exp.h", "xsf::expit(x)", (-8.0, 8.0)),
    "ndtr": ("xsf/stats.h", "xsf::ndtr(x)", (-8.0, 8.0)),
}
CTYPE = {"float32": "float", "float64": "double"}
CODE = {"float32": "f", "float64": "d"}


def options():
    inc = Path(cupy.__file__).parent / "_core" / "include"
    opts = [f"-I{inc}/cupy/_cccl/cub", f"-I{inc}/cupy/_cccl/thrust", f"-I{inc}/cupy/_cccl/libcudacxx", f"-I{inc}"]
    try:
        from cuda import pathfinder

        opts.append(f"-I{pathfinder.find_nvidia_header_directory('cudart')}")
    except Exception as e:  # CuPy finds them itself when this fails
        print("cudart headers:", e)
    opts += ["-ftz=true", "--device-as-default-execution-space", f"-I{inc}/cupy", f"-I{RUNTIME_INCLUDE}", f"-I{RUNTIME_INCLUDE}/nvrtc"]
    return tuple(opts)


def linear_source(header, expr, ctype, compute):
    return f"""
#include <cupy/complex.cuh>
#include "{header}"
extern "C" __global__ void linear32(const {ctype} *__restrict__ in, {ctype} *__restrict__ out, int n) {{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{
        const {compute} x = static_cast<{compute}>(in[i]);
        out[i] = static_cast<{ctype}>({expr});
    }}
}}
"""


def unrolled(source, u):
    """The generated kernels with the grid-stride loop unrolled `u` times."""
    return source.replace("BRIDGEGEN_FOR_EACH32(", f'_Pragma("unroll {u}") BRIDGEGEN_FOR_EACH32(')


def geometry(n, nin=1):
    """`bridgegen::Geometry<nin>` of contiguous 1-d operands: n, ndim, shape[8], strides[nin][8]."""
    words = np.zeros(10 + 8 * nin, dtype=np.int64)
    words[0], words[1], words[2] = n, 1, n
    words[10::8] = 1
    return np.void(words.tobytes())


def inputs(fn, dtype, n):
    """The function's inputs over its spec test ranges."""
    u = UFUNCS[fn]
    ranges = u.get("test", {}).get("ranges", {})
    rng = np.random.default_rng(0)
    return [cupy.asarray(rng.uniform(*ranges.get(a, (-10.0, 10.0)), n).astype(dtype)) for a in u["inputs"]]


def time_events(launch, reps=30):
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    launch()
    cupy.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(reps):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    opts = options()
    rows = []
    for fn in ONLY:
        source = (GENERATED / f"{fn}.cu").read_text()
        module = cupy.RawModule(code=source, options=opts)
        unrolled_modules = {u: cupy.RawModule(code=unrolled(source, u), options=opts) for u in UNROLLS}
        nin = len(UFUNCS[fn]["inputs"])
        cf = getattr(cps, UFUNCS[fn]["cupy"].rsplit(".", 1)[1])
        for dtype in ["float32", "float64"]:
            c = CODE[dtype]
            ctype = CTYPE[dtype]
            symbol = f"bg_jax_xsf_{fn}__{c * nin}_{c}"
            if f"{symbol}(" not in source:
                continue
            # What the generated loop computes in: an `f->f as d->d` loop computes in double.
            body = source.split(f"{symbol}(")[1].split("extern")[0]
            compute = "double" if "const double" in body and ctype == "float" else ctype
            lin = None
            if fn in LINEAR:
                header, expr, _ = LINEAR[fn]
                lin = cupy.RawModule(code=linear_source(header, expr, ctype, compute), options=opts).get_function("linear32")
            for n in SIZES:
                full = (n + BLOCK - 1) // BLOCK
                xs = inputs(fn, dtype, n)
                out = cupy.empty_like(xs[0])
                kernel = module.get_function(symbol)
                g = geometry(n, nin)
                timings = {"generated": time_events(lambda: kernel((full,), (BLOCK,), (g, *xs, out)))}
                for k in CAPS:
                    grid = min(full, SMS * k)
                    timings[f"generated/{k}"] = time_events(lambda: kernel((grid,), (BLOCK,), (g, *xs, out)))
                for u, m in unrolled_modules.items():
                    ku = m.get_function(symbol)
                    for k in (32, 64):
                        grid = min(full, SMS * k)
                        timings[f"unroll{u}/{k}"] = time_events(lambda: ku((grid,), (BLOCK,), (g, *xs, out)))
                if lin is not None:
                    timings["linear32"] = time_events(lambda: lin((full,), (BLOCK,), (xs[0], out, np.int32(n))))
                timings["cupy"] = time_events(lambda: cf(*xs, out=out))
                timings["copy"] = time_events(lambda: out.data.copy_from_device_async(xs[0].data, xs[0].nbytes))
                for variant, us in timings.items():
                    print(
                        f"{fn:8s} {dtype:8s} 2^{n.bit_length() - 1} {variant:13s} {us:8.1f} us  {us / timings['cupy']:.2f}x cupy  "
                        f"{timings['copy'] / us:4.0%} of copy bandwidth  (computes in {compute})",
                        flush=True,
                    )
                    rows.append(dict(function=fn, dtype=dtype, n=n, variant=variant, microseconds=us, compute=compute))
    if args.json:
        Path(args.json).write_text(json.dumps(dict(gpu=cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(), rows=rows), indent=1))


if __name__ == "__main__":
    main()
