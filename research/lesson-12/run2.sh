#!/bin/bash
# Lesson 12 (branch lesson12) on the GPU, call 2: the reference with the fast products
# (128×128 blocks of 4 warps of 64×64, three stages of 128-byte k-steps, bands of 16 block rows,
# all moduli in one launch), residues of rounded values, the reconstruction 4 columns per
# work-item. The grader through the PTX path, then the lesson binary at several shapes beside
# lesson 11 (its "vs lesson 11" line), then the previous products' parameters at 8192³ for
# comparison on the same machine.
set -u
B=$(cd "$(dirname "$0")" && pwd)
cd "$B/root"
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
date -u
echo "== grade 12, solution"; timeout 240 "$B/lab" grade 12 --kernels solutions 2>&1 | tail -40
echo "== grade 12, starter"; timeout 100 "$B/lab" grade 12 2>&1 | tail -8
for s in "--size 2048" "--size 4096" "--size 8192" "-m 8192 -n 8192 -k 1024" "-m 4095 -n 4097 -k 4093"; do
  echo "== lesson 12 $s"; timeout 200 "$B/12_integers_for_floats" --solution $s 2>&1 | tail -14
done
echo "== lesson 12 --size 8192, the previous products (BK=64, 64x32 warps, 2 stages, no bands)"
timeout 200 "$B/12_integers_for_floats" --solution --size 8192 --no-compare \
  -D BK=64 -D WN=32 -D STAGES=2 -D GROUPM=1 2>&1 | tail -10
date -u
