# Recipes for bridgegen. scripts/setup.sh and scripts/test.sh activate .venv (which
# provides `just`) and call `demo` and `test`.

spec := "specs/xsf.toml"
# CUDA targets of `build`: BRIDGEGEN_CUDA_ARCH if set; else the default (sm_90 cubins +
# compute_80 PTX) on a machine with an NVIDIA GPU, and none (a CPU-only library, no
# NVRTC minutes) on one without.
cuda_arch := env_var_or_default("BRIDGEGEN_CUDA_ARCH", `nvidia-smi -L >/dev/null 2>&1 && echo sm_90,compute_80 || echo none`)

# List recipes.
default:
    @just --list

# Regenerate generated/ from every spec.
gen:
    for s in specs/*.toml; do bridgegen generate "$s"; done

# Fail if generated/ is stale.
check:
    for s in specs/*.toml; do bridgegen check "$s"; done

# Compile every spec against the active jaxlib and install the wheels.
build:
    for s in specs/*.toml; do bridgegen build "$s" --install --quiet --cuda-arch {{cuda_arch}}; done

# Wheels for the GPU machine (dist-gpu/): cubins for its H200 only, to keep them small.
# Then, there: `bash scripts/gpu_run.sh` (docs/gpu.md).
gpu-wheel:
    for s in specs/*.toml; do bridgegen build "$s" --cuda-arch sm_90 --out dist-gpu; done

# Build, install and compare a few functions with scipy.special.
demo: build
    python examples/demo.py

# Everything CI runs: freshness, lints, Rust tests (NVRTC included), the built package,
# Python tests.
test: check build
    ruff check .
    cargo clippy --quiet --workspace --locked -- -D warnings
    BRIDGEGEN_REQUIRE_NVRTC=1 cargo test --quiet --workspace --locked
    python -m pytest -q

# Build specs/xsf.toml against every jaxlib release's headers (layout probe included) and
# run the CPU tests against the given installable ones: just matrix 0.8.0 0.10.2
matrix *TEST_VERSIONS:
    bash scripts/jaxlib_matrix.sh --test {{TEST_VERSIONS}}

# The release routine: freshness check, regenerate, rebuild, test.
regen:
    just check || true
    just gen
    just build
    just test

# A `bridgegen doctor` report for the main spec.
doctor:
    bridgegen doctor {{spec}}

# Accept new UI/golden expectations after an intended change (review the diff!).
bless:
    BRIDGEGEN_BLESS=1 cargo test --quiet -p bridgegen --test ui --test golden

# CPU benchmark (figures for docs/benchmarks.md).
bench-cpu:
    python bench/cpu.py --json bench/results/cpu.json

# GPU tests on a machine with a GPU and this environment: fail instead of skipping when
# no GPU is visible; outputs poisoned before every kernel.
test-gpu:
    BRIDGEGEN_REQUIRE_GPU=1 BRIDGEGEN_POISON_OUTPUTS=1 python -m pytest -q -m gpu
