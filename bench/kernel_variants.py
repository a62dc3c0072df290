"""Kernel-only timings on the GPU machine: a bridged kernel against CuPy's kernel for the
same function, without JAX. Compiles the generated `cuda/<fn>.cu` (as shipped) with
CuPy's NVRTC and CuPy's options and times it with CUDA events at 2^26 elements, beside:

- `generated/<k>`: the same kernel with the grid capped at k blocks per multiprocessor
  (the runtime's choice is `BLOCKS_PER_SM` in runtime/rust/src/cuda/module.rs);
- `unroll<u>/<k>`: the same kernel with its grid-stride loop unrolled u times
  (`#pragma unroll`), so a thread may issue several elements' loads before their stores;
- linear32: the function's expression in the simplest kernel (32-bit index, one element
  per thread, contiguous data), as a yardstick;
- cupy: the cupyx.scipy.special ufunc writing into a preallocated output;
- copy: a device-to-device copy of the input (the memory-bound ceiling).

Run: python bench/kernel_variants.py [--json out.json]
(`SIZES=22,24` picks the sizes as log2, default 26; `ONLY=exp10,exp2` the functions.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

import cupy
import cupyx.scipy.special as cps
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated" / "jax_xsf" / "rust" / "cuda"
RUNTIME_INCLUDE = ROOT / "runtime" / "rust" / "include"
SIZES = [1 << int(s) for s in os.environ.get("SIZES", "26").split(",")]
ONLY = [f for f in os.environ.get("ONLY", "").split(",") if f]
BLOCK = 128
SMS = cupy.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
CAPS = [16, 32, 64, 128]
UNROLLS = [2, 4]

# function -> (header, expression over `x`, input range)
# (the device expression of specs/xsf.toml: `cuda_expr` where it has one)
CASES = {
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
    return source.replace("BRIDGEGEN_FOR_EACH(", f'_Pragma("unroll {u}") BRIDGEGEN_FOR_EACH(')


def geometry(n):
    """`bridgegen::Geometry<1>` of a contiguous 1-d operand: n, ndim, shape[8], strides[1][8]."""
    words = np.zeros(18, dtype=np.int64)
    words[0], words[1], words[2], words[10] = n, 1, n, 1
    return np.void(words.tobytes())


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
    for fn, (header, expr, (lo, hi)) in CASES.items():
        if ONLY and fn not in ONLY:
            continue
        source = (GENERATED / f"{fn}.cu").read_text()
        module = cupy.RawModule(code=source, options=opts)
        unrolled_modules = {u: cupy.RawModule(code=unrolled(source, u), options=opts) for u in UNROLLS}
        for dtype in ["float32", "float64"]:
            c = CODE[dtype]
            ctype = CTYPE[dtype]
            # What the generated loop computes in: an `f->f as d->d` loop computes in double.
            body = source.split(f"__{c}_{c}(")[1].split("extern")[0]
            compute = "double" if "const double" in body and ctype == "float" else ctype
            lin = cupy.RawModule(code=linear_source(header, expr, ctype, compute), options=opts).get_function("linear32")
            for n in SIZES:
                full = (n + BLOCK - 1) // BLOCK
                x = cupy.asarray(np.random.default_rng(0).uniform(lo, hi, n).astype(dtype))
                out = cupy.empty_like(x)
                kernel = module.get_function(f"bg_jax_xsf_{fn}__{c}_{c}")
                g = geometry(n)
                timings = {"generated": time_events(lambda: kernel((full,), (BLOCK,), (g, x, out)))}
                for k in CAPS:
                    grid = min(full, SMS * k)
                    timings[f"generated/{k}"] = time_events(lambda: kernel((grid,), (BLOCK,), (g, x, out)))
                for u, m in unrolled_modules.items():
                    ku = m.get_function(f"bg_jax_xsf_{fn}__{c}_{c}")
                    for k in (32, 64):
                        grid = min(full, SMS * k)
                        timings[f"unroll{u}/{k}"] = time_events(lambda: ku((grid,), (BLOCK,), (g, x, out)))
                timings["linear32"] = time_events(lambda: lin((full,), (BLOCK,), (x, out, np.int32(n))))
                cf = getattr(cps, fn)
                timings["cupy"] = time_events(lambda: cf(x, out=out))
                timings["copy"] = time_events(lambda: out.data.copy_from_device_async(x.data, x.nbytes))
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
