#!/bin/bash
# Lesson 10 at long, flat and in-between shapes with each of the H200's two tuned winners
# forced by -D: the big block (tuned at 2048 and 4096: 128x256, 8x16 per work-item) and the
# small one (tuned at 1024: 128x64, 8x4, k-steps of 32 along K). Which winner a shape should
# get when no winner was tuned at a cube near it (the current rule, nearest by the largest
# side, gives every one of these shapes the big block). Alternated per shape, twice.
D=$PWD/device-bin/peers11
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
BIG="-D TSM=128 -D TSN=256 -D TSK=16 -D WPTM=8 -D WPTN=16 -D ALONGK=0"
SMALL="-D TSM=128 -D TSN=64 -D TSK=32 -D WPTM=8 -D WPTN=4 -D ALONGK=1"
SHAPES="8192x8192x1024 1024x8192x8192 12288x4096x3072 8192x1024x8192 1024x8192x1024 1024x1024x8192 1000x1000x8000 1024x1024x4096 512x512x8192 768x768x4096 512x512x2048 1536x1536x1536 3072x3072x3072"
one() { name=$1; mnk=$2; shift 2; set -- $(echo $mnk | tr x ' ') "$@"; m=$1 n=$2 k=$3; shift 3
  echo "== $name $mnk" | tee -a $L
  timeout 60 $D/10_tuned --solution -m $m -n $n -k $k --no-compare $@ --record $OUT/$name.csv 2>&1 | grep -E "speed|defines|rror|fail" | tee -a $L; }
for r in 1 2; do for s in $SHAPES; do one big $s $BIG; one small $s $SMALL; done; done
date -u | tee -a $L
