#!/bin/bash
# Call 6 (kind nvidia-h200), the recorded command: issue 32's ten shapes, side by side in one
# command:
#   - wgs.cl (the wgmma 3xTF32 GEMM), CHAIN 4, SPREAD 2, the block chosen by the rule below, padded
#     on every call where K or N is not a multiple of 4 (the copy counted in its time); checked at
#     every element at two small ragged shapes first; beside it, at the ragged shapes, the same
#     kernel without padding (4-byte copies), and lesson 11's solution kernel
#     (solutions/11_matrix_units.cl, 128x128 blocks) on the same inputs and pools, by wgs.c;
#   - lesson 11 itself (the course's release binary: its own padding, split of K and block rule,
#     every call on fresh inputs from the host, checked);
#   - cuBLAS FP32 (TF32 off), cuBLAS TF32, CUTLASS 3xTF32 (the published 128x64 block where sides
#     are multiples of 4, else the any-alignment build), warm and fresh (research/peers-11's
#     peers_shapes.py); cuBLAS FP32's kernel time by CUPTI at 1024^3 and 2048^3.
# Run from the repository root as `bash device-bin/wgshapes/call6.sh` after the OpenCL ICD line,
# this folder's files, 11_matrix_units and cutlass-include.tar.gz in device-bin/wgshapes/.
set -u
D=$(cd "$(dirname "$0")" && pwd)
S=$PWD/research/peers-11/scripts
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA WG_DIR=$D WG_MODE=2
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,memory.total --format=csv 2>&1 | tee -a $L
nvcc --version | tail -2 | tee -a $L
python3 -c "import torch; print('torch', torch.__version__)" | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 500 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
sha1sum $D/wgs.cl $D/wgs.c $D/wgmma.cl $D/11_matrix_units solutions/11_matrix_units.cl lessons/11_matrix_units/mma.cl $S/peers_shapes.py $S/cutlass_3xtf32.cu | tee -a $L
gcc -O2 -o /tmp/wgs $D/wgs.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
mkdir -p /tmp/cutlass && tar xzf $D/cutlass-include.tar.gz -C /tmp/cutlass
build() { name=$1; shift
  nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I/tmp/cutlass/include "$@" \
    $S/cutlass_3xtf32.cu -o /tmp/$name.so > /tmp/$name.log 2>&1 \
    && echo "built $name $*" || { echo "FAILED $name $*"; tail -5 /tmp/$name.log; }; }
( build c128x64s3 -DTB_M=128 -DTB_N=64 -DTB_K=16 -DW_M=64 -DW_N=32 -DSTAGES=3 -DALIGN=4 &
  build c128x128s3a1 -DTB_M=128 -DTB_N=128 -DTB_K=16 -DW_M=64 -DW_N=64 -DSTAGES=3 -DALIGN=1 &
  wait ) 2>&1 | tee -a $L
SHAPES="1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 2047x2047x2047 4095x4095x4095 8191x8191x8191 8192x8192x1024 1024x8192x8192 12288x4096x3072"

# The block by shape, as a host would choose it (calls 1-5): 64-row blocks with 4 stages where the
# 128x128 blocks would not fill the 132 compute units once; 192-row blocks where the 192x128 blocks
# are at least 2048 (about 15 waves); 128-row blocks otherwise. Always CHAIN 4, SPREAD 2, no split
# of K (never faster in calls 1-3). Padded where K or N is not a multiple of 4.
C="-D CHAIN=4 -D SPREAD=2"
rule() { local m=$1 n=$2 k=$3 t
  local b128=$(( ((m + 127) / 128) * ((n + 127) / 128) )) b192=$(( ((m + 191) / 192) * ((n + 127) / 128) ))
  if [ $b128 -lt 132 ]; then t="w|-D BM=64 -D STAGES=4 $C"
  elif [ $b192 -ge 2048 ]; then t="w|-D BM=192 $C"
  else t="w|-D BM=128 $C"; fi
  if [ $((k % 4)) -ne 0 ] || [ $((n % 4)) -ne 0 ]; then t="$t -D PAD=1"; fi
  echo "$t"; }
