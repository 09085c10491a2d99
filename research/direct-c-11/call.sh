#!/bin/bash
# Lesson 11 where only K is ragged: the host's padding copies with C copied back out (`old`,
# the build of cd1a550) against the same with the kernel writing C itself where C's rows need
# no padding (`new`), by `lab-bench ladder` (every call on fresh inputs, checked, behind its
# lead-in). One shape with N ragged and 2048³, whose paths both builds share, show the device
# steady; `new` also times the other aligned neighbours.
set -u
D=$PWD/device-bin/direct
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl solutions/11_matrix_units.cl $D/lab-bench-* | tee -a $L
SHAPES="1024x1024x1023,2048x2048x2047,4096x4096x4095,8192x8192x8191,8192x8192x1023,2048x2047x2048"
for b in ${ORDER:-new old}; do
  sizes="--sizes 2048"
  [ $b = new ] && sizes="--sizes 1024,2048,4096,8192"
  echo "== $b (t=${SECONDS}s)" | tee -a $L
  timeout 280 $D/lab-bench-$b ladder --lessons 11 --no-peers $sizes --shapes $SHAPES \
    --cpu-max 64 --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-$b" --out $OUT/ladder-$b.csv 2>&1 | tee -a $L
done
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
