#!/bin/bash
# `lab grade` of the references of 05-12, the build before the asked size's count ($BEFORE,
# 9cd1fa7) and this build, alternating, $ROUNDS rounds (lesson 12 in the first two only);
# wall and CPU seconds (user + system, children included).
cd "$(dirname "$0")/../.."
out=${OUT_CSV:-research/grading-time/2026-11-30-fma-rounds.csv}
rounds=${ROUNDS:-5}
echo "round,lesson,build,seconds,cpu_seconds,verdict" > $out
for round in $(seq 1 $rounds); do
 for l in ${LESSONS:-05 06 07 08 09 10 11 12}; do
  [ $l = 12 ] && [ $round -gt 2 ] && continue
  for b in before now; do
   case $b in before) bin=$BEFORE;; now) bin=target/release/lab;; esac
   /usr/bin/time -f "%e %U %S" -o /tmp/gt-time $bin grade $l --kernels solutions > /tmp/gt-$l-$b.txt 2>&1
   read e u s < /tmp/gt-time
   v=$(grep -cE "1 of 1 lessons pass" /tmp/gt-$l-$b.txt)
   echo "$round,$l,$b,$e,$(echo "$u + $s" | bc),$v" >> $out
  done
 done
done
