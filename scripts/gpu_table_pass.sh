#!/usr/bin/env bash
# One pass of issue 17's device table (bench/device_table.py) sized to a device call: the
# cupyx warm-up, then the back-to-back times or the kernels under Nsight Compute, stopping
# before SECONDS have passed in all (so ncu, which prints when its program ends, prints),
# and skipping the cases of this pass that earlier calls on this machine finished (their
# files are kept under gpu-results/table/, which a warm machine keeps between calls). The
# files of this call land in $OUT; `device_table.py report` joins the calls' files.
#   usage: bash scripts/gpu_table_pass.sh times|kernels SECONDS   (ONLY=, SIZES= as for device_table.py)
set -uo pipefail
source "$(dirname "$0")/gpu_site.sh"
export XLA_PYTHON_CLIENT_MEM_FRACTION="${XLA_PYTHON_CLIENT_MEM_FRACTION:-0.6}"
pass=$1
budget=$2
keep=gpu-results/table
mkdir -p "$keep"
python3 bench/device_table.py warm > "$OUT/device-warm-$pass.log" 2>&1 || echo "warm-up failed: $OUT/device-warm-$pass.log"
earlier=$(ls "$keep/$pass"-*.json 2>/dev/null)
export SKIP_DONE
SKIP_DONE=$(echo "$earlier" | paste -sd, -)
export DEADLINE_S=$((budget - SECONDS))
k=$(echo "$earlier" | grep -c json)
echo "$pass: $k earlier file(s) on this machine, $DEADLINE_S s left"
status=0
case "$pass" in
times)
    python3 bench/device_table.py times "$OUT/device-times.json" > "$OUT/device-times.log" 2>&1 || status=1
    tail -n 3 "$OUT/device-times.log"
    cp "$OUT/device-times.json" "$keep/times-$k.json"
    ;;
kernels)
    ncu --profile-from-start off --clock-control none --metrics gpu__time_duration.sum --csv \
        python3 bench/device_table.py kernels "$OUT/device-plan.json" > "$OUT/device-kernels.csv" 2> "$OUT/device-kernels.err" || status=1
    tail -n 3 "$OUT/device-kernels.err"
    cp "$OUT/device-plan.json" "$keep/kernels-$k.json"
    ;;
*) echo "unknown pass $pass"; status=1 ;;
esac
exit $status
