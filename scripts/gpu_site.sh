# Sourced by scripts/gpu_run.sh and scripts/gpu_profile.sh on the GPU machine: results go
# to $OUT (default gpu-results/), and the wheels `just gpu-wheel` built (dist-gpu/) are
# installed into a private directory put first on PYTHONPATH, leaving the machine's own
# environment (jax, CuPy) as it is.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-gpu-results}"
mkdir -p "$OUT"
SITE="${BRIDGEGEN_SITE:-/tmp/bridgegen-site}"
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$SITE" dist-gpu/*.whl || exit 1
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
