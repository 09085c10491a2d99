#!/bin/bash
# Lesson 10's rule for shapes nobody tuned at (lab::tuner::for_shape) in its final form (the
# winner tuned at the cube itself, else the fullest last wave, fills within 15 % of the best
# counted equal, chosen from calls 1 to 3), checked at twelve shapes it was not fitted on:
# each shape with the big block forced, the small one forced, and no -D (the lesson's own
# choice from results/tuned.csv), alternated, twice.
D=$PWD/device-bin/tuner10
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
BIG="-D TSM=128 -D TSN=256 -D TSK=16 -D WPTM=8 -D WPTN=16 -D ALONGK=0"
SMALL="-D TSM=128 -D TSN=64 -D TSK=32 -D WPTM=8 -D WPTN=4 -D ALONGK=1"
SHAPES="3328x3328x3328 2432x2432x2432 1664x1664x1664 5120x5120x512 6000x1500x3000 1024x4096x2048 2944x2944x2944 896x896x8192 4096x1536x4096 7168x3072x1024 1920x1920x1920 3456x2048x2048"
one() { name=$1; mnk=$2; shift 2; set -- $(echo $mnk | tr x ' ') "$@"; m=$1 n=$2 k=$3; shift 3
  echo "== $name $mnk" | tee -a $L
  timeout 60 $D/10_tuned --solution -m $m -n $n -k $k --no-compare "$@" --record $OUT/$name.csv 2>&1 | grep -E "speed|defines|rror|fail" | tee -a $L; }
for r in 1 2; do for s in $SHAPES; do one big $s $BIG; one small $s $SMALL; one rule $s; done; done
date -u | tee -a $L
