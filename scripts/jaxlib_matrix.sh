#!/usr/bin/env bash
# Build matrix (just matrix): build specs/xsf.toml against the headers of every jaxlib
# release from 0.7.2 on (fetched with pip, not installed), which runs the layout probe on
# each; then, for the ones given, run the CPU tests: in a throwaway venv where this Python
# can install that jax, else (jax >= 0.11 on Python 3.11) the whole suite in a Debian
# trixie chroot (scripts/trixie_suite.sh; needs root).
# Prints a markdown table for docs/compatibility.md. Needs network (PyPI) and time.
#   usage: bash scripts/jaxlib_matrix.sh [--test VERSION...]
set -uo pipefail
cd "$(dirname "$0")/.."
VERSIONS="${JAXLIB_VERSIONS:-0.7.2 0.8.0 0.8.1 0.8.2 0.8.3 0.9.0 0.9.0.1 0.9.1 0.9.2 0.10.0 0.10.1 0.10.2 0.11.0 0.11.1 0.11.2 0.12.0 0.12.0.1 0.12.1}"
TEST_VERSIONS=""
if [ "${1:-}" = "--test" ]; then shift; TEST_VERSIONS="$*"; fi
OUT="${MATRIX_OUT:-target/matrix}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
# Whether jax $1 needs a newer Python than this one (jax 0.11 and later: Python >= 3.12).
needs_newer_python() {
    python3 - "$1" <<'PY'
import sys
v = tuple(int(p) for p in sys.argv[1].split(".")[:2])
sys.exit(0 if v >= (0, 11) and sys.version_info < (3, 12) else 1)
PY
}
echo "| jaxlib | headers (FFI API) | build + layout probe | CPU tests |"
echo "|---|---|---|---|"
for v in $VERSIONS; do
    log="$OUT/build-$v.log"
    if bridgegen build specs/xsf.toml --jaxlib "$v" --cuda-arch none --quiet --json --out "$OUT/dist-$v" >"$OUT/build-$v.json" 2>"$log"; then
        api=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["header_ffi_api"])' "$OUT/build-$v.json")
        built="ok"
    else
        api="?"
        built="FAILED: $(grep -m1 -E 'mismatch|error' "$log" | cut -c1-80)"
    fi
    tested="not run"
    if [[ " $TEST_VERSIONS " == *" $v "* ]] && needs_newer_python "$v"; then
        # jax >= 0.11 needs Python >= 3.12: the whole CPU suite in a Debian trixie chroot.
        if bash scripts/trixie_suite.sh "$v" --ignore=tests/python/test_out_of_tree.py >/dev/null 2>&1; then
            tested="$(tail -1 "target/matrix/trixie-$v.log") (trixie, Python 3.13)"
        else
            tested="FAILED (see target/matrix/trixie-$v.log)"
        fi
    elif [[ " $TEST_VERSIONS " == *" $v "* ]]; then
        venv="$OUT/venv-$v"
        rm -rf "$venv" && python3 -m venv "$venv"
        if "$venv/bin/pip" install -q "jax==$v" "jaxlib==$v" scipy==1.17.1 numpy==2.4.6 pytest==8.4.2 pytest-timeout==2.4.0 flatbuffers==25.9.23 \
            && "$venv/bin/pip" install -q --no-deps "$OUT"/dist-"$v"/*.whl \
            && (cd tests/python && BRIDGEGEN_PYTHON="$venv/bin/python" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
                test_accuracy.py test_ufunc_api.py test_grad.py test_packaging.py -x >"$OUT/test-$v.log" 2>&1); then
            tested="$(tail -1 "$OUT/test-$v.log")"
        else
            tested="FAILED (see $OUT/test-$v.log)"
        fi
    fi
    echo "| $v | $api | $built | $tested |"
done
