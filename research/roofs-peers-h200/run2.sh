#!/bin/bash
# Call 2: CLBlast "fresh" again, its A, B and C now written to the device by blocking writes
# before the timed call (call 1's migration request left NVIDIA's upload inside the timed
# call), beside lesson 10 and CLBlast warm; cuBLAS (TF32 off) warm and fresh; one run id.
D=$PWD/device-bin
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH CLBLAST_LIBRARY=$D/lib/libclblast.so.1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-h200-peers
echo "run $RUN" | tee -a $L
echo "== ladder: lesson 10, CLBlast warm and fresh" | tee -a $L
timeout 300 $D/cur/lab-bench ladder --lessons 10 --sizes 1024,2048,4096,8192 --no-variants --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
echo "== cuBLAS, TF32 off: warm, then fresh" | tee -a $L
timeout 150 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 --run $RUN --csv $OUT/ladder.csv 2>&1 | tee -a $L
timeout 200 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 --inputs fresh --run $RUN --csv $OUT/ladder.csv 2>&1 | tee -a $L
date -u | tee -a $L
