#!/bin/bash
# Lesson 11 at ragged and aligned shapes with the host's padding copies as they were (old) and
# with four floats per work-item (new), alternating, by the course's ladder (fresh checked
# inputs, lead-in, time = the sum of the steps' device times).
set -u
D=$PWD/device-bin/pad
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab-bench-old $D/lab-bench-new | tee -a $L
for round in 1 2; do
  for v in old new; do
    echo "== round $round $v (t=${SECONDS}s)" | tee -a $L
    timeout 150 $D/lab-bench-$v ladder --lessons 11 --sizes 1023,1024,2047,2048,4095,4096 \
      --shapes 3001x2999x4093,4096x4096x4095,2048x2047x2048 --no-variants --no-peers \
      --run r$round-$v --out $OUT/ladder-$v.csv 2>&1 | tee -a $L
  done
done
echo "done t=${SECONDS}s" | tee -a $L
