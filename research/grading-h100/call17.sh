#!/bin/bash
# Call 16's grading time again, the builds of the define sets side by side on up to 16 of
# the host's cores (4 before): the references of 10, 11 and 12 by `lab grade` built before
# (bb70bda) and after, twice each, in turn.
set -u
D=$PWD/device-bin/g33
export LAB_ROOT=$PWD
# Every build compiled anew: NVIDIA's driver otherwise keeps compiled kernels between runs.
export CUDA_CACHE_DISABLE=1
mkdir -p $OUT/r
L=$OUT/r/log.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/lab-before | tee -a $L
for round in 1 2; do
  for b in lab-before lab; do
    for l in 10 11 12; do
      s=$SECONDS
      v=$(timeout 240 $D/$b grade $l --device NVIDIA --kernels solutions 2>&1 | grep -E "^  (PASSED|[A-Z]{4})" | head -1)
      echo "$b lesson $l: $((SECONDS - s)) s: $v" | tee -a $L
    done
  done
done
date -u | tee -a $L
