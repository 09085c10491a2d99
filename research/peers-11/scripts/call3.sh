#!/bin/bash
# Issue 32's acceptance command: lesson 11 and lesson 10 (the course's binaries, every call on
# fresh inputs and checked), cuBLAS FP32 (TF32 off) and with TF32 on, CUTLASS's 3xTF32 GEMM
# (two builds: the published example's 128x64 block, and the any-alignment build the ragged
# shapes need), warm and fresh, and CLBlast (the ladder's peer), at the shapes; errors
# against float64 at sampled points (peers_shapes.py). Then lesson 11's grader on a kernel
# wrong only at 1024^3 (issue 30).
set -u
D=$PWD/device-bin/p32
S=$PWD/research/peers-11/scripts
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1 CLBLAST_LIBRARY=$D/libclblast.so.1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
nvcc --version | tail -2 | tee -a $L
python3 -c "import torch; print('torch', torch.__version__)" | tee -a $L
date -u | tee -a $L
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H100*) G=h100 ;; *H200*) G=h200 ;; *) G=gpu ;;
esac
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-$G-p32
echo "run $RUN" | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 1000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
mkdir -p /tmp/cutlass && tar xzf $D/cutlass-include.tar.gz -C /tmp/cutlass
build() { name=$1; shift
  nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I/tmp/cutlass/include "$@" \
    $S/cutlass_3xtf32.cu -o /tmp/$name.so > /tmp/$name.log 2>&1 \
    && echo "built $name $*" || { echo "FAILED $name $*"; tail -5 /tmp/$name.log; }; }
( build c128x64s3 -DTB_M=128 -DTB_N=64 -DTB_K=16 -DW_M=64 -DW_N=32 -DSTAGES=3 -DALIGN=4 &
  build c128x128s3a1 -DTB_M=128 -DTB_N=128 -DTB_K=16 -DW_M=64 -DW_N=64 -DSTAGES=3 -DALIGN=1 &
  wait ) 2>&1 | tee -a $L
LIBS=""
for so in /tmp/c*.so; do n=$(basename $so .so); LIBS="$LIBS --cutlass cutlass-3xtf32-$n=$so"; done
SHAPES="1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 2047x2047x2047 4095x4095x4095 8191x8191x8191 8192x8192x1024 1024x8192x8192 12288x4096x3072"
echo "== peers: cuBLAS FP32, cuBLAS TF32, CUTLASS 3xTF32" | tee -a $L
timeout 200 python3 $S/peers_shapes.py $LIBS $SHAPES 2>&1 | tee $OUT/peers.csv | tee -a $L
one() { bin=$1; mnk=$2; set -- $(echo $mnk | tr x ' '); m=$1 n=$2 k=$3
  echo "== $bin $mnk" | tee -a $L
  timeout 60 $D/$bin --solution -m $m -n $n -k $k --no-compare --record $OUT/$bin.csv 2>&1 | grep -E "rror|speed|fail|wrong|defines|-D " | tee -a $L; }
for s in $SHAPES; do one 11_matrix_units $s; done
for s in $SHAPES; do one 10_tuned $s; done
echo "== ladder: lessons 10 and 11 beside CLBlast" | tee -a $L
timeout 200 $D/lab-bench ladder --lessons 10,11 --sizes 1024,2048,4096,8192 --no-variants --cpu-max 64 --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
kill $SMI
echo "== issue 30: lesson 11 wrong only at 1024^3" | tee -a $L
timeout 100 $D/lab --device NVIDIA --kernels $D/l11asked --lesson 11 2>&1 | grep -E "^\| |device" | tee -a $L
timeout 100 $D/lab grade 11 --device NVIDIA --kernels $D/l11asked 2>&1 | grep -E "WRONG|PASSED|FAIL|elements" | cut -c1-400 | tee -a $L
date -u | tee -a $L
