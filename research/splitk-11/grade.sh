# Lesson 11 graded on the tensor cores after the split of K: the reference (every define set
# and knob, the split ones among them), and the two wrong-on-purpose kernels of the split
# (tests/11_matrix_units.rs: every_part_reads_the_first, only_the_first_part_works).
set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u +%FT%TZ
for k in solutions device-bin/m1 device-bin/m2; do
  echo "=== lab grade 11 --kernels $k"
  timeout 150 ./device-bin/lab grade 11 --kernels $k 2>&1 | cut -c1-400
done
date -u +%FT%TZ
