#!/usr/bin/env bash
# Run on the GPU machine (Python 3.12, jax 0.11.2, no Rust, no network) with `dist/`
# carried: installs the wheels built here and runs the CPU test suite against that
# machine's newer jaxlib, checking that one build (FFI API 0.1) works across jaxlib releases.
set -euo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site dist/*.whl
export PYTHONPATH=/tmp/site
python3 -c "import jax, jaxlib, scipy; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, 'scipy', scipy.__version__)"
JAX_PLATFORMS=cpu python3 -m pytest -q -p no:cacheprovider -o addopts= tests/python "$@"
