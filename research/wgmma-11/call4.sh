#!/bin/bash
# Call 4 (2026-11-30, kind nvidia-h200): the recorded run. wgemm2.cl's best loop (one temporary,
# two k-steps per temporary, copies after the first group of wgmma: SPREAD 1 and 2), its variant
# that gives the solution's C bit for bit (ABIG=1 CHAIN=1), smaller blocks for 1024^3 (128x64,
# 64x128), and wgemm3.cl (one producer warp, mbarriers) in separate processes after them; beside the
# unchanged solution and cuBLAS FP32. Checks against float64, every element, at 256x384x512 and
# 1000x776x512 (wgemm3.cl: 256x384x512 and 512x512x1024); timings at 1024^3 ... 8192^3.
# Run from the repository root as `bash DIR/call4.sh`, DIR holding this folder's files, after the
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
B="-D CHAIN=2 -D TEMPS=1"
T=(sol "w2|$B -D SPREAD=1" "w2|$B -D SPREAD=2" "w2|-D CHAIN=1 -D TEMPS=1 -D SPREAD=1 -D ABIG=1"
   "w2|-D CHAIN=1 -D TEMPS=1 -D SPREAD=2 -D ABIG=1" "w2|$B -D SPREAD=1 -D WGS=1 -D STAGES=3"
   "w2|$B -D SPREAD=1 -D BM=64 -D STAGES=3" "w2|$B -D SPREAD=2 -D BM=192" sol)
echo "#### checks: every element against float64 (t=${SECONDS}s)" | tee -a $L
WG_PTX=/tmp/ptx timeout 120 /tmp/wg gemm 256 384 512 3 0 1 "${T[@]:0:8}" 2>&1 | tee -a $L
timeout 120 /tmp/wg gemm 1000 776 512 3 0 1 "${T[@]:0:8}" 2>&1 | grep -E "RESULT|^  " | tee -a $L
echo "#### timings: reps back to back, then 10 after 15 ms idle (t=${SECONDS}s)" | tee -a $L
timeout 100 /tmp/wg gemm 1024 1024 1024 50 10 0 "${T[@]}" 2>&1 | grep -E "RESULT|FAIL" | tee -a $L
for s in 2048 4096 8192; do
  timeout 150 /tmp/wg gemm $s $s $s 30 10 0 "${T[@]}" 2>&1 | grep -E "RESULT|FAIL" | tee -a $L
done
echo "#### wgemm3.cl: one producer warp (t=${SECONDS}s)" | tee -a $L
W=("w3" "w3|-D CHAIN=1" "w3|-D PFP=1" "w3|-D STAGES=3" "w3|-D WGS=1 -D STAGES=3")
mkdir -p /tmp/ptx3
WG_PTX=/tmp/ptx3 timeout 60 /tmp/wg gemm 256 384 512 3 0 1 sol "${W[@]}" 2>&1 | tee $OUT/w3check.txt | tee -a $L
timeout 60 /tmp/wg gemm 512 512 1024 3 0 1 sol "${W[@]}" 2>&1 | grep -E "RESULT|^  " | tee -a $OUT/w3check.txt | tee -a $L
if grep -qE "^RESULT .*\| w3.*\| ok$" $OUT/w3check.txt; then
  timeout 60 /tmp/wg gemm 1024 1024 1024 50 10 0 sol "${W[@]}" "w2|$B -D SPREAD=1" 2>&1 | grep -E "RESULT|FAIL" | tee -a $L
  for s in 2048 4096 8192; do
    timeout 90 /tmp/wg gemm $s $s $s 30 10 0 sol "${W[@]:0:4}" "w2|$B -D SPREAD=1" 2>&1 | grep -E "RESULT|FAIL" | tee -a $L
  done
else
  echo "wgemm3.cl: no variant passed the check; not timed" | tee -a $L
fi
echo "#### ptxas -v (13.x) and main-loop SASS of each program's PTX (t=${SECONDS}s)" | tee -a $L
for f in /tmp/ptx/*.ptx /tmp/ptx3/*w3*.ptx; do
  echo "== $(basename $f)" | tee -a $L
  sed -E 's/%envreg[0-9]+/0/g' $f > /tmp/x.ptx
  timeout 60 ptxas -v -arch=sm_90a -o /tmp/x.cubin /tmp/x.ptx 2>&1 | grep -E "Used|spill|C75|rror" | sed 's/ in the function.*//' | sort | uniq -c | tee -a $L
  cuobjdump -sass /tmp/x.cubin > /tmp/x.sass 2>&1 && python3 $D/loop.py /tmp/x.sass 2>&1 | tail -3 | tee -a $L
done
tar czf $OUT/ptx.tgz -C /tmp ptx ptx3 2>/dev/null
echo "#### cuBLAS FP32, TF32 off (t=${SECONDS}s)" | tee -a $L
timeout 150 python3 research/perf-11/splitk/cublas_splitk.py 1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 2>&1 | tee $OUT/cublas.csv | tee -a $L
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
