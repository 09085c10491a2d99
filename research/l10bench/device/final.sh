#!/bin/bash
# perf-10, the final measurement on one device: tune lesson 10 (size-ordered space, budgeted),
# then lesson 10 beside CLBlast (the ladder) and cuBLAS, and the compiler's evidence for the
# tuned kernels. Usage: bash .devrun/final.sh TUNE_SIZES ("4096:40 2048:40 1024:56", or "" to skip)
cd "$(dirname "$0")/.."
export LAB_ROOT=$PWD/.devrun LD_LIBRARY_PATH=$PWD/.devrun/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1
export CLBLAST_LIBRARY=$PWD/.devrun/lib/libclblast.so.1 PATH=$PATH:/usr/local/cuda/bin
R=.devrun/results; mkdir -p .devrun/ev
# The ladder's file for this device (its name in the ladder's file-name form): cuBLAS's rows go beside.
CSV=$R/$(nvidia-smi --query-gpu=name --format=csv,noheader | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g').csv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $OUT/log.txt
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 500 > $OUT/smi.csv 2>&1) &
SMI=$!
for st in $1; do
  s=${st%:*}; b=${st#*:}
  echo "== tune --size $s --budget $b" | tee -a $OUT/log.txt
  timeout 240 .devrun/bin/tune --size $s --budget $b --time-ms 100 --top 12 --write 2>&1 | grep -v "new best\|^\s*$" | tee -a $OUT/log.txt
done
echo "== cuBLAS (before)" | tee -a $OUT/log.txt
python3 .devrun/cublas_sgemm.py 1024 2048 4096 8192 --csv $CSV 2>&1 | tee -a $OUT/log.txt
echo "== ladder: lesson 10 and CLBlast" | tee -a $OUT/log.txt
timeout 300 .devrun/bin/ladder --lessons 10 --sizes 1024,2048,4096,8192 2>&1 | tee -a $OUT/log.txt
echo "== cuBLAS (after)" | tee -a $OUT/log.txt
python3 .devrun/cublas_sgemm.py 1024 2048 4096 8192 --csv $CSV 2>&1 | tee -a $OUT/log.txt
kill $SMI
# Evidence: the kernel as tuned for each size, built with -cl-nv-verbose, its PTX through ptxas -v.
python3 - <<'PY' > .devrun/ev/jobs.txt
import csv
rows = list(csv.DictReader(open(".devrun/results/tuned.csv")))
import subprocess
dev = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
best = {}
for r in rows:
    if r["device"].strip() == dev:
        best[r["size"]] = r["defines"]
for s, d in sorted(best.items(), key=lambda x: int(x[0])):
    print(f"final_{s} .devrun/solutions/10_tuned.cl {s} {d} ptx")
PY
cat .devrun/ev/jobs.txt | tee -a $OUT/log.txt
.devrun/l10bench .devrun/ev/jobs.txt .devrun/ev 200 2>/dev/null | tee -a $OUT/log.txt
for f in .devrun/ev/*.ptx; do
  n=$(basename $f .ptx); tr -d '\000' < $f > .devrun/ev/$n.clean.ptx
  ptxas -v -arch=sm_90a -o .devrun/ev/$n.cubin .devrun/ev/$n.clean.ptx > .devrun/ev/$n.ptxas.txt 2>&1
  cuobjdump -sass .devrun/ev/$n.cubin > .devrun/ev/$n.sass
  { echo "== $n"; cat .devrun/ev/$n.ptxas.txt; python3 .devrun/sass_loop.py $n < .devrun/ev/$n.sass; python3 .devrun/sass_ctrl.py $n < .devrun/ev/$n.sass; python3 .devrun/sass_banks.py $n < .devrun/ev/$n.sass; } >> .devrun/ev/sass-stats.txt 2>&1
done
cp $R/tuned.csv $OUT/tuned.csv; cp $CSV $OUT/
tar czf $OUT/evidence.tgz -C .devrun ev
grep -E "reference|clblast|cublas|GFLOP/s  max|^  [0-9 ]{5} " $OUT/log.txt | tail -40