reps() { local f=$(( ($1 / 1000) * ($2 / 1000) * ($3 / 1000) )); if [ $f -le 1 ]; then echo 100; elif [ $f -le 8 ]; then echo 50; elif [ $f -le 64 ]; then echo 20; else echo 12; fi; }

echo "#### checks: every element against float64 (t=${SECONDS}s)" | tee -a $L
R64="w|-D BM=64 -D STAGES=4 $C"; R128="w|-D BM=128 $C"; R192="w|-D BM=192 $C"
timeout 100 /tmp/wgs run 1000 776 520 2 1 sol "$R64" "$R128" "$R192" "$R128 -D PAD=1" \
  -- run 255 387 101 2 1 sol "$R64" "$R128" "$R192" "$R64 -D PAD=1" "$R128 -D PAD=1" "$R192 -D PAD=1" 2>&1 | tee -a $L | grep -E "RESULT|^  |FAIL|rror"

echo "#### peers: cuBLAS FP32, cuBLAS TF32, CUTLASS 3xTF32 (t=${SECONDS}s)" | tee -a $L
LIBS=""
for so in /tmp/c*.so; do n=$(basename $so .so); LIBS="$LIBS --cutlass cutlass-3xtf32-$n=$so"; done
timeout 200 python3 $S/peers_shapes.py $LIBS $SHAPES 2>&1 | tee $OUT/peers.csv | tee -a $L

echo "#### wgmma kernel by the rule, and the solution kernel, same inputs (t=${SECONDS}s)" | tee -a $L
ARGS=()
for s in $SHAPES; do set -- $(echo $s | tr x ' ')
  [ ${#ARGS[@]} -gt 0 ] && ARGS+=(--)
  ARGS+=(run $1 $2 $3 $(reps $1 $2 $3) 0 "$(rule $1 $2 $3)" sol)
done
WG_PTX=/tmp/ptx WG_CSV=$OUT/wgs.csv timeout 200 /tmp/wgs "${ARGS[@]}" 2>&1 | tee $OUT/wgs-full.txt | grep -E "RESULT|^  |FAIL|rror|pool|Used [0-9]+ reg|spill" | tee -a $L
echo "#### the ragged shapes without padding (4-byte copies) (t=${SECONDS}s)" | tee -a $L
ARGS=()
for s in 2047x2047x2047 4095x4095x4095 8191x8191x8191; do set -- $(echo $s | tr x ' ')
  [ ${#ARGS[@]} -gt 0 ] && ARGS+=(--)
  t=$(rule $1 $2 $3); ARGS+=(run $1 $2 $3 $(reps $1 $2 $3) 0 "${t% -D PAD=1}")
done
WG_CSV=$OUT/wgs-unpadded.csv timeout 120 /tmp/wgs "${ARGS[@]}" 2>&1 | grep -E "RESULT|^  |FAIL|rror" | tee -a $L

echo "#### lesson 11 (the course's binary, --solution) (t=${SECONDS}s)" | tee -a $L
for s in $SHAPES; do set -- $(echo $s | tr x ' ')
  echo "== 11_matrix_units $s" | tee -a $L
  timeout 60 $D/11_matrix_units --solution -m $1 -n $2 -k $3 --no-compare --record $OUT/11_matrix_units.csv 2>&1 | grep -E "rror|speed|time |fail|wrong|defines|-D " | tee -a $L
done

echo "#### cuBLAS FP32 kernel time, CUPTI (t=${SECONDS}s)" | tee -a $L
timeout 100 python3 research/perf-11/splitk/cublas_splitk.py 1024x1024x1024 2048x2048x2048 2>&1 | tee $OUT/cublas-kernel.csv | tee -a $L
kill $SMI
tar czf $OUT/ptx.tgz -C /tmp ptx 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
