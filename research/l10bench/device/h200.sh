#!/bin/bash
# perf-10 on a GPU lesson 10 was not tuned on (H200): untuned (the rows of a device with the
# same signature, else the defaults) beside cuBLAS; then tuned on this device, again beside
# cuBLAS and CLBlast. One command.
cd "$(dirname "$0")/.."
export LAB_ROOT=$PWD/.devrun LD_LIBRARY_PATH=$PWD/.devrun/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1
export CLBLAST_LIBRARY=$PWD/.devrun/lib/libclblast.so.1 PATH=$PATH:/usr/local/cuda/bin
R=.devrun/results; mkdir -p .devrun/ev
CSV=$R/$(nvidia-smi --query-gpu=name --format=csv,noheader | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g').csv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $OUT/log.txt
echo "== rows of tuned.csv before: devices" | tee -a $OUT/log.txt; cut -d, -f2 $R/tuned.csv | sort | uniq -c | tee -a $OUT/log.txt
echo "== the old fallback (defaults 128x128x16, 8x8), for reference" | tee -a $OUT/log.txt
for s in 1024 2048 4096 8192; do echo "defaults .devrun/solutions/10_tuned.cl $s TSM=128 TSN=128 TSK=16 WPTM=8 WPTN=8 ALONGK=0"; done > .devrun/ev/jobs.txt
.devrun/l10bench .devrun/ev/jobs.txt .devrun/ev 200 2> .devrun/ev/deviceinfo.txt | tee -a $OUT/log.txt
cat .devrun/ev/deviceinfo.txt >> $OUT/log.txt
echo "== cuBLAS (1)" | tee -a $OUT/log.txt
python3 .devrun/cublas_sgemm.py 1024 2048 4096 8192 --csv $CSV 2>&1 | tee -a $OUT/log.txt
echo "== ladder, untuned: lesson 10 with what it picks on its own" | tee -a $OUT/log.txt
timeout 200 .devrun/bin/ladder --lessons 10 --sizes 1024,2048,4096,8192 --no-variants 2>&1 | tee -a $OUT/log.txt
for st in "4096:40" "2048:40" "1024:56"; do
  s=${st%:*}; b=${st#*:}
  echo "== tune --size $s --budget $b" | tee -a $OUT/log.txt
  timeout 150 .devrun/bin/tune --size $s --budget $b --time-ms 100 --top 8 --write 2>&1 | grep -v "new best\|^\s*$" | tee -a $OUT/log.txt
done
echo "== ladder, tuned: lesson 10 and CLBlast" | tee -a $OUT/log.txt
timeout 200 .devrun/bin/ladder --lessons 10 --sizes 1024,2048,4096,8192 2>&1 | tee -a $OUT/log.txt
echo "== cuBLAS (2)" | tee -a $OUT/log.txt
python3 .devrun/cublas_sgemm.py 1024 2048 4096 8192 --csv $CSV 2>&1 | tee -a $OUT/log.txt
cp $R/tuned.csv $OUT/tuned.csv; cp $CSV $OUT/; cp .devrun/ev/bench.csv $OUT/defaults-bench.csv
grep -E "reference|clblast|GFLOP/s  max|^defaults|recorded|signature" $OUT/log.txt | cut -c1-160
