#!/bin/bash
# Session 4, call 27: v17 = the solution with its main loop unrolled by UNROLL (2 or 4): buffer offsets constant in each copy of the body
D=$PWD/.dev/w24
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { s=$1; who=$2; c=$3; x=$4; echo "== $s $who | $c | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  timeout 90 $D/bin/11_matrix_units $K --size $s --no-compare $(cfg $c) $x --record $OUT/v17.csv 2>&1 | grep -E "error|check|speed|fail|wrong|ptxas" | tee -a $L; }
P="128 128 8 64 64 4"
for r in 1 2; do one 4096 base "$P" ""; one 4096 v17 "$P" "-D UNROLL=2"; one 4096 v17 "$P" "-D UNROLL=4"; done
one 8192 base "$P" ""; one 8192 v17 "$P" "-D UNROLL=2"; one 8192 v17 "$P" "-D UNROLL=4"
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -4 | tee -a $L
