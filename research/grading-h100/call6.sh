#!/bin/bash
# After the fix: the lesson program at 8192 (C compared at drawn points again) and 1024 (whole),
# the reference and the three products summed inside the unit.
set -u
D=$PWD/device-bin/m11
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
for s in 8192 1024; do
  for k in ref inside; do
    echo "== $k $s" | tee -a $L
    s0=$(date +%s)
    timeout 150 $D/11_matrix_units --kernels $D/$k -s $s --no-compare --record $OUT/$k.csv 2>&1 | grep -E "rror|speed|fail|wrong|WRONG|defines|check" | cut -c1-400 | tee -a $L
    echo "   ($(( $(date +%s) - s0 )) s)" | tee -a $L
  done
done
date -u | tee -a $L
