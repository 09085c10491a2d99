#!/bin/bash
# Lesson 11's warp-group variant at ragged shapes: the host's padding copies (`old`, the build of
# c5974e2) against the kernel's own 4-byte copies and no copies (`new`), by `lab-bench ladder`
# (every call on fresh inputs, checked, behind its lead-in; a ragged size's even neighbour is
# timed too). ORDER says which build runs first; the second call runs the other order.
set -u
D=$PWD/device-bin/narrow
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl solutions/11_matrix_units.cl $D/lab-bench-* | tee -a $L
for b in ${ORDER:-new old}; do
  echo "== $b (t=${SECONDS}s)" | tee -a $L
  timeout 280 $D/lab-bench-$b ladder --lessons 11 --no-peers --sizes 1023,2047,4095,8191 \
    --shapes 2048x2047x2048,2048x2048x2047,3001x2999x4093 --cpu-max 64 \
    --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-$b" --out $OUT/ladder-$b.csv 2>&1 | tee -a $L
done
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
