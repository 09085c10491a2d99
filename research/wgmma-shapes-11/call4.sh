#!/bin/bash
# Call 4 (kind nvidia-h200): SPREAD 2 with CHAIN 4 for the 64- and 128-row blocks (call 3 tried it
# only with 192 rows, and at 1024^3), to settle the rule for the small shapes; the 4-byte-copy
# path (no padding) with the final block at 4095^3. Run as call1.sh.
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
C="-D CHAIN=4 -D SPREAD=2"
S3="w|-D BM=64 -D STAGES=3 $C"; S4="w|-D BM=64 -D STAGES=4 $C"; B128="w|-D BM=128 $C"; B192="w|-D BM=192 $C"
echo "#### timings: fresh (pool) and warm, medians (t=${SECONDS}s)" | tee -a $L
export WG_CSV=$OUT/call4-wgs.csv
run() { timeout $1 /tmp/wgs "${@:2}" 2>&1 | grep -E "RESULT|^  |FAIL|rror|pool" | tee -a $L; }
run 200 run 1024 1024 1024 100 0 "$S4" "$S3" "w|-D BM=64 -D STAGES=5 $C" "w|-D BM=64 -D BK=64 -D STAGES=3 $C" "$B128" "$S4" \
  -- run 2048 2048 2048 40 0 "$S3" "$S4" "$B128" "w|-D BM=64 -D STAGES=3 -D CHAIN=4" "$B192" "$S3" \
  -- run 2047 2047 2047 40 0 "$S3 -D PAD=1" "w|-D BM=64 -D STAGES=3 -D CHAIN=4 -D PAD=1" "$S4 -D PAD=1" "$S3" \
  -- run 4096 4096 4096 20 0 "$B192" "$S3" "$B128" \
  -- run 4095 4095 4095 20 0 "$B192 -D PAD=1" "$B192" "$S3 -D PAD=1" \
  -- run 1024 8192 8192 15 0 "$B192" "$S3" "$B128"
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
