# Recipes for bridgegen. scripts/setup.sh and scripts/test.sh activate .venv (which
# provides `just`) and call `demo` and `test`.

spec := "specs/xsf.toml"

# List recipes.
default:
    @just --list

# Regenerate generated/ from every spec.
gen:
    for s in specs/*.toml; do bridgegen generate "$s"; done

# Fail if generated/ is stale.
check:
    for s in specs/*.toml; do bridgegen check "$s"; done

# Compile specs/xsf.toml against the active jaxlib and install the wheels.
build:
    bridgegen build {{spec}} --install

# Build, install and compare a few functions with scipy.special.
demo: build
    python examples/demo.py

# Everything CI runs: freshness, lints, Rust tests, the built package, Python tests.
test: check build
    cargo clippy --quiet --workspace --locked -- -D warnings
    cargo test --quiet --workspace --locked
    python -m pytest -q

# Accept new UI/golden expectations after an intended change (review the diff!).
bless:
    BRIDGEGEN_BLESS=1 cargo test --quiet -p bridgegen --test ui --test golden

# CPU benchmark (figures for docs/benchmarks.md).
bench-cpu:
    python bench/cpu.py --json bench/results/cpu.json

# GPU tests: fail instead of skipping when no GPU is visible.
test-gpu:
    BRIDGEGEN_REQUIRE_GPU=1 python -m pytest -q -m gpu
