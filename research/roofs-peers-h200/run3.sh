#!/bin/bash
# Call 3: lesson 00 --record again, now measuring the L1 caches' read bandwidth as well.
D=$PWD/device-bin
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
timeout 200 $D/cur/00_your_device --record 2>&1 | tee -a $L
date -u | tee -a $L
cp results/peak.csv $OUT/
