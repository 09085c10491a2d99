#!/bin/bash
# Call 3 (kind nvidia-h200): CHAIN 4 (one FP32 add per 32 k; 87.5 TFLOP/s at 8192^3 with 192-row
# blocks in call 2) at every shape beside call 1's best blocks, and the last candidates for 1024^3.
# Run as call1.sh.
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
T64="w|-D BM=64 -D STAGES=3"; T128="w|-D BM=128"; T192="w|-D BM=192 -D SPREAD=2"
C4="-D CHAIN=4"; P="-D PAD=1"
echo "#### timings: fresh (pool) and warm, medians (t=${SECONDS}s)" | tee -a $L
export WG_CSV=$OUT/call3-wgs.csv
run() { timeout $1 /tmp/wgs "${@:2}" 2>&1 | grep -E "RESULT|^  |FAIL|rror|pool" | tee -a $L; }
run 150 run 1024 1024 1024 100 0 "w|-D BM=64 -D STAGES=4 $C4" "w|-D BM=64 -D STAGES=5 $C4" "w|-D BM=64 -D STAGES=4" "w|-D BM=64 -D BK=64 -D STAGES=3 $C4" "w|-D BM=64 -D STAGES=4 -D SPREAD=2 $C4" "$T64 $C4" "w|-D BM=64 -D STAGES=4 $C4" \
  -- run 2048 2048 2048 40 0 "$T128" "$T64" "$T64 $C4" "$T128 $C4" "$T192 $C4" "$T128" \
  -- run 2047 2047 2047 40 0 "$T128 $P" "$T64 $P" "$T64 $C4 $P" "$T128 $C4 $P" \
  -- run 4096 4096 4096 20 0 "$T128" "$T64" "$T64 $C4" "$T192 $C4" "w|-D BM=192 -D SPREAD=1 $C4" \
  -- run 4095 4095 4095 20 0 "$T64 $P" "$T128 $P" "$T64 $C4 $P" "$T192 $C4 $P"
run 250 run 12288 4096 3072 15 0 "$T128" "$T192" "$T192 $C4" "w|-D BM=192 -D SPREAD=1 $C4" "w|-D BM=192 -D STAGES=3 $C4" "$T64 $C4" \
  -- run 8192 8192 1024 15 0 "$T64" "$T192" "$T192 $C4" "$T64 $C4" "w|-D BM=192 -D SPREAD=1 $C4" \
  -- run 1024 8192 8192 15 0 "$T64" "$T64 $C4" "$T192 $C4" "$T128 $C4 -D SPLITK=2" "$T128 -D SPLITK=2" \
  -- run 8192 8192 8192 10 0 "$T192 $C4" "w|-D BM=192 -D SPREAD=1 $C4" "w|-D BM=192 -D STAGES=3 $C4" "$T192 $C4" \
  -- run 8191 8191 8191 10 0 "$T192 $C4 $P" "w|-D BM=192 -D SPREAD=1 $C4 $P" "$T192 $P"
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
