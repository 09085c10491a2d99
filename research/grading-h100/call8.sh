#!/bin/bash
# Call 7 again with the lead-in (src/harness/lead.rs: each timed launch on a GPU right behind an
# untimed one of the same code on the call before's buffers). Call 7's text: issue 30 on the GPU
# (no Oclgrind there), on the final code of 2026-11-30's second session (the
# reference's loops with the processor's FMA, the simulator's looks costliest first): the
# references of 04-12 on the scoreboard; lesson-04 kernels wrong only at 1024^3 and only at
# square powers of two from 256; lesson 11's reference with one element of C scaled only at
# 1024^3; lesson 11's decoy that does FP32 on the CUDA cores; the reference as ten students
# (lessons 04 and 11, ties).
set -u
D=$PWD/device-bin/g30b
export LAB_ROOT=$PWD
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
lscpu | grep -E "Model name|^Flags" | cut -c1-200 | tee -a $L
date -u | tee -a $L
echo "== references 04-12 on the scoreboard" | tee -a $L
timeout 220 $D/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 5 --lesson 6 --lesson 7 --lesson 8 --lesson 9 --lesson 10 --lesson 11 --lesson 12 2>&1 | tee -a $L
for k in asked:4 pow2:4 l11asked:11 l11fp32:11; do
  dir=${k%%:*}; les=${k##*:}
  echo "== $dir (lesson $les), scoreboard" | tee -a $L
  timeout 100 $D/lab --device NVIDIA --kernels $D/$dir --lesson $les 2>&1 | grep -E "^\| |device" | tee -a $L
  echo "== $dir (lesson $les), lab grade" | tee -a $L
  timeout 100 $D/lab grade $les --device NVIDIA --kernels $D/$dir 2>&1 | tail -8 | cut -c1-600 | tee -a $L
done
echo "== the reference as ten students, lessons 04 and 11" | tee -a $L
cls=$(mktemp -d); for i in $(seq -w 1 10); do mkdir -p $cls/s$i; cp solutions/04_naive_kernel.cl solutions/11_matrix_units.cl $cls/s$i/; done
timeout 220 $D/lab-teacher class $cls --device NVIDIA --lesson 4 --lesson 11 --size 1024 2>&1 | tail -30 | tee -a $L
cp $cls/gradebook.csv $OUT/gradebook.csv 2>/dev/null
date -u | tee -a $L
echo "== cuBLAS FP32 the course's way, with the lead-in (scripts/cublas_sgemm.py --inputs fresh)" | tee -a $L
timeout 60 python3 scripts/cublas_sgemm.py 1024 2048 --inputs fresh --reps 30 --warmup 3 --csv $OUT/cublas-fresh.csv 2>&1 | tee -a $L
date -u | tee -a $L
