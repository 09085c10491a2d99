#!/bin/bash
# Session 4, call 26: on an H200 only: lesson 00's peak, the GPU rungs, CLBlast and cuBLAS in one command.
D=$PWD/.dev/w24
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH CLBLAST_LIBRARY=$D/lib/libclblast.so.1
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
name=$(nvidia-smi --query-gpu=name --format=csv,noheader)
case "$name" in *H200*) ;; *) echo "not an H200: $name" | tee -a $L; exit 0;; esac
date -u | tee -a $L
cp results/peak.csv $OUT/peak-before.csv
timeout 120 $D/bin/00_your_device --record 2>&1 | tee -a $L
cp results/peak.csv $OUT/peak.csv
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-h200
timeout 330 $D/bin/lab ladder --lessons 4,5,6,7,8,9,10,11 --sizes 1024,2048,4096 --no-variants --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
timeout 100 python3 scripts/cublas_sgemm.py 1024 2048 4096 --lab-inputs 7 --run $RUN --csv $OUT/ladder.csv 2>&1 | tee -a $L
