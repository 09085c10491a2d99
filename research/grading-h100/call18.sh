#!/bin/bash
# A trial, not kept in the course: lesson 11's kernel told only that K is split (K_SPLIT=1),
# never into how many parts, so that every count of a block shape ran on one build (the
# binary and kernels in device-bin/g34 were built from that working tree). Grading time of a new lesson-11 file
# (NVIDIA's kernel cache off), before (bb70bda, SPLIT_K 4 only, its own solution) and after
# (every count 2 to 16), in turn, twice; then the two kernels whose part index wraps (at 8,
# at 4), rewritten on the new solution, and the references of 10-12.
set -u
D=$PWD/device-bin/g34
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
mkdir -p $OUT/r
L=$OUT/r/log.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/lab-before | tee -a $L
for round in 1 2; do
  for b in lab-before:$D/old-sol lab:solutions; do
    s=$SECONDS
    v=$(timeout 240 $D/${b%%:*} grade 11 --device NVIDIA --kernels ${b##*:} 2>&1 | grep -E "^  (PASSED|[A-Z]{4})" | head -1)
    echo "${b%%:*} lesson 11: $((SECONDS - s)) s: $v" | tee -a $L
  done
done
for k in $D/k-wrap8 $D/k-mod4; do
  echo "== $k" | tee -a $L
  timeout 240 $D/lab grade 11 --device NVIDIA --kernels $k 2>&1 | grep -E "^  [A-Z]" | cut -c1-400 | tee -a $L
done
echo "== lab grade 10 11 12 (t=${SECONDS}s)" | tee -a $L
timeout 300 $D/lab grade 10 11 12 --device NVIDIA --kernels solutions 2>&1 | grep -E "^  [A-Z]|^lesson" | cut -c1-300 | tee -a $L
date -u | tee -a $L
