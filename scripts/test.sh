#!/usr/bin/env bash
# Run the whole test suite (sets the environment up first if needed).
set -euo pipefail
source "$(dirname "$0")/env.sh"
just test
