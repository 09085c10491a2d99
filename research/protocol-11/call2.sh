#!/bin/bash
# Call 2, the recorded command: issue 32's shapes with every lesson launch timed behind its
# lead-in (src/harness/lead.rs): lesson 11 (the reference and its warp-group variant) by
# `lab-bench ladder` at the squares, one below each, and the three long and flat shapes;
# cuBLAS FP32 (TF32 off), cuBLAS TF32 and CUTLASS 3xTF32 by peers_shapes.py (back-to-back, warm
# and over a pool larger than the L2; CUTLASS built while the ladder runs); errors of lesson
# 11, its variant and cuBLAS FP32 on the same inputs, every element against float64; then
# lesson 10 beside CLBlast. As research/warp-group-11/call4.sh otherwise.
set -u
D=${LAB_BIN:-$PWD/device-bin/proto}  # the binaries' folder; research/h100-11/call1.sh names another
S=$PWD/research/peers-11/scripts
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1 CLBLAST_LIBRARY=$D/lib/libclblast.so.1 LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
nvcc --version | tail -2 | tee -a $L
python3 -c "import torch; print('torch', torch.__version__)" | tee -a $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl solutions/11_matrix_units.cl solutions/10_tuned.cl $D/lab-bench | tee -a $L
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H100*) G=h100 ;; *H200*) G=h200 ;; *) G=gpu ;;
esac
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-$G-lead
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
  wait ) > $OUT/cutlass-build.txt 2>&1 &
BUILD=$!
SHAPES="8192x8192x1024,1024x8192x8192,12288x4096x3072"
echo "== ladder: lesson 11 (t=${SECONDS}s)" | tee -a $L
timeout 280 $D/lab-bench ladder --lessons 11 --sizes 1024,2048,4096,8192 --shapes $SHAPES \
  --cpu-max 64 --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
wait $BUILD; cat $OUT/cutlass-build.txt | tee -a $L
LIBS=""
for so in /tmp/c*.so; do n=$(basename $so .so); LIBS="$LIBS --cutlass cutlass-3xtf32-$n=$so"; done
echo "== peers (t=${SECONDS}s)" | tee -a $L
timeout 80 python3 $S/peers_shapes.py $LIBS 1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 \
  1023x1023x1023 2047x2047x2047 4095x4095x4095 8191x8191x8191 ${SHAPES//,/ } 2>&1 | tee $OUT/peers.csv | tee -a $L
kill $SMI
ALL="1024 2048 4096 8192 1023 2047 4095 8191 ${SHAPES//,/ }"
mkdir -p /tmp/c
echo "== accuracy (t=${SECONDS}s)" | tee -a $L
timeout 80 $D/lab-bench accuracy --lessons 11 --sizes 1024,2048,4096,8192,1023,2047,4095,8191 --shapes $SHAPES --c-out /tmp/c 2>&1 | tee -a $L
echo "== cuBLAS on the same inputs (t=${SECONDS}s)" | tee -a $L
timeout 60 python3 scripts/cublas_sgemm.py $ALL --lab-inputs 7 --lab-c /tmp/c --accuracy-csv $OUT/accuracy.csv 2>&1 | tee -a $L
echo "== ladder: lesson 10 and CLBlast (t=${SECONDS}s)" | tee -a $L
timeout $((575 - SECONDS)) $D/lab-bench ladder --lessons 10 --sizes 1024,2048,4096,8192 --shapes $SHAPES \
  --cpu-max 64 --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
