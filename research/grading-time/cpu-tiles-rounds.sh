#!/bin/bash
# Five more rounds of `lab grade` for lessons 06, 07, 08 and 11 (before the asked size's count,
# $BEFORE, and this build), alternating; wall and CPU seconds (user + system, children included).
cd "$(dirname "$0")/../.."
out=${OUT_CSV:-research/grading-time/2026-11-30-cpu-tiles-rounds.csv}
echo "round,lesson,build,seconds,cpu_seconds,verdict" > $out
for round in 1 2 3 4 5; do
 for l in 06 07 08 11; do
  for b in before now; do
   case $b in before) bin=$BEFORE;; now) bin=target/release/lab;; esac
   /usr/bin/time -f "%e %U %S" -o /tmp/gt-time $bin grade $l --kernels solutions > /tmp/gt-$l-$b.txt 2>&1
   read e u s < /tmp/gt-time
   v=$(grep -cE "1 of 1 lessons pass" /tmp/gt-$l-$b.txt)
   echo "$round,$l,$b,$e,$(echo "$u + $s" | bc),$v" >> $out
  done
 done
done
