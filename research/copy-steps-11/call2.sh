#!/bin/bash
# Issue 32: lesson 11's warp group at ragged shapes with every step's device time printed
# (research build of lab-bench, steps.patch: LAB_STEP_MS prints them, LAB_WG_PAD=0/1 forces
# in place or padded, LAB_COPY_CL replaces the host's padding-copy kernels). `old` is the
# course's copy (four scalar reads and one 16-byte store per work-item), `il` copy_il.cl (each
# work-item four floats a work-group's width apart: every read and write coalesced).
set -u
D=$PWD/device-bin/g31
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA LAB_STEP_MS=1
mkdir -p $OUT/r
L=$OUT/r/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab-bench-steps $D/copy_il.cl lessons/11_matrix_units/*.cl | tee -a $L
run() { # label, copy, pad, sizes, shapes
  echo "== $1 (t=${SECONDS}s)" | tee -a $L
  local copy=""; [ "$2" = il ] && copy=$D/copy_il.cl
  LAB_COPY_CL=$copy LAB_WG_PAD=$3 timeout 150 $D/lab-bench-steps ladder --lessons 11 --no-peers --sizes $4 --shapes $5 \
    --cpu-max 64 --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-$1" --out $OUT/r/ladder-$1.csv > $OUT/r/out-$1.txt 2> $OUT/r/steps-$1.txt
  grep GFLOP $OUT/r/out-$1.txt | tee -a $L
}
run il-big il "" 2048,2047 2048x2048x2047
run old-small-pad old 1 1024,1023 1024x1023x1024,1024x1024x1023
run il-small-pad il 1 1024,1023 1024x1023x1024,1024x1024x1023
run small-inplace old 0 1023 1024x1023x1024,1024x1024x1023
run il-4095 il "" 4095 4096x4095x4096
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
