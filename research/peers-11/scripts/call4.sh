#!/bin/bash
# Lesson 11 (the course's binary, every call on fresh inputs from the host, checked) beside
# cuBLAS FP32 timed three ways (cublas_course.py: back to back on a pool, after an upload of
# fresh inputs from the host, after 15 ms idle), at issue 32's ten shapes; SM clock, power and
# throttle reasons sampled every 200 ms. Run from the repository root after the OpenCL ICD line,
# with the lesson binary in device-bin/p32b/.
set -u
D=$PWD/device-bin/p32b
S=$PWD/research/peers-11/scripts
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
python3 -c "import torch; print('torch', torch.__version__)" | tee -a $L
date -u | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 200 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
SHAPES="1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 2047x2047x2047 4095x4095x4095 8191x8191x8191 8192x8192x1024 1024x8192x8192 12288x4096x3072"
echo "== cuBLAS FP32 three ways (t=${SECONDS}s)" | tee -a $L
timeout 240 python3 $S/cublas_course.py $SHAPES 2>&1 | tee $OUT/cublas.csv | tee -a $L
for s in $SHAPES; do
  set -- $(echo $s | tr x ' ')
  echo "== 11_matrix_units $s (t=${SECONDS}s)" | tee -a $L
  timeout 60 $D/11_matrix_units --solution -m $1 -n $2 -k $3 --no-compare --record $OUT/11_matrix_units.csv 2>&1 | grep -E "rror|speed|time |fail|wrong|defines|-D " | tee -a $L
done
echo "== cuBLAS FP32 again, the large shapes (t=${SECONDS}s)" | tee -a $L
timeout 120 python3 $S/cublas_course.py 4096x4096x4096 8192x8192x8192 2>&1 | tee -a $OUT/cublas.csv | tee -a $L
kill $SMI
date -u | tee -a $L
