#!/bin/bash
# Lesson 12 (branch lesson12) on the GPU: the grader through the PTX path, the lesson binary at
# several shapes beside lesson 11 (its "previous rung" line).
set -u
B=$(cd "$(dirname "$0")" && pwd)
cd "$B/root"
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
date -u
echo "== grade 12, solution"; timeout 200 "$B/lab" grade 12 --kernels solutions 2>&1 | tail -40
echo "== grade 12, starter"; timeout 100 "$B/lab" grade 12 2>&1 | tail -8
for s in "--size 2048" "--size 4096" "--size 8192" "-m 8192 -n 8192 -k 1024" "-m 4095 -n 4097 -k 4093"; do
  echo "== lesson 12 $s"; timeout 200 "$B/12_integers_for_floats" --solution $s 2>&1 | tail -14
done
date -u
