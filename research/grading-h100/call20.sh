#!/bin/bash
# Lesson 11's grading on the GPU with its define sets built 16 at once (the host has 16
# cores) rather than 4: call 19's trace showed the 31 knob sets' builds taking 6 of its 12 s,
# their runs 0.05 s each. The binary of 4fc728a (lab-before) beside this one, NVIDIA's kernel
# cache off, twice in turn; then lessons 10 and 12 as a check.
set -u
D=$PWD/device-bin/g35
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
mkdir -p $OUT/r
L=$OUT/r/log.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/lab-before | tee -a $L
for round in 1 2 3; do
  for b in lab-before lab; do
    s=$SECONDS
    LAB_TRACE=1 timeout 240 $D/$b grade 11 --device NVIDIA --kernels solutions > $OUT/r/g11-$b-$round.txt 2>&1
    v=$(grep -E "^  (PASSED|[A-Z]{4})" $OUT/r/g11-$b-$round.txt | head -1)
    echo "$b lesson 11: $((SECONDS - s)) s: $v; builds of the knob sets: $(grep -A1 'more define sets' $OUT/r/g11-$b-$round.txt | tail -2 | cut -c1-12 | tr '\n' ' ')" | tee -a $L
  done
done
for b in lab-before lab; do
  s=$SECONDS
  timeout 240 $D/$b grade 10 12 --device NVIDIA --kernels solutions > $OUT/r/g1012-$b.txt 2>&1
  echo "$b lessons 10 12: $((SECONDS - s)) s: $(grep -E '^  (PASSED|[A-Z]{4})' $OUT/r/g1012-$b.txt | tr '\n' ' ')" | tee -a $L
done
date -u | tee -a $L
