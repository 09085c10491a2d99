#!/bin/bash
# Part 1 (issue 30): lesson 11 kernels whose accumulators are (partly) never set, by `lab grade`
# on the GPU: does the unoptimised run at the asked size catch what the optimised build hides?
# Part 2 (issue 32): lesson 11's warp group at small ragged shapes, every step's device time
# printed (a research build of lab-bench: LAB_STEP_MS prints them, LAB_WG_PAD=0/1 forces in
# place or padded).
set -u
D=$PWD/device-bin/g31
export LAB_ROOT=$PWD
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/lab-bench-steps $D/*/11_matrix_units.cl lessons/11_matrix_units/*.cl | tee -a $L
case ${1:-all} in
grade|all)
for k in uninit uninit-row; do
  echo "== grade $k (t=${SECONDS}s)" | tee -a $L
  timeout 170 $D/lab grade 11 --device NVIDIA --kernels $D/$k 2>&1 | cut -c1-800 | tee -a $L
done ;;
esac
case ${1:-all} in
steps|all)
export LAB_DEVICE=NVIDIA LAB_STEP_MS=1
run() { # label, sizes, shapes, [pad]
  echo "== steps $1 (t=${SECONDS}s)" | tee -a $L
  LAB_WG_PAD=${4:-} timeout 120 $D/lab-bench-steps ladder --lessons 11 --no-peers --sizes $2 --shapes $3 \
    --cpu-max 64 --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-$1" --out $OUT/ladder-$1.csv > $OUT/out-$1.txt 2> $OUT/steps-$1.txt
  tail -5 $OUT/out-$1.txt | tee -a $L
}
run default 1024,1023 1024x1023x1024,1024x1024x1023
run padded 1023 1024x1023x1024,1024x1024x1023 1
run big 2048,2047 2048x2048x2047
;;
esac
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
