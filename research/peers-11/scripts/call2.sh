#!/bin/bash
# Call 2: the same peers and lessons as call 1, after lesson 11's host learned to pad ragged
# sides and to split K (stop 42 and 43), at call 1's eleven shapes and the six small-M·N,
# long-K shapes of research/splitk-11. Two CUTLASS builds only: the published example's block
# (the fastest at every aligned shape in call 1) and the alignment-1 build (the only one that
# runs a side not a multiple of 4).
D=$PWD/device-bin/peers11
S=$PWD/research/peers-11/scripts
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
nvcc --version | tail -2 | tee -a $L
python3 -c "import torch; print('torch', torch.__version__)" | tee -a $L
date -u | tee -a $L
mkdir -p /tmp/cutlass && tar xzf $D/cutlass-include.tar.gz -C /tmp/cutlass
build() { name=$1; shift
  nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I/tmp/cutlass/include "$@" \
    $S/cutlass_3xtf32.cu -o /tmp/$name.so > /tmp/$name.log 2>&1 \
    && echo "built $name $*" || { echo "FAILED $name $*"; tail -5 /tmp/$name.log; }; }
( build c128x64s3 -DTB_M=128 -DTB_N=64 -DTB_K=16 -DW_M=64 -DW_N=32 -DSTAGES=3 -DALIGN=4 &
  build c128x128s3a1 -DTB_M=128 -DTB_N=128 -DTB_K=16 -DW_M=64 -DW_N=64 -DSTAGES=3 -DALIGN=1 &
  wait ) 2>&1 | tee -a $L
date -u | tee -a $L
LIBS=""
for so in /tmp/c*.so; do n=$(basename $so .so); LIBS="$LIBS --cutlass cutlass-3xtf32-$n=$so"; done
SHAPES="1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 4095x4095x4095 8191x8191x8191 8192x8192x1024 1024x8192x8192 12288x4096x3072 8192x1024x8192 1024x8192x1024 1024x1024x8192 1000x1000x8000 1024x1024x4096 512x512x8192 768x768x4096 512x512x2048"
echo "== peers" | tee -a $L
timeout 240 python3 $S/peers_shapes.py $LIBS $SHAPES 2>&1 | tee $OUT/peers.csv | tee -a $L
date -u | tee -a $L
one() { bin=$1; mnk=$2; set -- $(echo $mnk | tr x ' '); m=$1 n=$2 k=$3
  echo "== $bin $mnk" | tee -a $L
  timeout 60 $D/$bin --solution -m $m -n $n -k $k --no-compare --record $OUT/$bin.csv 2>&1 | grep -E "rror|speed|fail|wrong|defines|-D " | tee -a $L; }
for s in $SHAPES; do one 11_matrix_units $s; done
for s in $SHAPES; do one 10_tuned $s; done
date -u | tee -a $L
