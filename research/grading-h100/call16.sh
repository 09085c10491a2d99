#!/bin/bash
# Lesson 11 with every count of parts its host may ask for on the tensor cores (SPLIT_K 2 to 16,
# for both block shapes: 32 combinations, each at the small and deep thin shapes): the
# reference and two kernels whose part index wraps (at eight parts, the course's case
# `part_index_wraps_at_eight`; at four, `research/red-team/ocl/11-splitk-mod4`), by `lab grade`
# built before (bb70bda, SPLIT_K 4 only) and after, each timed.
set -u
D=$PWD/device-bin/g33
export LAB_ROOT=$PWD
mkdir -p $OUT/r
L=$OUT/r/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/lab-before | tee -a $L
for b in lab-before lab; do
  for k in solutions $D/k-wrap8 $D/k-mod4; do
    echo "== $b $k (t=${SECONDS}s)" | tee -a $L
    s=$SECONDS
    timeout 240 $D/$b grade 11 --device NVIDIA --kernels $k 2>&1 | grep -v "^  ok " | cut -c1-600 | tee -a $L
    echo "   took $((SECONDS - s)) s" | tee -a $L
  done
done
echo "== lab grade 10 11 12, after (t=${SECONDS}s)" | tee -a $L
timeout 300 $D/lab grade 10 11 12 --device NVIDIA --kernels solutions 2>&1 | grep -v "^  ok " | cut -c1-400 | tee -a $L
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
