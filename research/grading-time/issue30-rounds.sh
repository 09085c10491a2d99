#!/bin/bash
# `lab grade NN --kernels solutions` for lessons 01-11, the build before issue 30's first
# commit (52e1c29, built in its own worktree $BEFORE_TREE) and this one, each grading its own
# tree's references, the order of the two builds swapped every round; one round first that is
# not recorded (each build's first grading of a CPU lesson compiles it). Wall and CPU seconds
# (user + system, children included).
# Usage: BEFORE_TREE=/tmp/before30 ROUNDS=3 research/grading-time/issue30-rounds.sh OUT.csv
set -u
now_tree=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?the CSV to write}
rounds=${ROUNDS:-3}
echo "round,lesson,build,seconds,cpu_seconds,passed" > "$out"
for round in $(seq 0 "$rounds"); do
  for l in ${LESSONS:-01 02 03 03b 04 05 06 07 08 09 10 11}; do
    order="before now"; [ $((round % 2)) = 1 ] && order="now before"
    for b in $order; do
      case $b in before) tree=$BEFORE_TREE;; now) tree=$now_tree;; esac
      (cd "$tree" && /usr/bin/time -f "%e %U %S" -o /tmp/gt-time target/release/lab grade "$l" \
        --kernels solutions > "/tmp/gt-$l-$b.txt" 2>&1)
      read -r e u s < /tmp/gt-time
      v=$(grep -cE "1 of 1 lessons pass" "/tmp/gt-$l-$b.txt")
      [ "$round" = 0 ] || echo "$round,$l,$b,$e,$(echo "$u + $s" | bc),$v" >> "$out"
    done
  done
done
