#!/bin/bash
# Call 3 (and later): lesson 11's reference tuned on an H100 at the shapes call 2 could not
# reach, a few shapes per command, each given its own time; the tuner's file is copied out
# after every shape, so that a command cut short still brings back what finished.
# Usage: call3.sh SECONDS_PER_SHAPE SHAPE...   (BUDGET=N: try only the N likeliest combinations)
set -u
D=${LAB_BIN:-$PWD/device-bin/h100t}
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
PER=$1; shift
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee -a $L
date -u | tee -a $L
sha1sum solutions/11_matrix_units.cl $D/lab-bench | tee -a $L
for s in "$@"; do
  echo "== tune $s (t=${SECONDS}s, ${PER}s given)" | tee -a $L
  timeout $PER $D/lab-bench tune --lesson 11 --shape $s --time-ms 200 --top 6 ${BUDGET:+--budget $BUDGET} --write 2>&1 | grep -v "new best" | tee -a $L
  cp results/tuned.csv $OUT/tuned-after.csv
done
echo "done t=${SECONDS}s" | tee -a $L
