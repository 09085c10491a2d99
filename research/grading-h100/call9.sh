#!/bin/bash
# Issue 30 on the GPU (no Oclgrind there): the device's second run of the asked size with the
# kernel built unoptimised (-cl-opt-disable). The references of 04-12 on the scoreboard (every
# one must still pass: NVIDIA's compiler builds them unoptimised too); two kernels whose
# accumulator is undefined only on large problems: lesson 05's left at zero only while the
# launch has at most 64 work-groups (the case `05 uninitialised_only_among_many_work_groups`),
# lesson 04's only while K <= 200 (`04 accumulator_uninitialised_on_long_rows`), on the
# scoreboard and by `lab grade`.
set -u
D=$PWD/device-bin/g30c
export LAB_ROOT=$PWD
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
echo "== references 04-12 on the scoreboard" | tee -a $L
timeout 300 $D/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 5 --lesson 6 --lesson 7 --lesson 8 --lesson 9 --lesson 10 --lesson 11 --lesson 12 2>&1 | tee -a $L
for k in m05:5 k04:4; do
  dir=${k%%:*}; les=${k##*:}
  echo "== $dir (lesson $les), scoreboard" | tee -a $L
  timeout 100 $D/lab --device NVIDIA --kernels $D/$dir --lesson $les 2>&1 | grep -E "^\| |device" | tee -a $L
  echo "== $dir (lesson $les), lab grade" | tee -a $L
  timeout 100 $D/lab grade $les --device NVIDIA --kernels $D/$dir 2>&1 | tail -12 | cut -c1-700 | tee -a $L
done
date -u | tee -a $L
