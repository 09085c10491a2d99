#!/bin/bash
# Lesson 11's reference graded by `lab grade 11`, the build before the unit's products were
# scaled (8ead811) and this checkout, each with a PoCL cache of its own: cold (emptied), then
# warm (the same cache again), alternating, two rounds.
out=$1; echo "round,build,cache,seconds,result" > $out
for round in 1 2; do
  for b in old new; do
    if [ $b = old ]; then L=/tmp/old/target/release/lab; R=/tmp/old; else L=/work/main/target/release/lab; R=/work/main; fi
    export POCL_CACHE_DIR=/tmp/pc-$b; rm -rf $POCL_CACHE_DIR; mkdir -p $POCL_CACHE_DIR
    for cache in cold warm; do
      s=$(date +%s.%N)
      (cd $R && LAB_ROOT=$R $L grade --kernels $R/solutions 11 > /tmp/gt/$b-$cache-$round.log 2>&1)
      e=$(date +%s.%N)
      r=$(grep -c PASSED /tmp/gt/$b-$cache-$round.log)
      echo "$round,$b,$cache,$(echo "$e - $s" | bc),$r" >> $out
    done
  done
done
