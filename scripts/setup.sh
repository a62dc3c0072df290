#!/usr/bin/env bash
# Set everything up on a fresh machine (Rust + Python 3.11) and run the main job:
# bridgegen build specs/xsf.toml --install, then a short demo against scipy.special.
set -euo pipefail
source "$(dirname "$0")/env.sh"
just demo
