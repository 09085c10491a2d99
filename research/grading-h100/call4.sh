#!/bin/bash
# Issue 30 on the GPU (no Oclgrind there): kernels wrong only at the asked size or at square
# powers of two (lessons 04 and 11), lesson 11's decoys that do FP32 on the CUDA cores
# (always, or only where C is large), the references of 04-12 on the scoreboard, and the
# reference as ten students (ties); then how much more accurate the split is than FP32 in
# several summation orders (sig.py, numpy on the host's CPU).
set -u
D=$PWD/device-bin/g30
export LAB_ROOT=$PWD PYTHONUNBUFFERED=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | awk '{print $2}')
echo "== references 04-12 on the scoreboard" | tee -a $L
timeout 200 $D/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 5 --lesson 6 --lesson 7 --lesson 8 --lesson 9 --lesson 10 --lesson 11 --lesson 12 2>&1 | tee -a $L
for k in asked:4 pow2:4 l11asked:11 l11fp32:11 l11small:11; do
  dir=${k%%:*}; les=${k##*:}
  echo "== $dir (lesson $les), scoreboard" | tee -a $L
  timeout 100 $D/lab --device NVIDIA --kernels $D/$dir --lesson $les 2>&1 | grep -E "^\| |device" | tee -a $L
  echo "== $dir (lesson $les), lab grade" | tee -a $L
  timeout 100 $D/lab grade $les --device NVIDIA --kernels $D/$dir 2>&1 | tail -8 | cut -c1-600 | tee -a $L
done
echo "== the reference as ten students, lessons 04 and 11" | tee -a $L
cls=$(mktemp -d); for i in $(seq -w 1 10); do mkdir -p $cls/s$i; cp solutions/04_naive_kernel.cl solutions/11_matrix_units.cl $cls/s$i/; done
timeout 200 $D/lab-teacher class $cls --device NVIDIA --lesson 4 --lesson 11 --size 1024 2>&1 | tail -30 | tee -a $L
cp $cls/gradebook.csv $OUT/gradebook.csv 2>/dev/null
echo "== accuracy signature (numpy)" | tee -a $L
timeout 120 python3 $D/sig.py 2>&1 | tee -a $L
date -u | tee -a $L
