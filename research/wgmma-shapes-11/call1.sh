#!/bin/bash
# Call 1 (kind nvidia-h200): wgs.cl made right at any shape, and which block / padding / split of K
# is fastest at each of issue 32's ten shapes. Every element checked against float64 at small
# ragged shapes (K not a multiple of 32; every side odd), every variant; then fresh and warm
# timings of the candidates at the ten shapes. Run from the repository root as
# `bash device-bin/wgshapes/call1.sh` after the OpenCL ICD line, this folder's files in
# device-bin/wgshapes/.
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
T64="w|-D BM=64 -D STAGES=3"; T64w1="w|-D BM=64 -D WGS=1 -D STAGES=3"
T128="w|-D BM=128"; T192="w|-D BM=192 -D SPREAD=2"
echo "#### checks: every element against float64 (t=${SECONDS}s)" | tee -a $L
timeout 150 /tmp/wgs run 1000 776 520 2 1 sol "$T64" "$T64w1" "$T128" "$T192" "$T128 -D SPLITK=2" "$T64 -D SPLITK=3" "$T128 -D PAD=1" \
  -- run 255 387 101 2 1 sol "$T64" "$T128" "$T192" "$T128 -D PAD=1" "$T192 -D PAD=1" "$T64 -D SPLITK=2" "$T128 -D PAD=1 -D SPLITK=3" \
  -- run 512 640 1024 2 1 "$T64 -D SPLITK=2" "$T64 -D SPLITK=4" "$T128 -D SPLITK=2" "$T64w1 -D SPLITK=2" 2>&1 | tee -a $L | grep -E "RESULT|^  |FAIL|rror"
echo "#### timings: fresh (pool) and warm, medians (t=${SECONDS}s)" | tee -a $L
export WG_CSV=$OUT/call1-wgs.csv
run() { timeout $1 /tmp/wgs "${@:2}" 2>&1 | grep -E "RESULT|^  |FAIL|rror|pool" | tee -a $L; }
run 120 run 1024 1024 1024 50 0 "$T64" "$T64w1" "$T128" "$T64 -D SPLITK=2" "$T64 -D SPLITK=4" "$T64w1 -D SPLITK=2" "$T128 -D SPLITK=2" "$T128 -D SPLITK=4" \
  -- run 2048 2048 2048 30 0 "$T64" "$T128" "$T192" "$T128 -D SPLITK=2" "$T64 -D SPLITK=2" \
  -- run 2047 2047 2047 30 0 "$T64" "$T128" "$T64 -D PAD=1" "$T128 -D PAD=1" "$T128 -D PAD=1 -D SPLITK=2"
run 150 run 4096 4096 4096 20 0 "$T64" "$T128" "$T192" \
  -- run 4095 4095 4095 20 0 "$T128" "$T64 -D PAD=1" "$T128 -D PAD=1" "$T192 -D PAD=1" \
  -- run 12288 4096 3072 15 0 "$T64" "$T128" "$T192" \
  -- run 8192 8192 1024 15 0 "$T64" "$T128" "$T192" \
  -- run 1024 8192 8192 15 0 "$T64" "$T128" "$T192" "$T128 -D SPLITK=2"
run 200 run 8192 8192 8192 10 0 "$T64" "$T128" "$T192" \
  -- run 8191 8191 8191 10 0 "$T192" "$T128 -D PAD=1" "$T192 -D PAD=1"
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
