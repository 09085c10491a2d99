#!/bin/bash
# Grading time of each OpenCL lesson's reference by `lab grade NN`, two builds in turn, each
# time a file the grader has not seen (a comment with a fresh number appended, so that no cache
# answers). BEFORE and AFTER name the two `lab` binaries, BEFORE_DIR and AFTER_DIR their
# checkouts (each binary grades from its own); seconds go to plugins.csv.
# Usage: BEFORE=../old/target/release/lab BEFORE_DIR=../old AFTER=target/release/lab AFTER_DIR=. \
#        research/grading-time/plugins-2026-12-06.sh
set -u
out=${OUT:-plugins.csv}; echo "lesson,build,round,seconds" > $out
for round in 1 2; do
  for l in 04 05 06 07 08 09 10 11 12; do
    for b in before after; do
      if [ $b = before ]; then bin=$(realpath $BEFORE); dir=$BEFORE_DIR; else bin=$(realpath $AFTER); dir=$AFTER_DIR; fi
      k=$(mktemp -d); cp $AFTER_DIR/solutions/* $k/
      f=$(ls $k | grep "^${l}_"); echo "// $RANDOM$RANDOM $b $round" >> $k/$f
      s=$(date +%s.%N)
      (cd $dir && LAB_PROGRESS=$k/progress.json $bin grade $l --kernels $k > $k/grade.log 2>&1)
      e=$(date +%s.%N)
      echo "$l,$b,$round,$(echo "$e - $s" | bc)" >> $out
      grep -h "lessons pass" $k/grade.log
      rm -rf $k
    done
  done
done
