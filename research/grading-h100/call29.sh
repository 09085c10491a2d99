#!/bin/bash
# On an H100: is the growth between calls 27 and 28 (each step about a third longer) the code
# or the lease's machine? The two binaries in one command, turn about, three rounds: call 27's
# code (f716604, built again as device-bin/g42) and call 28's (8f7ce18, device-bin/g44), each
# grading the references of 04, 10 and 11 on the scoreboard as call 23's ten-run loop does.
set -u
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
sha1sum device-bin/g42/lab device-bin/g44/lab | tee -a $L
echo "round,build,milliseconds" > $OUT/times.csv
for r in 1 2 3; do
  for b in g42 g44; do
    t0=$(date +%s%N)
    timeout 120 device-bin/$b/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 10 --lesson 11 2>&1 \
      | grep -E "^\| (04|10|11)" | cut -c1-200 | sed "s/^/$b: /" | tee -a $L
    t1=$(date +%s%N)
    echo "$r,$b,$(( (t1 - t0) / 1000000 ))" | tee -a $OUT/times.csv
  done
done
date -u | tee -a $L
