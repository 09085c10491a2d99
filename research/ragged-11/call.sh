#!/bin/bash
# Lesson 11's warp-group variant reading ragged rows where they lie (`new`: no host copies; A's
# rows unshifted on chip, B's read at their shift) against the host's padding copies (`old`,
# the build of 6c181b9), by `lab-bench ladder` (every call on fresh inputs, checked, behind its
# lead-in). `new` also times the aligned neighbours: its aligned code is the old one (AR = BR = 0).
set -u
D=$PWD/device-bin/ragged
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl solutions/11_matrix_units.cl $D/lab-bench-* | tee -a $L
RAGGED="1023,2047,4095,8191"
SHAPES="2048x2047x2048,2048x2048x2047,4096x4095x4096,4096x4096x4095,3001x2999x4093"
for b in ${ORDER:-new old}; do
  sizes=$RAGGED
  [ $b = new ] && sizes="1024,$RAGGED,2048,4096,8192"
  echo "== $b (t=${SECONDS}s)" | tee -a $L
  timeout 290 $D/lab-bench-$b ladder --lessons 11 --no-peers --sizes $sizes --shapes $SHAPES \
    --cpu-max 64 --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-$b" --out $OUT/ladder-$b.csv 2>&1 | tee -a $L
done
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
