#!/bin/bash
# Lesson 10's rule for shapes nobody tuned at (lab::tuner::for_shape: a cube within a fifth of
# every side, else the fullest last wave), checked at eleven shapes it was not fitted on:
# each shape with the big block forced, the small one forced, and no -D (the lesson's own
# choice from results/tuned.csv), alternated, twice.
D=$PWD/device-bin/tuner10
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
BIG="-D TSM=128 -D TSN=256 -D TSK=16 -D WPTM=8 -D WPTN=16 -D ALONGK=0"
SMALL="-D TSM=128 -D TSN=64 -D TSK=32 -D WPTM=8 -D WPTN=4 -D ALONGK=1"
SHAPES="2560x2560x2560 6144x1024x2048 1536x1536x6144 4096x512x4096 16384x2048x1024 5000x3000x700 2048x6144x512 384x3072x4096 7000x7000x7000 2304x2304x2304 3584x3584x1024"
one() { name=$1; mnk=$2; shift 2; set -- $(echo $mnk | tr x ' ') "$@"; m=$1 n=$2 k=$3; shift 3
  echo "== $name $mnk" | tee -a $L
  timeout 60 $D/10_tuned --solution -m $m -n $n -k $k --no-compare "$@" --record $OUT/$name.csv 2>&1 | grep -E "speed|defines|rror|fail" | tee -a $L; }
for r in 1 2; do for s in $SHAPES; do one big $s $BIG; one small $s $SMALL; one rule $s; done; done
date -u | tee -a $L
