#!/bin/bash
# Lesson 12's recorded run: lessons 10, 11 and 12 (references) beside cuBLAS FP32 (TF32 off) in
# one command: the ladder at 1024-8192 and one below each (sides not multiples of 4), cuBLAS on
# the same inputs and on fresh ones, the rectangular shapes by each lesson's own binary and by
# cuBLAS, and every element's error against float64 on the same matrices for all four, on the
# course's inputs (seed 7) and on the grader's wide-range ones. Run from the repository root.
set -u
D=$PWD/device-bin/rec
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H100*) G=h100 ;; *H200*) G=h200 ;; *) G=gpu ;;
esac
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 1000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-$G-l12
echo "run $RUN" | tee -a $L
echo "== ladder: lessons 10, 11, 12" | tee -a $L
timeout 330 $D/lab-bench ladder --lessons 10,11,12 --sizes 1024,2048,4096,8192 --no-variants --no-peers --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
echo "== cuBLAS, TF32 off, the ladder's inputs" | tee -a $L
timeout 150 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 1023 2047 4095 8191 --lab-inputs 7 --run $RUN --csv $OUT/ladder.csv 2>&1 | tee -a $L
echo "== cuBLAS, fresh inputs every call (the course's protocol)" | tee -a $L
timeout 150 python3 scripts/cublas_sgemm.py 1024 2048 4096 --inputs fresh --reps 20 --run $RUN --csv $OUT/ladder.csv 2>&1 | tee -a $L
for s in "-m 8192 -n 8192 -k 1024" "-m 1024 -n 8192 -k 8192" "-m 12288 -n 4096 -k 3072"; do
  for l in 10_tuned 12_integers_for_floats; do
    echo "== $l $s" | tee -a $L
    timeout 120 $D/$l --solution $s 2>&1 | tail -12 | tee -a $L
  done
done
echo "== cuBLAS, rectangular" | tee -a $L
timeout 150 python3 scripts/cublas_sgemm.py 8192x8192x1024 1024x8192x8192 12288x4096x3072 --run $RUN --csv $OUT/rect.csv 2>&1 | tee -a $L
kill $SMI
for kind in uniform wide; do
  W=""; PW=""; [ $kind = wide ] && { W="--wide"; PW="--lab-wide"; }
  ARUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-$G-acc-$kind
  echo "== accuracy, seed 7, $kind" | tee -a $L
  rm -rf /tmp/acc; mkdir -p /tmp/acc
  timeout 240 $D/lab-bench accuracy --lessons 10,11,12 --sizes 64,2048,4096,8192 --shapes 4095x4097x4093,8192x8192x1024 --seed 7 $W --c-out /tmp/acc 2>&1 | tee -a $L
  timeout 240 python3 scripts/cublas_sgemm.py 64 2048 4096 8192 4095x4097x4093 8192x8192x1024 --lab-inputs 7 $PW --lab-c /tmp/acc --reps 3 --warmup 1 --run $ARUN --csv $OUT/acc-timing.csv --accuracy-csv $OUT/accuracy.csv 2>&1 | tee -a $L
done
date -u | tee -a $L
