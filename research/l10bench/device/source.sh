#!/bin/bash
# perf-10, device call 12: Nsight Compute's per-instruction warp-state samples (the source page,
# SASS view) for cuBLAS's SGEMM kernel and for the named jobs' PTX launched through CUDA, at 4096.
# Usage, from the folder that holds l10bench, variants/ and the scripts:
#
#     bash source.sh jobs12.txt cublas v0_big
cd "$(dirname "$0")"
jobs=$1; shift
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
mkdir -p ev
ncu --version | tail -1
timeout 200 ./l10bench $jobs ev 150 > $OUT/bench_stdout.txt 2> ev/bench_stderr.txt
cp ev/bench.csv $OUT/bench.csv
cut -d, -f4,6-8,9-13 $OUT/bench.csv | cut -c1-220
S='--section WarpStateStats --section SourceCounters --section InstructionStats'
for n in "$@"; do
  if [ "$n" = cublas ]; then
    timeout 120 ncu --clock-control none -k regex:gemm --launch-skip 3 --launch-count 1 $S -o ev/rep_$n python3 cublas_one.py 4096 > ev/ncu_$n.log 2>&1
  else
    timeout 120 ncu --clock-control none -k matmul --launch-skip 3 --launch-count 1 $S -o ev/rep_$n python3 ptx_run.py ev/$n.ptx 128 256 8 16 > ev/ncu_$n.log 2>&1
  fi
  tail -3 ev/ncu_$n.log
  ncu -i ev/rep_$n.ncu-rep --page source --print-source sass --csv > $OUT/src_$n.csv 2> $OUT/src_$n.err
  wc -l $OUT/src_$n.csv; head -c 600 $OUT/src_$n.csv; echo; head -c 300 $OUT/src_$n.err
done
