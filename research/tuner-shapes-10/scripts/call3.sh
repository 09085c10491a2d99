#!/bin/bash
# Lesson 10's rule for shapes nobody tuned at (lab::tuner::for_shape), as revised after
# call 2 (the winner tuned at the cube itself, else the fullest last wave; no longer "a cube
# within a fifth of every side"), checked at twelve more shapes, near tuned cubes among them:
# each shape with the big block forced, the small one forced, and no -D (the lesson's own
# choice from results/tuned.csv), alternated, twice.
D=$PWD/device-bin/tuner10
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
BIG="-D TSM=128 -D TSN=256 -D TSK=16 -D WPTM=8 -D WPTN=16 -D ALONGK=0"
SMALL="-D TSM=128 -D TSN=64 -D TSK=32 -D WPTM=8 -D WPTN=4 -D ALONGK=1"
SHAPES="1200x1200x1200 1800x1800x1800 2200x2200x2200 3800x3800x3800 4608x4608x4608 2048x2048x1024 1280x1280x1280 2816x2816x2816 8192x512x2048 640x640x16384 3000x5000x1500 10000x2000x3000"
one() { name=$1; mnk=$2; shift 2; set -- $(echo $mnk | tr x ' ') "$@"; m=$1 n=$2 k=$3; shift 3
  echo "== $name $mnk" | tee -a $L
  timeout 60 $D/10_tuned --solution -m $m -n $n -k $k --no-compare "$@" --record $OUT/$name.csv 2>&1 | grep -E "speed|defines|rror|fail" | tee -a $L; }
for r in 1 2; do for s in $SHAPES; do one big $s $BIG; one small $s $SMALL; one rule $s; done; done
date -u | tee -a $L
