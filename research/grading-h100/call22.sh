#!/bin/bash
# After lesson 11's model scales every product it makes by a power of two drawn per program
# (src/harness/unit_scale.rs) and the second build after a changed model went (lesson 11):
# the references of 04-12 on the scoreboard; lessons 11 and 12 by `lab grade` (what the
# verdict says of the technique on the tensor cores, where nothing is scaled); three lesson-11
# decoys: FP32 on the CUDA cores, the unit's results times zero, and the unit asked once on a
# fragment of ones whether it is the changed model (`unit_asked_whether_it_is_changed`).
set -u
D=$PWD/device-bin/g40
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/k11-*/*.cl solutions/11_matrix_units.cl | tee -a $L
echo "== references 04-12 on the scoreboard" | tee -a $L
timeout 300 $D/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 5 --lesson 6 --lesson 7 --lesson 8 --lesson 9 --lesson 10 --lesson 11 --lesson 12 2>&1 | tee -a $L
for k in 11 12; do
  echo "== lesson $k's reference, lab grade" | tee -a $L
  timeout 120 $D/lab grade $k --device NVIDIA --kernels solutions 2>&1 | grep -E "^  [A-Za-z]" | cut -c1-500 | tee -a $L
done
for d in fp32 zero asked; do
  echo "== lesson 11 decoy $d, lab grade" | tee -a $L
  timeout 120 $D/lab grade 11 --device NVIDIA --kernels $D/k11-$d 2>&1 | grep -E "^  [A-Za-z]" | cut -c1-500 | tee -a $L
done
date -u | tee -a $L
