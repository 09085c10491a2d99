#!/bin/bash
# `lab grade` of the references of lessons 05-12 (no timing) with three builds, alternating,
# two rounds: before the asked size's count (9cd1fa7), with it and a CPU's 128×128 tiles
# (6d31156), and with it and a CPU's 32×32 tiles (this build). Paths of the two older builds'
# binaries are given as $BEFORE and $ASKED.
cd "$(dirname "$0")/../.."
out=${OUT_CSV:-research/grading-time/2026-11-30-cpu-tiles.csv}
echo "round,lesson,build,seconds,verdict" > $out
for round in 1 2; do
 for l in 05 06 07 08 09 10 11 12; do
  for b in before asked now; do
   case $b in before) bin=$BEFORE;; asked) bin=$ASKED;; now) bin=target/release/lab;; esac
   s=$(date +%s.%N); $bin grade $l --kernels solutions > /tmp/gt-$l-$b.txt 2>&1; e=$(date +%s.%N)
   v=$(grep -cE "1 of 1 lessons pass" /tmp/gt-$l-$b.txt)
   echo "$round,$l,$b,$(echo "$e - $s" | bc),$v" >> $out
  done
 done
done
