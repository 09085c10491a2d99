#!/bin/bash
# Call 1: lesson 11's reference in other block shapes at small sizes (1024, 1536, 2048), and
# what a side not a multiple of 4 costs, side by side (K only, N only, M only, all).
D=$PWD/device-bin
export LAB_ROOT=$D/root LAB_DEVICE=H100 PYTHONUNBUFFERED=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { echo "== $1 $2 | $3" | tee -a $L
  timeout 60 $D/11_matrix_units --solution -m $1 -n $2 -k $2 --no-compare $(cfg $3) --record $OUT/l11.csv 2>&1 | grep -E "rror|speed|fail|wrong|WRONG" | tee -a $L; }
sq() { echo "== $1 | $2" | tee -a $L
  timeout 60 $D/11_matrix_units --solution --size $1 --no-compare $(cfg $2) --record $OUT/l11.csv 2>&1 | grep -E "rror|speed|fail|wrong|WRONG" | tee -a $L; }
P="128 128 8 64 64 4"
for c in "$P" "128 64 8 64 32 4" "64 128 8 32 64 4" "64 64 8 32 32 4" "64 64 16 32 32 3" "64 64 16 32 32 4" \
         "128 64 8 64 64 4" "64 128 8 64 64 4" "64 64 8 64 64 4" "64 64 8 32 64 4" "32 64 8 32 32 4" "128 64 16 64 32 3" "$P"; do
  sq 1024 "$c"; done
for s in 1536 2048; do for c in "$P" "128 64 8 64 32 4" "64 128 8 32 64 4" "64 64 8 32 32 4" "128 64 8 64 64 4"; do sq $s "$c"; done; done
for mnk in "4096 4096 4096" "4096 4096 4095" "4096 4095 4096" "4095 4096 4096" "4095 4095 4095" "4094 4094 4094"; do
  set -- $mnk; echo "== ragged m=$1 n=$2 k=$3" | tee -a $L
  timeout 90 $D/11_matrix_units --solution -m $1 -n $2 -k $3 --no-compare $(cfg $P) --record $OUT/l11.csv 2>&1 | grep -E "rror|speed|fail|wrong" | tee -a $L
done
echo "== cuBLAS" | tee -a $L
timeout 120 python3 $D/cublas_shapes.py 1024x1024x1024 1536x1536x1536 2048x2048x2048 4096x4096x4096 4095x4095x4095 2>&1 | tee $OUT/cublas.csv | tee -a $L
date -u | tee -a $L
