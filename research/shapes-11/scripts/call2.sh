#!/bin/bash
# Call 2, the recorded run: lesson 11 with the host's block chosen by shape (by_shape in
# lessons/11_matrix_units.rs), cuBLAS FP32 (TF32 off, warm and fresh inputs) and lesson 10 at
# square, ragged, long and flat shapes (M N K); the previous choice (128×128 always) beside it
# where the two differ; a few other small-problem shapes at 1024 and 1536.
D=$PWD/device-bin/shapes11
export LAB_ROOT=$D/root LAB_DEVICE=H100 PYTHONUNBUFFERED=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
SHAPES="1024x1024x1024 1536x1536x1536 2048x2048x2048 4096x4096x4096 8192x8192x8192 4095x4095x4095 4094x4094x4094 8191x8191x8191 8192x1024x8192 1024x8192x1024 8192x8192x1024 1024x8192x8192 12288x4096x3072 2047x2047x2047"
echo "== cuBLAS" | tee -a $L
timeout 200 python3 $D/cublas_shapes.py $SHAPES 2>&1 | tee $OUT/cublas.csv | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { bin=$1; mnk=$2; shift 2; set -- $(echo $mnk | tr x ' ') "$@"; m=$1 n=$2 k=$3; shift 3
  echo "== $bin $mnk $*" | tee -a $L
  timeout 90 $D/$bin --solution -m $m -n $n -k $k --no-compare "$@" --record $OUT/$bin.csv 2>&1 | grep -E "rror|speed|fail|wrong|defines|-D " | tee -a $L; }
OLD="128 128 8 64 64 4"
for s in $SHAPES; do one 11_matrix_units $s; done
for s in 1024x1024x1024 1536x1536x1536 2047x2047x2047; do one 11_matrix_units $s $(cfg $OLD); done
one 11_matrix_units 1024x1024x1024
for c in "32 64 16 32 32 4" "64 32 16 32 32 4" "64 128 16 32 64 3" "64 64 16 32 32 2" "32 32 16 32 32 4"; do one 11_matrix_units 1024x1024x1024 $(cfg $c); done
for c in "64 128 8 32 64 4" "64 128 16 32 64 3"; do one 11_matrix_units 1536x1536x1536 $(cfg $c); done
for s in $SHAPES; do one 10_tuned $s; done
date -u | tee -a $L
