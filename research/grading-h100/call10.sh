#!/bin/bash
# The graders on the GPU after the padding copies of A and B became one launch (lesson 11's
# reference pads wherever K or N is ragged): the references of 04-12 on the scoreboard; lesson
# 11's reference by `lab grade` (drawn ragged shapes through the padded path on the tensor
# cores); call 1's lesson-04 kernel wrong only at 1024³, on the scoreboard and by `lab grade`.
set -u
D=$PWD/device-bin/g30
export LAB_ROOT=$PWD
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/asked/*.cl | tee -a $L
echo "== references 04-12 on the scoreboard" | tee -a $L
timeout 300 $D/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 5 --lesson 6 --lesson 7 --lesson 8 --lesson 9 --lesson 10 --lesson 11 --lesson 12 2>&1 | tee -a $L
echo "== lesson 11's reference, lab grade" | tee -a $L
timeout 120 $D/lab grade 11 --device NVIDIA --kernels solutions 2>&1 | tail -20 | cut -c1-700 | tee -a $L
echo "== asked (lesson 4), scoreboard" | tee -a $L
timeout 100 $D/lab --device NVIDIA --kernels $D/asked --lesson 4 2>&1 | grep -E "^\| |device" | tee -a $L
echo "== asked (lesson 4), lab grade" | tee -a $L
timeout 100 $D/lab grade 4 --device NVIDIA --kernels $D/asked 2>&1 | tail -8 | cut -c1-700 | tee -a $L
date -u | tee -a $L
