#!/bin/bash
# Lesson 11's warp group at ragged sides, by `lab-bench ladder` (every call on fresh inputs,
# checked, behind its lead-in; the device times of every step summed). Builds of lab-bench:
#   old     17a248d: above the in-place bound the host's copies of A and B (two launches) and
#           C's rows copied back; rows read where they lie below it
#   pad     the kernel reads the copies at their padded lengths and writes C where it lies
#           (PADDED: no copy back), A's and B's copies two launches; every ragged shape padded
#   two     as pad, A's and B's copies in one launch; in place below the bound (the course's)
#   padtwo  two with every ragged shape padded
#   sel     two, with A's unshift (in place) written as a choice of four swizzles instead of one
#           shuffle2 (the kernel file swapped for `warp_group_sel.cl`)
# The lesson's reference kernel, the same in every build, runs beside each and shows the device
# steady.
# Usage: bash call.sh above|below (two device commands: each within the per-command limit).
set -u
D=$PWD/device-bin/wg
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log-${1:-above}.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum lessons/11_matrix_units/*.cl $D/* | tee -a $L
ABOVE="2048x2048x2047,4096x4095x4096,3001x2999x4093,12288x4095x3072"
BELOW="1024x1023x1024,1024x1024x1023,2048x2047x2048"
run() { # build, sizes, shapes, label
  echo "== $4 (t=${SECONDS}s)" | tee -a $L
  timeout 280 $D/lab-bench-$1 ladder --lessons 11 --no-peers --sizes $2 --shapes $3 \
    --cpu-max 64 --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-$4" --out $OUT/ladder-$4.csv 2>&1 | tee -a $L
}
case ${1:-above} in
above)
  run two 2047,4095,8191,2048,4096,8192 $ABOVE two
  run old 2047,4095,8191 $ABOVE old ;;
below)
  run pad 1023 $BELOW pad
  run padtwo 1023 $BELOW padtwo
  run two 1023,1024 $BELOW two-below
  cp lessons/11_matrix_units/warp_group.cl $OUT/warp_group.cl.kept
  cp $D/warp_group_sel.cl lessons/11_matrix_units/warp_group.cl
  run two 1023 1024x1024x1023 sel
  cp $OUT/warp_group.cl.kept lessons/11_matrix_units/warp_group.cl
  run two 2048 $ABOVE two-shapes ;;
esac
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
