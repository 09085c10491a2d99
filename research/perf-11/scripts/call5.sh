#!/bin/bash
D=$PWD/.dev/l11
export LAB_ROOT=$D/root LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log4.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { v=$1; s=$2; shift; shift; echo "== $v $s $*" | tee -a $L
  timeout 60 $D/bin/11_matrix_units --kernels $D/var/$v --size $s --no-compare $(cfg $*) --record $OUT/$v-4.csv 2>&1 | grep -E "error|check|speed|fail" | tee -a $L; }
for s in 4096 8192; do
  one v5 $s 128 128 8 64 64 4
  one v4 $s 128 128 8 64 64 4
  one v4 $s 128 128 8 64 64 3
  one v4 $s 128 256 8 64 64 3
  one v4 $s 128 128 16 64 64 2
done
