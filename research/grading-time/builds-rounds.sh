#!/bin/bash
# `lab grade` of the references of $LESSONS with several builds alternating, $ROUNDS rounds;
# wall and CPU seconds (user + system, children included). BUILDS: name=path pairs, e.g.
# BUILDS="9cd1fa7=/tmp/base/target/release/lab now=target/release/lab".
cd "$(dirname "$0")/../.."
out=${OUT_CSV:?}
echo "round,lesson,build,seconds,cpu_seconds,verdict" > $out
for round in $(seq 1 ${ROUNDS:-3}); do
 for l in ${LESSONS:-05 06 07 08 09 10 11}; do
  for pair in $BUILDS; do
   b=${pair%%=*}; bin=${pair#*=}
   /usr/bin/time -f "%e %U %S" -o /tmp/gt-time $bin grade $l --kernels solutions > /tmp/gt-$l-$b.txt 2>&1
   read e u s < /tmp/gt-time
   v=$(grep -cE "1 of 1 lessons pass" /tmp/gt-$l-$b.txt)
   echo "$round,$l,$b,$e,$(echo "$u + $s" | bc),$v" >> $out
  done
 done
done
