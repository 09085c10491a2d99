#!/bin/bash
# Where a lesson-11 grading's time goes on the GPU (LAB_TRACE: each step with its second), the
# binary of 4fc728a (lab-before) beside this one, NVIDIA's kernel cache off; lesson 04 with
# the work-group the harness now chooses for a launch that leaves it open (32 × 2) beside the
# driver's choice (lab-before): its grading, and its speed and the reference's at 1024 on the
# scoreboard, twice in turn; then lesson 04's new wrong case on a GPU without the simulator.
set -u
D=$PWD/device-bin/g35
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
mkdir -p $OUT/r
L=$OUT/r/log.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/lab-before | tee -a $L
for round in 1 2; do
  for b in lab-before lab; do
    s=$SECONDS
    LAB_TRACE=1 timeout 240 $D/$b grade 11 --device NVIDIA --kernels solutions > $OUT/r/g11-$b-$round.txt 2>&1
    v=$(grep -E "^  (PASSED|[A-Z]{4})" $OUT/r/g11-$b-$round.txt | head -1)
    echo "$b lesson 11: $((SECONDS - s)) s: $v" | tee -a $L
  done
done
for round in 1 2; do
  for b in lab-before lab; do
    s=$SECONDS
    LAB_TRACE=1 timeout 120 $D/$b grade 04 10 --device NVIDIA --kernels solutions > $OUT/r/g0410-$b-$round.txt 2>&1
    echo "$b lessons 04 10: $((SECONDS - s)) s: $(grep -E '^  (PASSED|[A-Z]{4})' $OUT/r/g0410-$b-$round.txt | tr '\n' ' ')" | tee -a $L
  done
done
for round in 1 2; do
  for b in lab-before lab; do
    echo "== $b scoreboard lesson 04 at 1024, round $round" | tee -a $L
    timeout 120 $D/$b --kernels solutions --lesson 4 --size 1024 --device NVIDIA 2>&1 | grep -iE "04|flop" | head -6 | tee -a $L
  done
done
echo "== lesson 04's case reads_ahead_in_groups_of_many on the GPU" | tee -a $L
timeout 120 $D/lab grade 04 --device NVIDIA --kernels $D/k04 2>&1 | grep -E "^  [A-Za-z]" | cut -c1-300 | tee -a $L
date -u | tee -a $L
