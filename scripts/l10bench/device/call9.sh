#!/bin/bash
# perf-10, device call 9: k-steps whose loads do not divide evenly (v17, TK=12, 20, 24), against v0; cuBLAS before and after;
# SASS statistics; Nsight Compute stall reasons for TK=12 (its PTX launched through CUDA).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
mkdir -p ev
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $OUT/summary.txt
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 500 > $OUT/smi.csv 2>&1) &
SMI=$!
python3 cublas_sgemm.py 1024 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -6 | tee -a $OUT/summary.txt
timeout 300 ./l10bench jobs9.txt ev 150 > $OUT/bench_stdout.txt 2> ev/bench_stderr.txt
python3 cublas_sgemm.py 1024 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -6 | tee -a $OUT/summary.txt
kill $SMI
cp ev/bench.csv $OUT/bench.csv
cut -d, -f4,6-8,9-13 $OUT/bench.csv | cut -c1-220
for f in ev/*.ptx; do
  n=$(basename $f .ptx); tr -d '\000' < $f > ev/$n.clean.ptx
  ptxas -v -arch=sm_90a -o ev/$n.cubin ev/$n.clean.ptx > ev/$n.ptxas.txt 2>&1
  cuobjdump -sass ev/$n.cubin > ev/$n.sass 2>&1
  { echo "== $n"; grep -E "registers|spill" ev/$n.ptxas.txt; python3 sass_loop.py $n < ev/$n.sass; python3 sass_banks.py $n < ev/$n.sass; python3 sass_ldg.py $n < ev/$n.sass; } >> $OUT/sass.txt 2>&1
done
grep -E "^==|Used|loop" $OUT/sass.txt
M='--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active'
timeout 45 ncu --clock-control none -k matmul --launch-skip 3 --launch-count 1 $M python3 ptx_run.py ev/g_tk12.ptx 128 256 8 16 > $OUT/ncu_g_tk12.txt 2>&1
for f in $OUT/ncu_*.txt; do echo "== $f"; grep -E "stalled|issue_active|pipe_fma|TFLOP" $f | awk '$NF+0 > 0.02 || /TFLOP|issue|fma/' ; done
tar czf $OUT/evidence.tgz ev
