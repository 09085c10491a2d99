#!/bin/bash
# Lesson 11's peers at the issue's shapes in one device command: CUTLASS 3xTF32 built here from
# its headers (four blocks, B row-major as the course stores it, and the published example's
# column-major B), cuBLAS FP32 and TF32 (warm and fresh), then lesson 11 and lesson 10.
D=$PWD/device-bin/peers11
S=$PWD/research/peers-11/scripts
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
nvcc --version | tail -2 | tee -a $L
date -u | tee -a $L
mkdir -p /tmp/cutlass && tar xzf $D/cutlass-include.tar.gz -C /tmp/cutlass
build() { name=$1; shift
  nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I/tmp/cutlass/include "$@" \
    $S/cutlass_3xtf32.cu -o /tmp/$name.so > /tmp/$name.log 2>&1 \
    && echo "built $name $*" || { echo "FAILED $name $*"; tail -5 /tmp/$name.log; }; }
( build c128x128s3 -DTB_M=128 -DTB_N=128 -DTB_K=16 -DW_M=64 -DW_N=64 -DSTAGES=3 -DALIGN=4 &
  build c128x128s4 -DTB_M=128 -DTB_N=128 -DTB_K=16 -DW_M=64 -DW_N=64 -DSTAGES=4 -DALIGN=4 &
  build c256x128s3 -DTB_M=256 -DTB_N=128 -DTB_K=16 -DW_M=64 -DW_N=64 -DSTAGES=3 -DALIGN=4 &
  build c128x64s3 -DTB_M=128 -DTB_N=64 -DTB_K=16 -DW_M=64 -DW_N=32 -DSTAGES=3 -DALIGN=4 &
  build c64x64s4 -DTB_M=64 -DTB_N=64 -DTB_K=16 -DW_M=32 -DW_N=32 -DSTAGES=4 -DALIGN=4 &
  build c128x64s3colB -DTB_M=128 -DTB_N=64 -DTB_K=16 -DW_M=64 -DW_N=32 -DSTAGES=3 -DALIGN=4 -DLAYOUT_B=ColumnMajor &
  build c128x128s3a1 -DTB_M=128 -DTB_N=128 -DTB_K=16 -DW_M=64 -DW_N=64 -DSTAGES=3 -DALIGN=1 &
  wait ) 2>&1 | tee -a $L
date -u | tee -a $L
LIBS=""
for so in /tmp/c*.so; do n=$(basename $so .so); LIBS="$LIBS --cutlass cutlass-3xtf32-$n=$so"; done
SHAPES="1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 4095x4095x4095 8191x8191x8191 8192x8192x1024 1024x8192x8192 12288x4096x3072 8192x1024x8192 1024x8192x1024"
echo "== peers" | tee -a $L
timeout 300 python3 $S/peers_shapes.py $LIBS $SHAPES 2>&1 | tee $OUT/peers.csv | tee -a $L
one() { bin=$1; mnk=$2; set -- $(echo $mnk | tr x ' '); m=$1 n=$2 k=$3
  echo "== $bin $mnk" | tee -a $L
  timeout 90 $D/$bin --solution -m $m -n $n -k $k --no-compare --record $OUT/$bin.csv 2>&1 | grep -E "rror|speed|fail|wrong|defines|-D " | tee -a $L; }
for s in $SHAPES; do one 11_matrix_units $s; done
for s in $SHAPES; do one 10_tuned $s; done
date -u | tee -a $L
