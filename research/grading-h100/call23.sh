#!/bin/bash
# On an H100 (asked for nvidia-h100-x1; run 2026-12-05 10:10 UTC on an H100 80GB HBM3), with the
# code of 2026-12-05 (lesson 11's unit's factor kept for the copy of the course, the other
# kinds' defines checked by the simulator where one runs): the references of 04, 10 and 11
# graded as a student on the scoreboard ten times in a row (each rank a tie?); kernels wrong
# only at 1024^3 or only at square powers of two from 256 (lessons 04 and 11: one element
# of C 1 % off there), on the scoreboard and by `lab grade`; lessons 11 and 12 by `lab grade`.
# No Oclgrind on the device.
set -u
D=${D:-$PWD/device-bin/g41}   # the lab binary, built on a CPU machine (call 27 passes another)
# The wrong kernels: the references with one store edited (one element of C 1 % off where
# the condition holds), made in $K from solutions/ by prelude.sh, which also starts the log.
source "$(dirname "$0")/prelude.sh"
for i in 1 2 3 4 5 6 7 8 9 10; do
  echo "== ties, run $i (t=${SECONDS}s)" | tee -a $L
  timeout 60 $D/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 10 --lesson 11 2>&1 | grep -E "^\| |tie|device" | cut -c1-300 | tee -a $L
done
for k in k04-asked:4 k04-pow2:4 k11-asked:11 k11-pow2:11; do
  dir=${k%%:*}; les=${k##*:}
  echo "== $dir (lesson $les), scoreboard (t=${SECONDS}s)" | tee -a $L
  timeout 100 $D/lab --device NVIDIA --kernels $K/$dir --lesson $les 2>&1 | grep -E "^\| |device" | cut -c1-300 | tee -a $L
  echo "== $dir (lesson $les), lab grade" | tee -a $L
  timeout 100 $D/lab grade $les --device NVIDIA --kernels $K/$dir 2>&1 | grep -E "^  [A-Za-z]" | cut -c1-500 | tee -a $L
done
for k in 11 12; do
  echo "== lesson $k's reference, lab grade (t=${SECONDS}s)" | tee -a $L
  timeout 120 $D/lab grade $k --device NVIDIA --kernels solutions 2>&1 | grep -E "^  [A-Za-z]" | cut -c1-500 | tee -a $L
done
date -u | tee -a $L
