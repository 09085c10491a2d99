#!/bin/bash
# Lesson 11's grading on the GPU before and after one build serves every count of parts of K
# (the kernel told only K_IN_PARTS; SPLIT_K the host's): b4970a0's binary (lab-before) grading
# the solution of its day, this change's grading today's, NVIDIA's kernel cache off, twice in
# turn, each step timed (LAB_TRACE); then a part index wrapped at four parts, by the new binary.
set -u
D=$PWD/device-bin/g36
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
mkdir -p $OUT/r
L=$OUT/r/log.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/lab-before $D/k11-before/*.cl solutions/11_matrix_units.cl $D/k11-mod4/*.cl | tee -a $L
for round in 1 2 3; do
  for b in lab-before lab; do
    k=solutions; [ $b = lab-before ] && k=$D/k11-before
    s=$SECONDS
    LAB_TRACE=1 timeout 240 $D/$b grade 11 --device NVIDIA --kernels $k > $OUT/r/g11-$b-$round.txt 2>&1
    v=$(grep -E "^  (PASSED|[A-Z]{4})" $OUT/r/g11-$b-$round.txt | head -1)
    echo "$b lesson 11: $((SECONDS - s)) s: $v" | tee -a $L
  done
done
echo "== the part index wrapped at four parts (lab)" | tee -a $L
timeout 240 $D/lab grade 11 --device NVIDIA --kernels $D/k11-mod4 2>&1 | grep -E "^  [A-Za-z]" | cut -c1-400 | tee -a $L
date -u | tee -a $L
