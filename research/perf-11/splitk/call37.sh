#!/bin/bash
# Call 37 (session 8, 2026-11-29, kind nvidia-h200): lesson 11 with K split over the grid's third
# dimension (splitk.cl + host.c, this folder) beside the unchanged solution and cuBLAS FP32 (TF32
# off), at 1024^3, 1536^3, 2048^3, 1024x1024x4096 and 1024x1024x2048. Run from the repository root
# as `bash DIR/call37.sh` with DIR holding this folder's files plus copies of
# solutions/11_matrix_units.cl, lessons/11_matrix_units/mma.cl and
# research/kernel-time/cublas_kernel.py; after the OpenCL ICD line.
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA L11_MMA=$D/mma.cl L11_SOL=$D/11_matrix_units.cl L11_SPLIT=$D/splitk.cl
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,memory.total --format=csv 2>&1 | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 2000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
sha1sum $D/11_matrix_units.cl $D/mma.cl $D/splitk.cl $D/host.c | tee -a $L
gcc -O2 -o /tmp/skhost $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
H=/tmp/skhost
B128="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"   # GPU_DEFINES
B64="-D BM=64 -D BN=64 -D BK=16 -D WM=32 -D WN=32 -D STAGES=4"     # GPU_SMALL_DEFINES
B64x128="-D BM=64 -D BN=128 -D BK=8 -D WM=32 -D WN=64 -D STAGES=4" # research/shapes-11 at 1536
r() { echo "== t=${SECONDS}s $*" | tee -a $L; timeout 120 $H "$@" 2>&1 | grep -v "^#" | tee -a $L; }
$H 64 64 64 "$B128" sol 1 0 2>&1 | grep "^#" | tee -a $L
echo "#### checks: ragged and uneven slices, every element against float64" | tee -a $L
r 259 133 301 "$B128" sol,1,2,3,4,6,8 3 0 1
r 259 133 301 "$B64" sol,2,3,4 3 0 1
r 260 132 1000 "$B64x128" sol,2,3 3 0 1
r 1024 1024 1000 "$B128" 3,6 3 0
echo "#### timings: 50 calls back to back + 20 after 15 ms idle, each token" | tee -a $L
for s in "1024 1024 1024" "1536 1536 1536" "2048 2048 2048" "1024 1024 4096" "1024 1024 2048"; do
  r $s "$B128" sol,1,2,3,4,6,8
  r $s "$B64" sol,2,3,4
  r $s "$B64x128" sol,2,4
done
echo "#### cuBLAS FP32, TF32 off (t=${SECONDS}s)" | tee -a $L
timeout 150 python3 $D/cublas_splitk.py 1024x1024x1024 1536x1536x1536 2048x2048x2048 1024x1024x4096 1024x1024x2048 2>&1 | tee $OUT/cublas.csv | tee -a $L
echo "#### 1024^3 again (t=${SECONDS}s)" | tee -a $L
r 1024 1024 1024 "$B128" sol,2,3,4
r 1024 1024 1024 "$B64" sol,2
timeout 60 python3 $D/cublas_splitk.py 1024x1024x1024 2>&1 | tail -1 | tee -a $OUT/cublas.csv | tee -a $L
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
