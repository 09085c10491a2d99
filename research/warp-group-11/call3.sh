#!/bin/bash
# Errors on the same inputs for lesson 11's warp-group variant (call 2's lab-bench was built
# before the variant gave its C): lesson 11 and the variant by `lab-bench accuracy` (inputs of
# seed 7), cuBLAS FP32 by cublas_sgemm.py on the same matrices, every element against float64.
set -u
D=$PWD/device-bin/p32w
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl solutions/11_matrix_units.cl | tee -a $L
SHAPES="8192x8192x1024,1024x8192x8192,12288x4096x3072,2047x2047x2047,4095x4095x4095,8191x8191x8191"
mkdir -p /tmp/c
echo "== accuracy (t=${SECONDS}s)" | tee -a $L
timeout 200 $D/lab-bench accuracy --lessons 11 --sizes 1024,2048,4096,8192 --shapes $SHAPES --c-out /tmp/c 2>&1 | tee -a $L
echo "== cuBLAS on the same inputs (t=${SECONDS}s)" | tee -a $L
timeout 150 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 ${SHAPES//,/ } --lab-inputs 7 --lab-c /tmp/c \
  --accuracy-csv $OUT/accuracy.csv 2>&1 | tee -a $L
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
