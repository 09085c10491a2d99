#!/bin/bash
# Call 1: lesson 11's reference tuned by the course's tuner (`lab-bench tune --lesson 11`) at
# cubes and at long, flat and small-and-deep shapes, each combination the grader checks and
# what the lesson ran there before (its rule by shape) timed by the course's protocol (fresh
# inputs every call, each checked, behind a lead-in); the winners appended to
# results/tuned.csv on the device, then lesson 11 timed by the ladder at the same shapes with
# them, so that the ladder's rows show what the lesson now picks.
set -u
D=${LAB_BIN:-$PWD/device-bin/g32t}  # the binaries' folder; call2.sh names another
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
sha1sum solutions/11_matrix_units.cl $D/lab-bench | tee -a $L
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H100*) G=h100 ;; *H200*) G=h200 ;; *) G=gpu ;;
esac
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-$G-tuned
echo "run $RUN" | tee -a $L
cp results/tuned.csv $OUT/tuned-before.csv
SHAPES="8192x8192x1024 1024x8192x8192 8192x1024x8192 12288x4096x3072 1024x1024x8192 512x512x8192 4096x4096x512 1024 2048 4096 8192"
for s in $SHAPES; do
  echo "== tune $s (t=${SECONDS}s)" | tee -a $L
  timeout 90 $D/lab-bench tune --lesson 11 --shape $s --time-ms 200 --top 6 --write 2>&1 | grep -v "new best" | tee -a $L
done
cp results/tuned.csv $OUT/tuned-after.csv
LEFT=$((570 - SECONDS))
echo "== ladder: lesson 11 with the winners (t=${SECONDS}s, ${LEFT}s left)" | tee -a $L
timeout $LEFT $D/lab-bench ladder --lessons 11 --sizes 1024,2048,4096,8192 \
  --shapes 8192x8192x1024,1024x8192x8192,8192x1024x8192,12288x4096x3072,1024x1024x8192,512x512x8192,4096x4096x512 \
  --no-variants --cpu-max 64 --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
echo "done t=${SECONDS}s" | tee -a $L
