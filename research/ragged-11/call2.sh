#!/bin/bash
set -u
D=$PWD/device-bin/ragged
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl $D/lab-bench-new | tee -a $L
timeout 200 $D/lab-bench-new ladder --lessons 11 --no-peers --sizes 1023,4095,4096 \
  --shapes 2048x2048x2047,4096x4096x4095 --cpu-max 64 \
  --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-selects" --out $OUT/ladder-selects.csv 2>&1 | tee -a $L
date -u | tee -a $L
