#!/bin/bash
# Call 1 (2026-11-30, kind nvidia-h200): does NVIDIA's OpenCL take wgmma in inline PTX (test.cl,
# every build mode host.c knows), the unit's wgmma TF32 rate against mma.sync m16n8k8 (bench.cl),
# and a first 3xTF32 GEMM with wgmma (wgemm.cl) beside the unchanged solution and cuBLAS FP32.
# Run from the repository root as `bash DIR/call1.sh`, DIR holding this folder's files, after the
# OpenCL ICD line.
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA WG_DIR=$D
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,memory.total --format=csv 2>&1 | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 2000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
sha1sum $D/*.cl $D/host.c solutions/11_matrix_units.cl lessons/11_matrix_units/mma.cl | tee -a $L
gcc -O2 -o /tmp/wg $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
mkdir -p $OUT/ptx
export WG_PTX=$OUT/ptx
echo "#### 1. wgmma accepted? (t=${SECONDS}s)" | tee -a $L
timeout 120 /tmp/wg test 2>&1 | tee -a $L
TRC=${PIPESTATUS[0]}
echo "test rc=$TRC" | tee -a $L
MODE=$(grep -o "build mode [0-9] works" $L | head -1 | grep -o "[0-9]")
echo "build mode: ${MODE:-none}" | tee -a $L
if [ -n "$MODE" ]; then
  export WG_MODE=$MODE
  echo "#### 2. rate (t=${SECONDS}s)" | tee -a $L
  for a in "64 4 1 0 1 20000" "128 4 1 0 1 20000" "256 4 1 0 1 10000" "256 4 2 0 1 5000" "128 4 2 0 1 10000" \
           "256 4 1 1 1 10000" "128 4 1 1 1 20000" "128 4 2 1 1 10000" "256 2 1 0 1 10000" "256 8 1 0 1 5000" "256 4 1 0 2 5000"; do
    timeout 60 /tmp/wg bench $a 2>&1 | grep -v "^#   \[" | tee -a $L
  done
  grep "ptxas" $L > /dev/null
  for a in "8 4 2 50000" "8 4 4 25000" "4 4 4 50000" "16 4 2 25000"; do
    timeout 60 /tmp/wg mma $a 2>&1 | grep -v "^#   \[" | tee -a $L
  done
  echo "#### 3. GEMM checks: every element against float64 (t=${SECONDS}s)" | tee -a $L
  timeout 120 /tmp/wg gemm 256 384 512 3 0 1 sol wg "wg|-D ABIG=1" "wg|-D BK=32" 2>&1 | tee -a $L
  timeout 120 /tmp/wg gemm 1024 1024 1024 20 5 0 sol wg "wg|-D ABIG=1" "wg|-D BK=32" "wg|-D STAGES=5" 2>&1 | tee -a $L
  echo "#### 4. GEMM timings (t=${SECONDS}s)" | tee -a $L
  for s in 2048 4096 8192; do
    timeout 200 /tmp/wg gemm $s $s $s 30 10 0 sol wg "wg|-D ABIG=1" "wg|-D BK=32" "wg|-D STAGES=5" sol 2>&1 | grep -v "^#   \[" | tee -a $L
  done
  echo "#### 5. ptxas -v (13.x) and SASS counts of the GEMM's PTX (t=${SECONDS}s)" | tee -a $L
  for f in $OUT/ptx/*wg*.ptx; do
    echo "== $(basename $f)" | tee -a $L
    sed -E 's/%envreg[0-9]+/0/g; s/^\.target sm_90$/.target sm_90a/' $f > /tmp/x.ptx
    timeout 60 ptxas -v -arch=sm_90a -o /tmp/x.cubin /tmp/x.ptx 2>&1 | grep -E "Used|spill|arning|rror" | head -8 | tee -a $L
    cuobjdump -sass /tmp/x.cubin > /tmp/x.sass 2>&1; python3 $D/loop.py /tmp/x.sass 2>&1 | tail -3 | tee -a $L
    cat /tmp/x.sass | grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+" | awk '{print $2}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -14 | tr '\n' ' ' | tee -a $L
    echo | tee -a $L
  done
fi
echo "#### 6. cuBLAS FP32, TF32 off (t=${SECONDS}s)" | tee -a $L
timeout 200 python3 research/perf-11/splitk/cublas_splitk.py 1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 2>&1 | tee $OUT/cublas.csv | tee -a $L
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
