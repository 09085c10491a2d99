#!/bin/bash
# Call 23's two questions on the final grader of issue 30's last changes (5dfd20a: the largest
# launch's edges also asked at the two cuts; on a device without Oclgrind those looks do not
# run): kernels wrong only at 1024^3 or only at square powers of two from 256 (lessons 04 and
# 11), on the scoreboard; then the references of 04, 10 and 11 graded as a student on the
# scoreboard ten times in a row. No Oclgrind on the device. Leaner than call 23 (no `lab
# grade` of the wrong kernels or of 11 and 12), so that it fits about seven minutes. Not run
# yet: no machine was lent on 2026-12-08 (README). D: a folder holding `lab` built in release
# mode on a CPU machine from the commit to be checked.
set -u
D=${D:-$PWD/device-bin/g53}   # 5dfd20a's lab (sha1 a133d08d…)
source "$(dirname "$0")/prelude.sh"   # the four wrong kernels in $K, the log $L begun
for k in k04-asked:4 k04-pow2:4 k11-asked:11 k11-pow2:11; do
  dir=${k%%:*}; les=${k##*:}
  echo "== $dir (lesson $les), scoreboard (t=${SECONDS}s)" | tee -a $L
  timeout 100 $D/lab --device NVIDIA --kernels $K/$dir --lesson $les 2>&1 | grep -E "^\| |device" | cut -c1-300 | tee -a $L
done
for i in 1 2 3 4 5 6 7 8 9 10; do
  echo "== ties, run $i (t=${SECONDS}s)" | tee -a $L
  timeout 60 $D/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 10 --lesson 11 2>&1 | grep -E "^\| |tie|device" | cut -c1-300 | tee -a $L
done
date -u | tee -a $L
