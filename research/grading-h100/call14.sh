#!/bin/bash
# After the work-group ids every build sees (src/harness/groups.rs: the identity on a device)
# and the thin shapes (src/grade/shapes.rs): every reference of 04-12 by `lab grade` on the
# GPU, then lessons 10 and 11 (and the warp group) by the ladder at 1024, 4096 and a ragged
# shape, to compare with the builds before.
set -u
D=$PWD/device-bin/g32
export LAB_ROOT=$PWD
mkdir -p $OUT/r
L=$OUT/r/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $D/lab-bench | tee -a $L
echo "== grade (t=${SECONDS}s)" | tee -a $L
timeout 330 $D/lab grade 4 5 6 7 8 9 10 11 12 --device NVIDIA --kernels solutions 2>&1 | cut -c1-400 | tee -a $L
echo "== ladder (t=${SECONDS}s)" | tee -a $L
LAB_DEVICE=NVIDIA timeout 200 $D/lab-bench ladder --lessons 10,11 --no-peers --sizes 1024,4096 --shapes 2048x2048x2047 \
  --cpu-max 64 --run "$(date -u +%Y-%m-%dT%H:%M:%SZ)-g32" --out $OUT/r/ladder.csv 2>&1 | grep -v "^STEPS" | tee -a $L
date -u | tee -a $L
echo "== done (t=${SECONDS}s)" | tee -a $L
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
