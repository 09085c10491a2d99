#!/bin/bash
# perf-10, device call 1: baseline and variants of lesson 10 on the H100, compiler evidence, cuBLAS.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $OUT/summary.txt
(nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,clocks_event_reasons.active --format=csv -lms 200 > $OUT/smi.csv 2>&1) &
SMI=$!
date +%s.%N > $OUT/phases.txt; echo cublas1 >> $OUT/phases.txt
python3 cublas_sgemm.py 1024 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tee -a $OUT/summary.txt
date +%s.%N >> $OUT/phases.txt; echo bench >> $OUT/phases.txt
mkdir -p ev
timeout 420 ./l10bench jobs1.txt ev 200 > $OUT/bench_stdout.txt 2> ev/bench_stderr.txt
date +%s.%N >> $OUT/phases.txt; echo cublas2 >> $OUT/phases.txt
python3 cublas_sgemm.py 4096 8192 --csv $OUT/cublas.csv 2>&1 | tee -a $OUT/summary.txt
date +%s.%N >> $OUT/phases.txt
kill $SMI
cp ev/bench.csv $OUT/bench.csv
which ptxas cuobjdump >> $OUT/summary.txt 2>&1; ptxas --version | tail -1 >> $OUT/summary.txt
for f in ev/*.ptx; do
  n=$(basename $f .ptx)
  ptxas -v -arch=sm_90 -o ev/$n.cubin $f > ev/$n.ptxas.txt 2>&1
  cuobjdump -sass ev/$n.cubin > ev/$n.sass 2>&1
  { echo "== $n"; grep -E "registers|spill|stack" ev/$n.ptxas.txt; grep -E "registers|spill" ev/$n.log; python3 sass_loop.py $n < ev/$n.sass; } >> $OUT/summary.txt
done
tar czf $OUT/evidence.tgz ev
column -s, -t < <(cut -d, -f4,6,9-13 $OUT/bench.csv) | cut -c1-200
