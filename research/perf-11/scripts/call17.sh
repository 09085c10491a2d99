#!/bin/bash
# Session 3, call 17: v12 with TRUNC: 128×128 blocks (4 warps, two work-groups per SM) against
# 128×256 blocks (8 warps, one per SM), with and without GROUP, at 4096 and 8192.
D=$PWD/.dev/w23
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { s=$1; who=$2; c=$3; x=$4; echo "== $s $who | $c | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  timeout 90 $D/bin/11_matrix_units $K --size $s --no-compare $(cfg $c) $x --record $OUT/v12.csv 2>&1 | grep -E "error|check|speed|fail|wrong|ptxas" | tee -a $L; }
P="128 128 8 64 64 4"; W="128 256 8 64 64 3"
for s in 4096 8192; do
one $s v12 "$P" "-D TRUNC=1"
one $s v12 "$W" "-D TRUNC=1"
one $s v12 "$W" "-D TRUNC=1 -D GROUP=8"
one $s v12 "$W" "-D TRUNC=1 -D GROUP=4"
one $s v12 "$P" "-D TRUNC=1 -D GROUP=8"
one $s v12 "128 256 8 64 64 2" "-D TRUNC=1"
done
one 2048 v12 "$P" "-D TRUNC=1"
one 2048 v12 "$W" "-D TRUNC=1"
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -8 | tee -a $L
