#!/bin/bash
# Call 2 (kind nvidia-h200): 1024^3 (call 1: 43.9 TFLOP/s fresh, under CUTLASS's 45.4) and 8192^3
# tuned: more stages, CHAIN 4, BK 16 / 64, SPREAD, split K; each new option checked at every element
# of two small ragged shapes first. Run as call1.sh.
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA WG_DIR=$D WG_MODE=2
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,memory.total --format=csv 2>&1 | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 1000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
sha1sum $D/wgs.cl $D/wgs.c $D/wgmma.cl solutions/11_matrix_units.cl lessons/11_matrix_units/mma.cl | tee -a $L
gcc -O2 -o /tmp/wgs $D/wgs.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
T64="w|-D BM=64 -D STAGES=3"; T64s4="w|-D BM=64 -D STAGES=4"; T128="w|-D BM=128"; T192="w|-D BM=192 -D SPREAD=2"
N1=("$T64s4 -D CHAIN=4" "w|-D BM=64 -D BK=64 -D STAGES=3" "w|-D BM=64 -D BK=16 -D STAGES=5" "w|-D BM=64 -D BK=64 -D CHAIN=4 -D STAGES=3" "$T128 -D CHAIN=4" "$T192 -D CHAIN=4")
echo "#### checks: every element against float64 (t=${SECONDS}s)" | tee -a $L
timeout 100 /tmp/wgs run 1000 776 520 2 1 "${N1[@]}" "w|-D BM=64 -D BK=16 -D STAGES=5 -D SPLITK=2" \
  -- run 255 387 101 2 1 "${N1[@]}" "w|-D BM=64 -D BK=64 -D STAGES=3 -D PAD=1" 2>&1 | tee -a $L | grep -E "RESULT|^  |FAIL|rror"
echo "#### timings: fresh (pool) and warm, medians (t=${SECONDS}s)" | tee -a $L
export WG_CSV=$OUT/call2-wgs.csv
run() { timeout $1 /tmp/wgs "${@:2}" 2>&1 | grep -E "RESULT|^  |FAIL|rror|pool" | tee -a $L; }
run 150 run 1024 1024 1024 100 0 "$T64" "$T64s4" "w|-D BM=64 -D STAGES=5" "w|-D BM=64 -D STAGES=3 -D CHAIN=4" "$T64s4 -D CHAIN=4" \
     "w|-D BM=64 -D BK=64 -D STAGES=3" "w|-D BM=64 -D BK=64 -D CHAIN=4 -D STAGES=3" "w|-D BM=64 -D BK=16 -D STAGES=5" "w|-D BM=64 -D BK=16 -D STAGES=6" \
     "w|-D BM=64 -D STAGES=3 -D SPREAD=2" "$T64s4 -D SPLITK=2" "w|-D BM=64 -D BK=16 -D STAGES=5 -D SPLITK=2" "$T64" \
  -- run 2048 2048 2048 40 0 "$T64" "$T64s4" "$T128" "$T64s4 -D CHAIN=4" "w|-D BM=64 -D BK=64 -D STAGES=3" "$T128 -D CHAIN=4" "$T128 -D STAGES=3" \
  -- run 1024 8192 8192 20 0 "$T64" "$T64s4" "w|-D BM=64 -D BK=64 -D STAGES=3" "$T64s4 -D CHAIN=4"
run 200 run 8192 8192 8192 12 0 "$T192" "w|-D BM=192 -D SPREAD=2 -D STAGES=3" "w|-D BM=192 -D SPREAD=1" "$T192 -D CHAIN=4" "$T128 -D CHAIN=4" "$T128" "$T192"
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
