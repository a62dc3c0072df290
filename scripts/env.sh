# Sourced by setup.sh and test.sh: creates (once) the pinned virtual environment in .venv,
# activates it, and builds the bridgegen CLI. Safe to source repeatedly.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
stamp=".venv/.requirements-$(sha256sum requirements/dev.txt | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    echo "==> creating .venv with pinned dependencies (requirements/dev.txt)"
    rm -rf .venv
    "$PY" -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip==25.3
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
    touch "$stamp"
fi
# shellcheck disable=SC1091
source .venv/bin/activate
export BRIDGEGEN_PYTHON="$ROOT/.venv/bin/python"
echo "==> building the bridgegen CLI"
cargo build --quiet --release --locked -p bridgegen
export PATH="$ROOT/target/release:$PATH"
