#!/bin/bash
# Call 39 (session 9, 2026-11-30, kind nvidia-h200): lesson 11 on A and B split once, before the
# product (split.cl + presplit.cl + host.c, this folder), beside the unchanged solution and cuBLAS
# FP32 (TF32 off), at 2048^3, 4096^3 and 8192^3. Run from the repository root as
# `bash DIR/call39.sh` with DIR holding this folder's files plus copies of
# solutions/11_matrix_units.cl and lessons/11_matrix_units/mma.cl; after the OpenCL ICD line.
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin
export PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA L11_MMA=$D/mma.cl L11_SOL=$D/11_matrix_units.cl L11_PS_DIR=$D
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,memory.total --format=csv 2>&1 | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 2000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
sha1sum $D/11_matrix_units.cl $D/mma.cl $D/split.cl $D/presplit.cl $D/host.c | tee -a $L
gcc -O2 -o /tmp/pshost $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
H=/tmp/pshost
B128="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"   # the solution's defaults
r() { echo "== t=${SECONDS}s $1 $2 $3 | $5 $6 $7 | ${*:8}" | tee -a $L; timeout ${TO:-150} $H "$@" 2>&1 | tee -a $L; }
V=("sol" "ps" "ps|-D LAYOUT=1" "ps|-D STAGES=3" "ps|-D STAGES=2" "ps|-D STAGES=6"
   "ps|-D LAYOUT=1 -D STAGES=3" "ps|-D BK=16 -D STAGES=3 -D KK1=1" "ps|-D BK=16 -D STAGES=3"
   "ps|-D BK=16 -D STAGES=3 -D CHAIN=1" "ps|-D BN=256" "sol")
echo "#### checks: ragged (every element) and odd shapes, against float64 and bit for bit against the solution" | tee -a $L
r 259 133 301 "$B128" 3 0 1 "${V[@]}"
r 1000 777 513 "$B128" 3 0 0 sol ps "ps|-D LAYOUT=1" "ps|-D BK=16 -D STAGES=3 -D CHAIN=1"
echo "#### PTX of each program, then ptxas -v (sm_90a) and the main loop's SASS counts" | tee -a $L
mkdir -p /tmp/ptx
L11_PTX=/tmp/ptx r 256 256 256 "$B128" 1 0 0 "${V[@]:0:11}" > /dev/null
for f in /tmp/ptx/*.ptx; do
  n=$(basename $f .ptx)
  { echo "== $n"; timeout 60 ptxas -v -arch=sm_90a -o /tmp/ptx/$n.cubin $f 2>&1 | grep -E "Used|spill|rror";
    cuobjdump -sass /tmp/ptx/$n.cubin > /tmp/ptx/$n.sass 2>&1 && python3 research/perf-11/scripts/loop.py /tmp/ptx/$n.sass; } >> $OUT/evidence.txt 2>&1
done
cat $OUT/evidence.txt | tee -a $L
echo "#### timings: 50 calls back to back + 10 after 15 ms idle, each token" | tee -a $L
TO=240 r 2048 2048 2048 "$B128" 50 10 0 "${V[@]}"
TO=240 r 4096 4096 4096 "$B128" 50 10 0 "${V[@]}"
TO=300 r 8192 8192 8192 "$B128" 50 10 0 "${V[@]}"
echo "#### cuBLAS FP32, TF32 off (t=${SECONDS}s)" | tee -a $L
timeout 200 python3 research/perf-11/splitk/cublas_splitk.py 2048x2048x2048 4096x4096x4096 8192x8192x8192 2>&1 | tee $OUT/cublas.csv | tee -a $L
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
