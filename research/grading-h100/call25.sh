#!/bin/bash
# On an H100 (asked for nvidia-h100-x1): grading time of issue 30 as a whole, the build before
# its first commit (52e1c29, `lab-before`, grading its own tree, carried as a tar of that
# commit) against 739836c's code (`lab`), `lab grade NN --device NVIDIA --kernels solutions`
# for lessons 04-11, each build with its own tree as LAB_ROOT, the order of the builds swapped
# every round, one warm-up round not recorded, then three. NVIDIA's kernel cache off. No
# Oclgrind, PoCL or Rust on the device, so the CPU lessons are not graded here.
set -u
NOW_TREE=$PWD
BEFORE_TREE=$(mktemp -d)
tar -xzf device-bin/g30/before-tree.tar.gz -C "$BEFORE_TREE"
export CUDA_CACHE_DISABLE=1
L=$OUT/log.txt
CSV=$OUT/times.csv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
sha1sum device-bin/g30/lab device-bin/g30/lab-before | tee -a $L
echo "round,lesson,build,seconds,verdict" > $CSV
for round in 0 1 2 3; do
  order="before now"; [ $((round % 2)) = 1 ] && order="now before"
  for les in 04 05 06 07 08 09 10 11; do
    for b in $order; do
      case $b in
        before) tree=$BEFORE_TREE; bin=$NOW_TREE/device-bin/g30/lab-before;;
        now) tree=$NOW_TREE; bin=$NOW_TREE/device-bin/g30/lab;;
      esac
      t0=$(date +%s.%N)
      r=$(cd "$tree" && LAB_ROOT=$tree timeout 300 "$bin" grade $les --device NVIDIA --kernels solutions 2>&1 | grep -E "^  (PASSED|FAIL|[A-Z]{4,})" | head -1 | cut -c1-120)
      t1=$(date +%s.%N)
      s=$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")
      echo "round $round lesson $les $b: $s s: $r" | tee -a $L
      [ $round = 0 ] || echo "$round,$les,$b,$s,\"$r\"" >> $CSV
    done
  done
done
date -u | tee -a $L
