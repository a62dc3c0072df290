"""Does a kernel whose stack passes CUDA's default 1 KiB a thread need the context's limit
raised before it runs, and does that change under stream capture (XLA's command buffers)?

CUDA's cuCtxSetLimit documentation says the driver grows the stack for a launch as needed;
yet on 2026-12-07 (15:23 UTC) kernels of 1.4-1.6 KB frames, left at the default, failed
with CUDA_ERROR_ILLEGAL_ADDRESS under XLA. If capture is the difference, the runtime could
raise the limit at load from each kernel's CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES (which this
prints, for a frame in the kernel itself and one in a callee) instead of the spec's
cuda_stack. Each case runs in a fresh process (a fresh context at the default limit).
    python bench/investigations/stack_limit_probe.py     (on the GPU machine; needs CuPy)
Answered on an H100 (2026-12-07 22:30 UTC, docs/benchmarks-log.md): no, capture is not the
difference. 1600-byte kernels ran at the 1024-byte default plainly and captured into a
graph, and the limit read 1600 afterwards (the driver grew it). Why XLA's launches failed
at the default is still open, so the spec's cuda_stack stays.
"""

from __future__ import annotations

import subprocess
import sys

SRC = r'''
__device__ __noinline__ double callee(int i, int k) {
    volatile double buf[NWORDS];
    for (int j = 0; j < NWORDS; j++) buf[j] = j * (double)(i + 1);
    double s = 0;
    for (int j = 0; j < NWORDS; j++) s += buf[(j * k) % NWORDS];
    return s;
}
extern "C" __global__ void direct(double* out, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    volatile double buf[NWORDS];
    for (int j = 0; j < NWORDS; j++) buf[j] = j * (double)(i + 1);
    double s = 0;
    for (int j = 0; j < NWORDS; j++) s += buf[(j * k) % NWORDS];
    out[i] = s;
}
extern "C" __global__ void via_callee(double* out, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = callee(i, k);
}
'''

CASE = r'''
import cupy as cp, numpy as np, sys, json
nwords, name, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rt = cp.cuda.runtime
res = {"nwords": nwords, "kernel": name, "mode": mode}
mod = cp.RawModule(code=SRC.replace("NWORDS", str(nwords)), options=("-std=c++17",))
ker = mod.get_function(name)
res["local_size_bytes"] = ker.attributes["local_size_bytes"]
res["limit_before"] = rt.deviceGetLimit(rt.cudaLimitStackSize)
n = 1 << 22
out = cp.full(n, -1.0)
i = np.arange(n, dtype=np.float64)
want = sum(j * (i + 1) for j in range(nwords))  # k = 1: every slot once
try:
    if mode == "plain":
        ker(((n + 127) // 128,), (128,), (out, np.int32(n), np.int32(1)))
        cp.cuda.Device().synchronize()
    else:
        s = cp.cuda.Stream(non_blocking=True)
        s.begin_capture()
        ker(((n + 127) // 128,), (128,), (out, np.int32(n), np.int32(1)), stream=s)
        g = s.end_capture()
        g.launch(stream=s)
        s.synchronize()
    res["ok"] = bool(np.allclose(cp.asnumpy(out), want, rtol=1e-12))
except Exception as e:
    res["error"] = f"{type(e).__name__}: {e}"[:300]
try:
    res["limit_after"] = rt.deviceGetLimit(rt.cudaLimitStackSize)
except Exception as e:
    res["limit_after"] = f"{type(e).__name__}"
print(json.dumps(res))
'''



def main() -> None:
    # 64 doubles (512 bytes) stay under the default; 200 (1600 bytes) pass it.
    for nwords in (64, 200):
        for name in ("direct", "via_callee"):
            for mode in ("plain", "capture"):
                r = subprocess.run([sys.executable, "-c", "SRC = " + repr(SRC) + "\n" + CASE, str(nwords), name, mode], capture_output=True, text=True, timeout=120)
                print(r.stdout.strip() or f"rc={r.returncode} {r.stderr.strip()[-300:]}")


if __name__ == "__main__":
    main()
