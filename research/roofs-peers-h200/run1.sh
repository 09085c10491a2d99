#!/bin/bash
# One device command: lesson 00's ceilings with the L2 cache's read bandwidth (recorded in
# results/peak.csv); the GPU rungs 04-09 at 4096 and lessons 10 and 11 at 1024-8192 with
# CLBlast warm and fresh; cuBLAS (TF32 off) warm and fresh, all under one run id.
# Binaries built on the course's machine are carried in device-bin/cur, CLBlast 1.5.3
# (Debian's libclblast1) in device-bin/lib.
D=$PWD/device-bin
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH CLBLAST_LIBRARY=$D/lib/libclblast.so.1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-h200-roofs
echo "run $RUN" | tee -a $L
echo "== lesson 00" | tee -a $L
timeout 200 $D/cur/00_your_device --record 2>&1 | tee -a $L
echo "== ladder: rungs 04-09 at 4096" | tee -a $L
timeout 200 $D/cur/lab-bench ladder --lessons 4,5,6,7,8,9 --sizes 4096 --no-variants --no-peers --run $RUN 2>&1 | tee -a $L
echo "== ladder: lessons 10 and 11, CLBlast warm and fresh" | tee -a $L
timeout 300 $D/cur/lab-bench ladder --lessons 10,11 --sizes 1024,2048,4096,8192 --no-variants --run $RUN 2>&1 | tee -a $L
echo "== cuBLAS, TF32 off: warm, then fresh" | tee -a $L
timeout 150 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 --run $RUN 2>&1 | tee -a $L
timeout 200 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 --inputs fresh --run $RUN 2>&1 | tee -a $L
date -u | tee -a $L
cp results/peak.csv results/nvidia-h200.csv $OUT/ 2>&1 | tee -a $L
