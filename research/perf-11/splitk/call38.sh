#!/bin/bash
# Call 38 (session 8, 2026-11-29, kind nvidia-h200): where the idle calls of call 37 lose their
# 0.013-0.026 ms. host.c with L11_IDLE_MODES=1 times every variant's idle calls four ways (plain,
# wake = an empty kernel first, fresh = A and B uploaded before the idle time, fresh+wake);
# cuBLAS's kernel time (CUPTI) back to back, idle on the same inputs, idle on fresh inputs
# (research/kernel-time/cublas_kernel.py, unchanged). The chosen variants at each shape of call
# 37 and 1024^3 again. Run as call37.sh is.
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA L11_MMA=$D/mma.cl L11_SOL=$D/11_matrix_units.cl L11_SPLIT=$D/splitk.cl L11_IDLE_MODES=1
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,memory.total --format=csv 2>&1 | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 1000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
sha1sum $D/11_matrix_units.cl $D/mma.cl $D/splitk.cl $D/host.c | tee -a $L
gcc -O2 -o /tmp/skhost $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
H=/tmp/skhost
B128="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"
B64="-D BM=64 -D BN=64 -D BK=16 -D WM=32 -D WN=32 -D STAGES=4"
B64x128="-D BM=64 -D BN=128 -D BK=8 -D WM=32 -D WN=64 -D STAGES=4"
B128x64="-D BM=128 -D BN=64 -D BK=8 -D WM=64 -D WN=32 -D STAGES=4"
r() { echo "== t=${SECONDS}s $*" | tee -a $L; timeout 120 $H "$@" 2>&1 | grep -v "^#" | tee -a $L; }
$H 64 64 64 "$B128" sol 1 0 2>&1 | grep "^#" | tee -a $L
echo "#### 50 back to back, then 4 x 20 idle calls (plain, wake, fresh, fresh+wake)" | tee -a $L
r 1024 1024 1024 "$B128" sol,2,3,4,5
r 1024 1024 1024 "$B64" sol,2
r 1024 1024 1024 "$B64x128" sol,2
r 1024 1024 1024 "$B128x64" sol,2,4
r 1536 1536 1536 "$B128" 3,4
r 1536 1536 1536 "$B64x128" sol,4
r 1536 1536 1536 "$B64" sol
r 2048 2048 2048 "$B128" sol
r 1024 1024 2048 "$B128" 4
r 1024 1024 4096 "$B128" 4
echo "#### cuBLAS kernel time, three ways (t=${SECONDS}s)" | tee -a $L
timeout 200 python3 $D/cublas_kernel.py 1024 1536 2048 1024x1024x2048 1024x1024x4096 2>&1 | tee $OUT/cublas.csv | tee -a $L
echo "#### 1024^3 once more (t=${SECONDS}s)" | tee -a $L
r 1024 1024 1024 "$B128" sol,4
r 1024 1024 1024 "$B64" sol
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
