#!/usr/bin/env bash
# Here, before a GPU run: fill .gpu-carry/ (ignored by git; name it in the run's `carry`)
# with what the GPU machine lacks and cannot download: the pure-Python wheels of
# array-api-extra and array-api-compat, and array-api-extra's tests from the sdist that
# scripts/env.sh fetched. Wheels themselves come from `just gpu-wheel` (dist-gpu/).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu-carry && mkdir -p .gpu-carry/array_api_extra-0.11.5
python3 -m pip download -q --no-deps --only-binary=:all: -d .gpu-carry array-api-extra==0.11.5 array-api-compat==1.16.0
cp -r .venv/array_api_extra-0.11.5/tests .venv/array_api_extra-0.11.5/pyproject.toml .gpu-carry/array_api_extra-0.11.5/
du -sh .gpu-carry
