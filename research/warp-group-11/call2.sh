#!/bin/bash
# The rest of call 1 (its ladder stopped at its time limit after lesson 11's reference at
# 1024x8192x8192): lesson 11 and its warp-group variant at the shapes it did not reach; errors on
# the same inputs (lessons 10 and 11 and the variant by `lab-bench accuracy`, inputs of seed 7;
# cuBLAS FP32 by cublas_sgemm.py on the same matrices, every element against float64); then
# lesson 10 beside CLBlast at every shape.
set -u
D=$PWD/device-bin/p32w
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1 CLBLAST_LIBRARY=$D/lib/libclblast.so.1 LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl solutions/11_matrix_units.cl solutions/10_tuned.cl | tee -a $L
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H100*) G=h100 ;; *H200*) G=h200 ;; *) G=gpu ;;
esac
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-$G-wg2
echo "run $RUN" | tee -a $L
echo "== ladder: lesson 11 (t=${SECONDS}s)" | tee -a $L
timeout 90 $D/lab-bench ladder --lessons 11 --sizes 8 --shapes 1024x8192x8192,12288x4096x3072 \
  --cpu-max 64 --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
SHAPES="8192x8192x1024,1024x8192x8192,12288x4096x3072,2047x2047x2047,4095x4095x4095,8191x8191x8191"
mkdir -p /tmp/c
echo "== accuracy (t=${SECONDS}s)" | tee -a $L
timeout 130 $D/lab-bench accuracy --lessons 10,11 --sizes 1024,2048,4096,8192 --shapes $SHAPES --c-out /tmp/c 2>&1 | tee -a $L
echo "== cuBLAS on the same inputs (t=${SECONDS}s)" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 ${SHAPES//,/ } --lab-inputs 7 --lab-c /tmp/c \
  --accuracy-csv $OUT/accuracy.csv 2>&1 | tee -a $L
echo "== ladder: lesson 10 and CLBlast (t=${SECONDS}s)" | tee -a $L
timeout 200 $D/lab-bench ladder --lessons 10 --sizes 1024,2048,4096,8192 --shapes 8192x8192x1024,1024x8192x8192,12288x4096x3072 \
  --cpu-max 64 --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
