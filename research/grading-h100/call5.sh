#!/bin/bash
# Lesson 11 with its three products summed inside the unit (the course's case
# split_summed_inside_the_unit, the order CUTLASS's 3xTF32 uses) on the tensor cores: what
# the grader says, and its error and speed beside the reference at 2048-8192, same inputs.
set -u
D=$PWD/device-bin/m11
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
for k in inside plain; do
  echo "== lab grade 11, $k" | tee -a $L
  timeout 120 $D/lab grade 11 --device NVIDIA --kernels $D/$k 2>&1 | grep -vE "^\s*$" | cut -c1-700 | tail -12 | tee -a $L
done
for s in 1024 2048 4096 8192; do
  for k in ref inside; do
    echo "== $k $s" | tee -a $L
    timeout 90 $D/11_matrix_units --kernels $D/$k -s $s --no-compare --record $OUT/$k.csv 2>&1 | grep -E "rror|speed|fail|wrong|defines" | tee -a $L
  done
done
date -u | tee -a $L
