#!/bin/bash
# Call 1: where does the course's protocol lose time at 1024³ and 2048³? The wgmma kernel and
# lesson 11's solution kernel by wgs.c (this folder's copy, with WG_GAP_US, WG_NEWBUF, WG_PREV),
# each way; the course's own figures by lab-bench ladder; cuBLAS FP32 and CUTLASS 3xTF32 each
# way by protocol_peers.py. Run from the repository root after the OpenCL ICD line, with this
# folder's files, lab-bench, lib/ and cutlass-include.tar.gz in device-bin/proto/.
set -u
D=$PWD/device-bin/proto
S=$PWD/research/peers-11/scripts
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA WG_DIR=$D WG_MODE=2
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA CLBLAST_LIBRARY=$D/lib/libclblast.so.1 LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv 2>&1 | tee -a $L
sha1sum $D/* solutions/11_matrix_units.cl lessons/11_matrix_units/*.cl 2>/dev/null | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv -lms 200 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
gcc -O2 -o /tmp/wgs $D/wgs.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | grep -v ev_ms | tee -a $L
mkdir -p /tmp/cutlass && tar xzf $D/cutlass-include.tar.gz -C /tmp/cutlass
( nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I/tmp/cutlass/include -DTB_M=128 -DTB_N=64 \
    -DTB_K=16 -DW_M=64 -DW_N=32 -DSTAGES=3 -DALIGN=4 $S/cutlass_3xtf32.cu -o /tmp/c128x64s3.so > /tmp/cutlass.log 2>&1 \
    && echo built || tail -5 /tmp/cutlass.log ) > $OUT/cutlass-build.txt 2>&1 &
BUILD=$!
C="-D CHAIN=4 -D SPREAD=2"
run() { # label, env..., then wgs args
  local label=$1; shift
  echo "## $label" | tee -a $L
  env "$@" 2>&1 | grep -E "RESULT|FAIL|rror" | tee -a $L
}
for way in "base" "WG_GAP_US=300" "WG_GAP_US=2000" "WG_GAP_US=20000" "WG_NEWBUF=1" \
           "WG_NEWBUF=1 WG_GAP_US=20000" "WG_NEWBUF=1 WG_PREV=1" "WG_GAP_US=20000 WG_PREV=1"; do
  E=""; [ "$way" != base ] && E="$way"
  run "$way" $E timeout 60 /tmp/wgs run 1024 1024 1024 50 0 "w|-D BM=64 -D STAGES=4 $C" sol \
    -- run 2048 2048 2048 30 0 "w|-D BM=128 $C" sol
done
echo "== ladder (t=${SECONDS}s)" | tee -a $L
timeout 120 $D/lab-bench ladder --lessons 11 --sizes 1024,2048 --cpu-max 64 --out $OUT/ladder.csv 2>&1 | tee -a $L
wait $BUILD; cat $OUT/cutlass-build.txt | tee -a $L
echo "== peers (t=${SECONDS}s)" | tee -a $L
timeout 150 python3 $D/protocol_peers.py --cutlass cutlass-3xtf32-c128x64s3=/tmp/c128x64s3.so \
  1024x1024x1024 2048x2048x2048 2>&1 | tee $OUT/peers.csv | tee -a $L
kill $SMI
date -u +%FT%TZ | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
