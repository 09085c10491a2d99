#!/bin/bash
# Matrices written to the device by write and fill commands (e1852d8): the references of the
# OpenCL lessons graded by `lab grade` on NVIDIA's OpenCL, then lesson 04's kernels that write
# past C (tests/wrong/04_naive_kernel/out_of_bounds.cl), into B (writes_into_b.cl), nothing
# (never_writes.cl), and read past B (the reference with `k <= K`): each found by the zones
# the fill commands set.
set -u
D=device-bin/buf
echo "lab sha1 $(sha1sum $D/lab | cut -c1-40)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for l in 04 05 06 07 08 09 10 11 12; do
  s=$(date +%s.%N)
  $D/lab grade $l --kernels solutions > $D/out-sol-$l.txt 2>&1
  e=$(date +%s.%N)
  echo "solution $l: $(grep -E '^  (PASSED|[A-Z][A-Z -]{3,}:)' $D/out-sol-$l.txt | head -1 | cut -c1-80) | $(grep -o 'also right.*compared\|was not multiplied[^:]*' $D/out-sol-$l.txt | cut -c1-200) | $s $e"
done
for k in kob kwb knw kkk; do
  $D/lab grade 04 --kernels $D/$k > $D/out-$k.txt 2>&1
  echo "$k: $(grep -E '^  (PASSED|[A-Z][A-Z -]{3,}:)' $D/out-$k.txt | head -1 | cut -c1-400)"
done
date -u
mkdir -p $OUT/buf; cp $D/out-*.txt $OUT/buf/
