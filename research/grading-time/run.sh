#!/usr/bin/env bash
# Old (775358a) and new (main) lab-teacher autograde, lesson by lesson, alternating.
set -u
# Expects the older build in /tmp/old (git worktree add /tmp/old 775358a) and this checkout in /work/main, both built.
out=/tmp/gt/times.csv
echo "lesson,build,seconds,score" > $out
for l in 01 02 03 03b 04 05 06 07 08 09 10 11; do
  for b in old new; do
    if [ $b = old ]; then dir=/tmp/old; else dir=/work/main; fi
    cd $dir
    s=$(date +%s.%N)
    target/release/lab-teacher autograde --submission solutions --results /tmp/gt/$b-$l.json --lesson $l > /tmp/gt/$b-$l.log 2>&1
    e=$(date +%s.%N)
    score=$(python3 -c "import json;print(json.load(open('/tmp/gt/$b-$l.json'))['score'])" 2>/dev/null)
    echo "$l,$b,$(echo "$e - $s" | bc),$score" >> $out
  done
done
for b in old new; do
  if [ $b = old ]; then dir=/tmp/old; else dir=/work/main; fi
  cd $dir
  s=$(date +%s.%N)
  target/release/lab-teacher autograde --submission solutions --results /tmp/gt/$b-all.json > /tmp/gt/$b-all.log 2>&1
  e=$(date +%s.%N)
  echo "all,$b,$(echo "$e - $s" | bc),$(python3 -c "import json;print(json.load(open('/tmp/gt/$b-all.json'))['score'])" 2>/dev/null)" >> $out
done
echo done >> $out
