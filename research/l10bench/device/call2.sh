#!/bin/bash
# perf-10, device call 2: Nsight Compute on lesson 10's kernel and on cuBLAS; register caps; no-guard upper bound.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1
mkdir -p ev
S="--section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section SourceCounters --section InstructionStats"
echo "== ncu on cuBLAS" > ev/ncu.txt
timeout 90 ncu --clock-control none -k regex:gemm --launch-skip 3 --launch-count 1 $S python3 cublas_one.py 4096 >> ev/ncu.txt 2>&1
echo "== ncu on the OpenCL process" >> ev/ncu.txt
echo "ncu1 variants/v0_base.cl 4096 TSM=128 TSN=256 TSK=16 WPTM=8 WPTN=16" > ev/one.txt
timeout 60 ncu --clock-control none --launch-count 2 $S ./l10bench ev/one.txt ev/ncu_ocl 50 >> ev/ncu.txt 2>&1
echo "== PTX through CUDA" >> ev/ncu.txt
timeout 45 python3 ptx_run.py v0_big.ptx 128 256 8 16 >> ev/ncu.txt 2>&1
timeout 90 ncu --clock-control none -k matmul --launch-skip 3 --launch-count 1 $S python3 ptx_run.py v0_big.ptx 128 256 8 16 >> ev/ncu.txt 2>&1
grep -E "^==|Warp Cycles|Stall|Issued Ipc|Achieved Occupancy|Registers Per|Block Size|Shared Memory Config|Theoretical Occ|No Eligible|Eligible Warps|Active Warps|GFLOP|kernel:|matmul|gemm|Executed Ipc|Issue Slots|error|ERR" ev/ncu.txt | head -80
timeout 240 ./l10bench jobs2.txt ev 200 > $OUT/bench_stdout.txt 2> ev/bench_stderr.txt
cp ev/bench.csv $OUT/bench.csv
for f in ev/*.ptx; do
  n=$(basename $f .ptx)
  tr -d '\000' < $f > ev/$n.clean.ptx
  ptxas -v -arch=sm_90a -o ev/$n.cubin ev/$n.clean.ptx > ev/$n.ptxas.txt 2>&1
  cuobjdump -sass ev/$n.cubin > ev/$n.sass 2>&1
done
tar czf $OUT/evidence.tgz ev
cut -d, -f4,9-13 $OUT/bench.csv
