#!/usr/bin/env bash
# What CI's jaxlib watch does for a new jaxlib release (just release-check VERSION):
#  1. build specs/xsf.toml against VERSION's headers (fetched with pip): the layout probe
#     compares them with the runtime's mirror of the FFI C API;
#  2. run the CPU test suite on jax/jaxlib VERSION: in a venv of this Python when it can
#     install that jax, else in the Debian trixie chroot (scripts/trixie_suite.sh, Python
#     3.13) — a release whose suite did not run is not admitted;
#  3. if both passed: raise runtime/abi.toml's newest tested jaxlib to VERSION (or drop it
#     from jaxlib_not_tested), re-render what derives from it, and print the pull
#     request's text on stdout.
# --build-only stops after step 1 (what the test suite runs against a published release).
#   usage: bash scripts/release_check.sh [--build-only] VERSION
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_ONLY=0
# The builds below admit VERSION (bridgegen's range excludes untested releases).
if [ "${1:-}" = "--build-only" ]; then BUILD_ONLY=1; shift; fi
V="${1:?usage: release_check.sh [--build-only] VERSION}"
export BRIDGEGEN_JAXLIB_UNDER_TEST="$V"
OUT="target/release-check/$V"
mkdir -p "$OUT"
log() { echo "release-check $V: $*" >&2; }

newest=$(python3 -c 'import tomllib; print(tomllib.load(open("runtime/abi.toml", "rb"))["jaxlib_newest_tested"])')
log "building against jaxlib $V's headers (newest tested: $newest)"
bridgegen build specs/xsf.toml --jaxlib "$V" --cuda-arch none --quiet --json --out "$OUT/dist" >"$OUT/build.json" 2>"$OUT/build.log" || {
    log "build or layout probe FAILED (see $OUT/build.log)"; tail -5 "$OUT/build.log" >&2; exit 1; }
api=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["header_ffi_api"])' "$OUT/build.json")
log "built: headers report FFI API $api; layout probe passed"
[ "$BUILD_ONLY" = 1 ] && { echo "jaxlib $V: build + layout probe ok (FFI API $api); tests not run (--build-only)"; exit 0; }

venv="$OUT/venv"
rm -rf "$venv"
python3 -m venv "$venv"
if "$venv/bin/pip" install -q "jax==$V" "jaxlib==$V" 2>"$OUT/pip.log"; then
    log "running the CPU suite with this Python ($(python3 -V))"
    grep -v -E '^(jax|jaxlib)==' requirements/dev.txt >"$OUT/requirements.txt"
    "$venv/bin/pip" install -q -r "$OUT/requirements.txt"
    (source "$venv/bin/activate" && export PATH="$PWD/target/release:$PATH" && just build >"$OUT/suite.log" 2>&1 \
        && python -m pytest -q -p no:cacheprovider >>"$OUT/suite.log" 2>&1) || { log "suite FAILED (see $OUT/suite.log)"; exit 1; }
    result=$(tail -1 "$OUT/suite.log")
else
    log "this Python cannot install jax $V: running the suite in the trixie chroot (Python 3.13)"
    bash scripts/trixie_suite.sh "$V" || { log "suite FAILED (target/matrix/trixie-$V.log)"; exit 1; }
    result=$(tail -1 "target/matrix/trixie-$V.log")
fi
log "suite: $result"

python3 - "$V" <<'PY'
import re, sys
v = sys.argv[1]
key = lambda s: tuple(int(p) for p in s.split("."))
text = open("runtime/abi.toml").read()
newest = re.search(r'^jaxlib_newest_tested = "([^"]+)"', text, re.M).group(1)
if key(v) > key(newest):
    text = text.replace(f'jaxlib_newest_tested = "{newest}"', f'jaxlib_newest_tested = "{v}"')
text = re.sub(r'^(jaxlib_not_tested = \[)(.*)\]', lambda m: m.group(1) + ", ".join(x for x in m.group(2).split(", ") if x and x != f'"{v}"') + "]", text, flags=re.M)
open("runtime/abi.toml", "w").write(text)
PY
BRIDGEGEN_BLESS=1 cargo test --quiet -p bridgegen --test abi >/dev/null
cat <<MSG
Admit jaxlib $V

\`scripts/release_check.sh $V\` on $(date -u +%F):
- build of specs/xsf.toml against jaxlib $V's headers: ok, FFI API $api, layout probe passed
- CPU suite on jax/jaxlib $V: $result

runtime/abi.toml now admits it (Requires-Dist and the import-time check).
MSG
