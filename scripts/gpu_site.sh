# Sourced by scripts/gpu_run.sh and scripts/gpu_profile.sh on the GPU machine: results go
# to $OUT (default gpu-results/), and the wheels `just gpu-wheel` built (dist-gpu/, or
# $BRIDGEGEN_DIST: the CUDA 12/13 variants of `just gpu-wheel-variants`) are
# installed into a private directory put first on PYTHONPATH, leaving the machine's own
# environment (jax, CuPy) as it is.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-gpu-results}"
mkdir -p "$OUT"
SITE="${BRIDGEGEN_SITE:-/tmp/bridgegen-site}"
# .gpu-carry/*.whl: pure-Python test dependencies the machine lacks (array-api-extra and
# array-api-compat for tests/python/test_array_api_extra.py; scripts/gpu_carry.sh).
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$SITE" "${BRIDGEGEN_DIST:-dist-gpu}"/*.whl \
    $(ls .gpu-carry/*.whl 2>/dev/null) || exit 1
export BRIDGEGEN_AAE_SDIST="${BRIDGEGEN_AAE_SDIST:-$PWD/.gpu-carry/array_api_extra-0.11.5}"
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
