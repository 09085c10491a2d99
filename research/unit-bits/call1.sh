#!/bin/bash
# The matrix unit bit for bit against the models (unit-bits), and lesson 11's reference
# beside three other summation orders (two wrong, one right in another style) on the device.
D=$PWD/device-bin/peers11
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version --format=csv; date -u
echo "== unit-bits"; $D/unit-bits NVIDIA $OUT/dump
for s in 1024 4096; do
  echo "== reference $s"; $D/11_matrix_units --solution -s $s --no-compare 2>&1 | grep -E "check|speed|defines"
  for o in plain_tf32 split_summed_inside_the_unit big_and_corrections_in_separate_calls; do
    echo "== $o $s"; $D/11_matrix_units --kernels device-bin/orders/$o -s $s --no-compare 2>&1 | grep -E "check|speed|error|wrong|FAIL|fail" | head -6
  done
done
date -u
