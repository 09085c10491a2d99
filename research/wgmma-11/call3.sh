#!/bin/bash
# Call 3 (2026-11-30, kind nvidia-h200): wgemm2.cl after call 2 — one temporary (TEMPS=1), copies
# spread over the step (SPREAD=1), five stages, 192-row blocks (BM=192, ragged M), and two floors:
# the loop without copies (FAKE=1), without wgmma (NOMMA=1), and with every work-group copying
# the same blocks (SAMEBLK=1); beside the unchanged solution and
# cuBLAS FP32. Checks against float64 (every element) at 256x384x512 and at a ragged 1000x776x512.
# Run from the repository root as `bash DIR/call3.sh`, DIR holding this folder's files, after the
# OpenCL ICD line. Build mode 2 (the only one NVIDIA's OpenCL takes wgmma through, call 1).
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
C2="-D CHAIN=2"
T=(sol "w2|$C2 -D WAIT0=1" "w2|$C2 -D TEMPS=1" "w2|$C2 -D TEMPS=1 -D SPREAD=1" "w2|$C2 -D TEMPS=1 -D STAGES=5"
   "w2|-D CHAIN=4 -D TEMPS=1" "w2|-D BM=192 $C2 -D TEMPS=1" "w2|-D BM=192 $C2 -D TEMPS=1 -D STAGES=3"
   "w2|$C2 -D TEMPS=1 -D NOMMA=1" "w2|$C2 -D TEMPS=1 -D FAKE=1" "w2|$C2 -D TEMPS=1 -D SAMEBLK=1" "w2|-D BM=192 $C2 -D TEMPS=1 -D FAKE=1" sol)
echo "#### checks: every element against float64 (t=${SECONDS}s)" | tee -a $L
WG_PTX=/tmp/ptx timeout 120 /tmp/wg gemm 256 384 512 3 0 1 "${T[@]:0:8}" 2>&1 | tee -a $L
timeout 120 /tmp/wg gemm 1000 776 512 3 0 1 "${T[@]:0:8}" 2>&1 | grep -E "RESULT|^  " | tee -a $L
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
echo "#### cuBLAS FP32, TF32 off (t=${SECONDS}s)" | tee -a $L
timeout 150 python3 research/perf-11/splitk/cublas_splitk.py 1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 2>&1 | tee $OUT/cublas.csv | tee -a $L
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
