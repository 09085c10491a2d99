#!/bin/bash
# Lesson 11's warp group where only N is ragged: B's rows read where they lie (BR, no copies,
# C written by the kernel; `new`) against the host's padding copies of B and C above the
# in-place bound (`old`, the build of 4d68220), by `lab-bench ladder` (every call on fresh
# inputs, checked, behind its lead-in). The aligned neighbours, timed by `new`, and one shape
# whose path both builds share (1024×1023×1024, in place in both) show the device steady.
set -u
D=$PWD/device-bin/br
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl $D/lab-bench-* | tee -a $L
SHAPES="1024x1023x1024,2048x2047x2048,4096x4095x4096,8192x8191x8192,12288x4095x3072"
for b in ${ORDER:-new old}; do
  sizes="--sizes 1024"
  [ $b = new ] && sizes="--sizes 2048,4096,8192"
  echo "== $b (t=${SECONDS}s)" | tee -a $L
  timeout 250 $D/lab-bench-$b ladder --lessons 11 --no-peers $sizes --shapes $SHAPES \
    --cpu-max 64 --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-$b" --out $OUT/ladder-$b.csv 2>&1 | tee -a $L
done
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
