#!/usr/bin/env bash
# Runs on the GPU machine (jax + CuPy installed, no Rust, maybe no network): installs the
# wheels built here by `just gpu-wheel` (dist-gpu/) into a private directory, then runs
# the GPU tests, the GPU tests again under compute-sanitizer's memcheck (a subset: it is
# slow), and the GPU benchmark with its plot. Logs and results go to $OUT (default
# gpu-results/). See docs/gpu.md.
#   usage: bash scripts/gpu_run.sh [tests|contract|sanitizer|bench|stats|loop|table-times|table-kernels|mathlib]...
#          (default: tests contract sanitizer bench)
set -uo pipefail
source "$(dirname "$0")/gpu_site.sh"
export BRIDGEGEN_REQUIRE_GPU=1
# CuPy (tests compare with cupyx) and XLA share the GPU: leave CuPy room.
export XLA_PYTHON_CLIENT_MEM_FRACTION="${XLA_PYTHON_CLIENT_MEM_FRACTION:-0.6}"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests contract sanitizer bench)
status=0
{
    date -u +%FT%TZ
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    python3 -c 'import sys, jax, cupy, scipy; print("python", sys.version.split()[0], "jax", jax.__version__, "cupy", cupy.__version__, "scipy", scipy.__version__)'
    python3 -c 'import jax_xsf, ctypes, os; lib = ctypes.CDLL(os.path.join(os.path.dirname(jax_xsf.__file__), jax_xsf._spec.LIBRARY)); f = lib.bg_jax_xsf_cuda_archs; f.restype = ctypes.c_char_p; print("cuda archs in the library:", f().decode())'
} 2>&1 | tee "$OUT/environment.txt"
for step in "${steps[@]}"; do
    case "$step" in
    tests)
        # Spread over worker processes where pytest-xdist is installed (one serial run no
        # longer fits a 10-minute device call); each worker then takes GPU memory as it
        # goes instead of XLA's preallocated share.
        par=()
        if python3 -c "import xdist" 2>/dev/null; then par=(-n "${BRIDGEGEN_TEST_WORKERS:-6}"); fi
        [ ${#par[@]} -eq 0 ] || export XLA_PYTHON_CLIENT_PREALLOCATE=false
        BRIDGEGEN_POISON_OUTPUTS=1 python3 -m pytest -q -m gpu -p no:cacheprovider -o addopts="" -rfE --tb=short \
            "${par[@]}" --junitxml="$OUT/gpu-tests.xml" tests/python 2>&1 | tee "$OUT/gpu-tests.log" | tail -n 60
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        unset XLA_PYTHON_CLIENT_PREALLOCATE
        ;;
    contract)
        # The callers' contracts on this machine's jax with the GPU as default backend: JAX's
        # own programs untouched by our imports, lazy_apply (and array-api-extra's own suite
        # with its JAX GPU, CuPy and torch backends), delegation safety, the ABI, export.
        python3 -m pytest -q -p no:cacheprovider -o addopts="" -rfE --tb=short --junitxml="$OUT/contract-tests.xml" \
            tests/python/test_jax_untouched.py tests/python/test_lazy_apply.py tests/python/test_delegation_safety.py \
            tests/python/test_abi.py tests/python/test_array_api_extra.py tests/python/test_export.py \
            tests/python/test_sharding.py 2>&1 | tee "$OUT/contract-tests.log" | tail -n 40
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        ;;
    stats)
        # Issue 17's device functions against eager cupyx and jax.scipy (docs/benchmarks.md).
        python3 bench/stats_gpu.py 2>&1 | tee "$OUT/bench-stats.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        ;;
    table-times)
        # Issue 17's device table, back to back (bench/device_table.py): cupyx's kernels
        # compiled in parallel first, then every case timed.
        python3 bench/device_table.py warm > "$OUT/device-warm.log" 2>&1 || status=1
        tail -n 3 "$OUT/device-warm.log"
        python3 bench/device_table.py times "$OUT/device-times.json" > "$OUT/device-times.log" 2>&1 || status=1
        tail -n 5 "$OUT/device-times.log"
        ;;
    table-kernels)
        # The same cases' kernels alone under Nsight Compute, then the table and its plot, with
        # the back-to-back times of a table-times step: in $OUT when run in the same call,
        # else at $BRIDGEGEN_TABLE_TIMES (a file carried from that call's results).
        python3 bench/device_table.py warm || status=1
        ncu --profile-from-start off --clock-control none --metrics gpu__time_duration.sum --csv \
            python3 bench/device_table.py kernels "$OUT/device-plan.json" > "$OUT/device-kernels.csv" 2> "$OUT/device-kernels.err" || status=1
        tail -n 5 "$OUT/device-kernels.err"
        python3 bench/device_table.py report "${BRIDGEGEN_TABLE_TIMES:-$OUT/device-times.json}" "$OUT/device-plan.json" "$OUT/device-kernels.csv" \
            "$OUT/device-table.md" "$OUT/device-ratio.png" || status=1
        ;;
    mathlib)
        # Which of CUDA's math-library functions (as cupyx calls them) pass our GPU accuracy
        # test against SciPy (bench/investigations/cuda_mathlib_accuracy.py).
        # Then cupyx's single-precision float32 kernels (--single).
        python3 bench/investigations/cuda_mathlib_accuracy.py 2>&1 | tee "$OUT/mathlib-accuracy.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        python3 bench/investigations/cuda_mathlib_accuracy.py --single 2>&1 | tee "$OUT/mathlib-accuracy-single.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        ;;
    loop)
        # Chained bridged calls in a loop against native ops (the in-place default).
        python3 bench/loop_alias.py 2>&1 | tee "$OUT/bench-loop.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        ;;
    sanitizer)
        # memcheck over a few real launches: every shape path, loops, a complex loop, graph
        # replay of delegated calls, and delegation's kept-view and call-site-lifetime cases.
        BRIDGEGEN_POISON_OUTPUTS=1 compute-sanitizer --tool memcheck --error-exitcode 86 --target-processes all \
            python3 -m pytest -q -m gpu -p no:cacheprovider -o addopts="" tests/python/test_gpu.py tests/python/test_lazy.py \
            tests/python/test_delegation_safety.py tests/python/test_gufunc.py \
            -k "shapes_and_broadcasting or transposed or scan_and_fori or same_function or ordinal or graph_safe or kept or never_lose or gpu_matches_scipy_and_the_host" \
            > "$OUT/sanitizer.log" 2>&1 || status=1
        # The whole log stays in $OUT (each error's kind and host frames); the end here.
        tail -n 40 "$OUT/sanitizer.log"
        ;;
    bench)
        python3 bench/gpu.py --json "$OUT/bench-gpu.json" 2>&1 | tee "$OUT/bench-gpu.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        python3 bench/plot_gpu.py "$OUT/bench-gpu.json" "$OUT/gpu-time-per-call.png" || status=1
        python3 bench/lazy_gpu.py --json "$OUT/bench-lazy-gpu.json" 2>&1 | tee "$OUT/bench-lazy-gpu.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        ;;
    *) echo "unknown step $step"; status=1 ;;
    esac
done
exit $status
