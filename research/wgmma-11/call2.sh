#!/bin/bash
# Call 2 (2026-11-30, kind nvidia-h200): the rebuilt wgmma GEMM (wgemm2.cl) and its options beside
# call 1's (wgemm.cl, BK=32) and the unchanged solution: checks against float64 (every element at
# 256x384x512), timings at 1024^3 ... 8192^3, ptxas (13.x) and SASS of the programs' PTX.
# Run from the repository root as `bash DIR/call2.sh`, DIR holding this folder's files, after the
# OpenCL ICD line. Build mode 2 (call 1: the only one NVIDIA's OpenCL takes wgmma through).
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA WG_DIR=$D WG_MODE=2
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,memory.total --format=csv 2>&1 | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 2000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
sha1sum $D/*.cl $D/host.c solutions/11_matrix_units.cl lessons/11_matrix_units/mma.cl | tee -a $L
gcc -O2 -o /tmp/wg $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
mkdir -p /tmp/ptx
T=(sol "wg|-D BK=32" w2 "w2|-D CHAIN=2" "w2|-D CHAIN=4" "w2|-D SA=0" "w2|-D WAIT0=1" "w2|-D CHAIN=2 -D WAIT0=1"
   "w2|-D ABIG=1" "w2|-D STAGES=3" "w2|-D BK=16" "w2|-D FAKE=1" sol)
echo "#### checks: every element against float64 (t=${SECONDS}s)" | tee -a $L
WG_PTX=/tmp/ptx timeout 150 /tmp/wg gemm 256 384 512 3 0 1 "${T[@]:0:11}" 2>&1 | tee -a $L
echo "#### timings: reps back to back, then 10 after 15 ms idle (t=${SECONDS}s)" | tee -a $L
timeout 100 /tmp/wg gemm 1024 1024 1024 50 10 0 "${T[@]}" 2>&1 | grep -E "RESULT|FAIL" | tee -a $L
for s in 2048 4096 8192; do
  timeout 150 /tmp/wg gemm $s $s $s 30 10 0 "${T[@]}" 2>&1 | grep -E "RESULT|FAIL" | tee -a $L
done
echo "#### ptxas -v (13.x) and main-loop SASS of each program's PTX (t=${SECONDS}s)" | tee -a $L
for f in /tmp/ptx/*.ptx; do
  echo "== $(basename $f)" | tee -a $L
  sed -E 's/%envreg[0-9]+/0/g' $f > /tmp/x.ptx
  timeout 60 ptxas -v -arch=sm_90a -o /tmp/x.cubin /tmp/x.ptx 2>&1 | grep -E "Used|spill|C75|rror" | sed 's/ in the function.*//' | sort | uniq -c | tee -a $L
  cuobjdump -sass /tmp/x.cubin > /tmp/x.sass 2>&1 && python3 $D/loop.py /tmp/x.sass 2>&1 | tail -3 | tee -a $L
done
tar czf $OUT/ptx.tgz -C /tmp ptx 2>/dev/null
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
