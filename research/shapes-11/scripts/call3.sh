#!/bin/bash
# Call 3: `lab grade 11` on the H100 with the reference: the device's own set, the lesson's fixed
# sets and both block shapes the host may pick (its knobs), each at the lesson's small shapes.
D=$PWD/device-bin/shapes11
export LAB_ROOT=$D/root LAB_DEVICE=H100
nvidia-smi --query-gpu=name,driver_version --format=csv; date -u
timeout 300 $D/lab grade 11 --kernels $D/root/solutions 2>&1 | tee $OUT/grade.txt | grep -vE "^\s*$" | tail -60
date -u
