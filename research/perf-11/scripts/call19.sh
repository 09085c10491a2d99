#!/bin/bash
# Session 3, call 19: the solution as written (c1) compiled to more spill than v11 (28/40 bytes
# against 16/28) and ran 6 % slower; candidates that differ only in how the copy plan is
# written: c2 (filled through a pointer), c3 (v11 itself), c4 (c2 with v11's B conditions).
D=$PWD/.dev/w23
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
for c in c1 c2 c3 c4; do
  R=/tmp/ev_$c; rm -rf $R; mkdir -p $R
  $D/bin/lab evidence --lessons 11 --size 4096 --kernels $D/var/$c --out $R > $R.log 2>&1
  echo "== $c $(grep -h 'spill\|Used' $R/*.build.log | tr -s ' ' | tr '\n' ' ')" | tee -a $L
done
for s in 4096 8192; do for c in c1 c2 c3 c4 c1; do
  echo "== $s $c" | tee -a $L
  timeout 90 $D/bin/11_matrix_units --kernels $D/var/$c --size $s --no-compare 2>&1 | grep -E "speed|wrong|error" | tee -a $L
done; done
