#!/usr/bin/env bash
# Runs on the GPU machine after `just gpu-wheel`: kernel-only timings of bridged kernels
# against CuPy's (bench/kernel_variants.py, CUDA events), and, where the profilers are
# installed, kernel durations inside JAX calls (bench/investigations/jax_overhead.py under ncu, nsys);
# where a delegated call's time goes (bench/investigations/lazy_profile.py, bench/investigations/lazy_timeline.py); calls
# with and without XLA's command buffers (bench/investigations/command_buffers.py).
# Results go to $OUT (default gpu-results/). See docs/gpu.md.
set -uo pipefail
source "$(dirname "$0")/gpu_site.sh"
export XLA_PYTHON_CLIENT_MEM_FRACTION="${XLA_PYTHON_CLIENT_MEM_FRACTION:-0.5}"
status=0
timeout 300 python3 bench/kernel_variants.py --json "$OUT/kernel-variants.json" 2>&1 | tee "$OUT/kernel-variants.log" || status=1
timeout 200 python3 bench/investigations/jax_overhead.py 2>&1 | tee "$OUT/jax-overhead.log" || status=1
timeout 200 python3 bench/investigations/lazy_profile.py 2>&1 | tee "$OUT/lazy-profile.log" || status=1
timeout 100 python3 bench/investigations/lazy_timeline.py 2>&1 | tee "$OUT/lazy-timeline.log" || status=1
{
    timeout 100 python3 bench/investigations/command_buffers.py
    XLA_FLAGS="${XLA_FLAGS:-} --xla_gpu_graph_min_graph_size=1 --xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL" \
        timeout 100 python3 bench/investigations/command_buffers.py
} 2>&1 | tee "$OUT/command-buffers.log" || status=1
if command -v ncu >/dev/null; then
    timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum python3 bench/investigations/jax_overhead.py --ncu 2>&1 \
        | grep -E "^  [a-zA-Z_]|gpu__time_duration" | tee "$OUT/ncu-jax-overhead.txt" | tail -n 100
fi
if command -v nsys >/dev/null; then
    timeout 200 nsys profile -t cuda -o "$OUT/bridge" --force-overwrite true python3 bench/bridge_calls.py >/dev/null 2>&1
    nsys stats -q -r cuda_gpu_kern_sum "$OUT/bridge.nsys-rep" 2>&1 | tee "$OUT/nsys-kernels.txt" | cut -c1-220
    rm -f "$OUT"/bridge.sqlite
else
    echo "nsys not installed"
fi
exit $status
