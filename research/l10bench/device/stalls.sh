#!/bin/bash
# perf-10, device calls 4-11 and 13: one jobs file of lesson 10 variants beside cuBLAS (measured before
# and after them), the SASS statistics of every job kept with `ptx`, and Nsight Compute's stall
# reasons for the named jobs (their PTX launched through CUDA; the name `cublas` profiles
# cuBLAS's own kernel). Usage, from the folder that holds l10bench, variants/ and the scripts:
#
#     bash stalls.sh jobs4.txt cublas v0_big a_s4_k8
cd "$(dirname "$0")"
jobs=$1; shift
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
mkdir -p ev
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $OUT/summary.txt
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 500 > $OUT/smi.csv 2>&1) &
SMI=$!
python3 cublas_sgemm.py 1024 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -6 | tee -a $OUT/summary.txt
timeout 300 ./l10bench $jobs ev 150 > $OUT/bench_stdout.txt 2> ev/bench_stderr.txt
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
for n in "$@"; do
  if [ "$n" = cublas ]; then
    timeout 60 ncu --clock-control none -k regex:gemm --launch-skip 3 --launch-count 1 $M python3 cublas_one.py 4096 > $OUT/ncu_cublas.txt 2>&1
  else
    # All profiled jobs are 128x256 tiles of 8x16 results per work-item.
    timeout 45 ncu --clock-control none -k matmul --launch-skip 3 --launch-count 1 $M python3 ptx_run.py ev/$n.ptx 128 256 8 16 > $OUT/ncu_$n.txt 2>&1
  fi
done
for f in $OUT/ncu_*.txt; do echo "== $f"; grep -E "stalled|issue_active|pipe_fma|TFLOP" $f | awk '$NF+0 > 0.02 || /TFLOP|issue|fma/' ; done
# With SOURCE=1, also Nsight Compute's source page (per-instruction warp-state samples of the
# SASS) for the named jobs, summarised by ncu_source.py (calls 12-13).
if [ -n "$SOURCE" ]; then
  S='--section WarpStateStats --section SourceCounters --section InstructionStats'
  for n in "$@"; do
    if [ "$n" = cublas ]; then
      timeout 120 ncu --clock-control none -k regex:gemm --launch-skip 3 --launch-count 1 $S -o ev/rep_$n python3 cublas_one.py 4096 > ev/ncu_src_$n.log 2>&1
    else
      timeout 120 ncu --clock-control none -k matmul --launch-skip 3 --launch-count 1 $S -o ev/rep_$n python3 ptx_run.py ev/$n.ptx 128 256 8 16 > ev/ncu_src_$n.log 2>&1
    fi
    ncu -i ev/rep_$n.ncu-rep --page source --print-source sass --csv > ev/src_$n.csv 2> ev/src_$n.err
    echo "== source page: $n"; python3 ncu_source.py ev/src_$n.csv
  done
fi
tar czf $OUT/evidence.tgz ev
