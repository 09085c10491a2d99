#!/bin/bash
# Issue 30: the window check on a GPU. `lab` of the commit named below; the references of the
# OpenCL lessons graded by `lab grade`, then kernels wrong only where every side is large
# (device-bin/win/k05, k10, k11: `call30/kernels/*.diff` applied to solutions/; k04:
# research/red-team/ocl/04-joint-large).
set -u
# D and KERNELS (dir:lesson pairs) and OUTDIR may name another call's binaries and kernels.
D=${D:-device-bin/win}
KERNELS=${KERNELS:-"k04:04 k05:05 k10:10 k11:11"}
echo "lab sha1 $(sha1sum $D/lab | cut -c1-40)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for l in 04 05 06 07 08 09 10 11 12; do
  s=$(date +%s.%N)
  $D/lab grade $l --kernels solutions > $D/out-sol-$l.txt 2>&1
  e=$(date +%s.%N)
  echo "solution $l: $(grep -E '^  (PASSED|[A-Z][A-Z -]{3,}:)' $D/out-sol-$l.txt | head -1 | cut -c1-80) | $(grep -o 'also right.*compared\|was not multiplied[^:]*' $D/out-sol-$l.txt | cut -c1-200) | $s $e"
done
for k in $KERNELS; do
  dir=${k%%:*}; l=${k##*:}
  $D/lab grade $l --kernels $D/$dir > $D/out-$dir.txt 2>&1
  echo "$dir: $(grep -E '^  (PASSED|[A-Z][A-Z -]{3,}:)' $D/out-$dir.txt | head -1 | cut -c1-400)"
done
date -u
mkdir -p $OUT/${OUTDIR:-win}; cp $D/out-*.txt $OUT/${OUTDIR:-win}/
