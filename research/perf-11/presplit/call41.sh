#!/bin/bash
# Call 41 (session 9, 2026-11-30, kind nvidia-h200): the same PTX, built two ways. OpenCL's
# driver builds lesson 11's PTX for sm_90a; CUDA's driver (prof.cu) JIT-compiles it itself. Here
# each PTX (the solution, the pre-split product, the product on reordered operands, A reordered
# and B split) is built by ptxas for sm_90a and for sm_90, and the two cubins and the PTX are
# launched through CUDA at 4096; Nsight Compute on the sm_90a cubins of the solution and the
# pre-split product. Run from the repository root as `bash DIR/call41.sh` (DIR as call40.sh).
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin
export L11_PLATFORM=NVIDIA L11_MMA=$D/mma.cl L11_SOL=$D/11_matrix_units.cl L11_PS_DIR=$D
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1 | tee -a $L
ptxas --version | tail -1 | tee -a $L
sha1sum $D/11_matrix_units.cl $D/mma.cl $D/split.cl $D/presplit.cl $D/host.c $D/prof.cu | tee -a $L
gcc -O2 -o /tmp/pshost $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
nvcc -O2 -o /tmp/prof $D/prof.cu -lcuda 2>&1 | tail -3 | tee -a $L
B128="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"
rm -rf /tmp/p41; mkdir -p /tmp/p41
L11_PTX=/tmp/p41 timeout 100 /tmp/pshost 256 256 256 "$B128" 1 0 0 sol ps "ps|-D SPLIT_A=0 -D SPLIT_B=0" "ps|-D SPLIT_A=0" 2>&1 | grep -E "RESULT|ptxas" | cut -c1-160 | tee -a $L
echo "#### each PTX: its target, ptxas -v for sm_90a and sm_90, main-loop counts" | tee -a $L
for n in tok0-sol tok1-ps tok2-ps tok3-ps; do
  tr -d '\000' < /tmp/p41/$n.ptx | sed -E 's/%envreg[0-9]+/0/g' > /tmp/p41/$n.clean.ptx
  echo "== $n: $(grep -E '^\.(version|target)' /tmp/p41/$n.clean.ptx | tr '\n' ' ')" | tee -a $L
  for a in sm_90a sm_90; do
    timeout 60 ptxas -v -arch=$a -o /tmp/p41/$n-$a.cubin /tmp/p41/$n.clean.ptx > /tmp/p41/$n-$a.txt 2>&1
    cuobjdump -sass /tmp/p41/$n-$a.cubin > /tmp/p41/$n-$a.sass 2>&1
    { echo "-- $a: $(grep -E 'spill' /tmp/p41/$n-$a.txt | tr -s ' ')"; python3 research/perf-11/scripts/loop.py /tmp/p41/$n-$a.sass | tail -2; } | tee -a $L
  done
done
echo "#### CUDA launches at 4096, 20 each, twice: the PTX (CUDA's JIT), the sm_90a cubin, the sm_90 cubin" | tee -a $L
for rep in 1 2; do
  for t in "tok0-sol 0" "tok1-ps 1" "tok2-ps 1" "tok3-ps 1"; do
    set -- $t
    for f in $1.clean.ptx $1-sm_90a.cubin $1-sm_90.cubin; do timeout 60 /tmp/prof /tmp/p41/$f $2 4096 20 2>&1 | tee -a $L; done
  done
done
echo "#### Nsight Compute (--set full, one launch at 4096) on the sm_90a cubins (t=${SECONDS}s)" | tee -a $L
for t in "tok0-sol 0 sol90a" "tok1-ps 1 ps90a"; do
  set -- $t
  timeout 120 ncu -f --set full -k matmul -c 1 -o /tmp/$3 /tmp/prof /tmp/p41/$1-sm_90a.cubin $2 4096 1 2>&1 | tail -1 | tee -a $L
  ncu -i /tmp/$3.ncu-rep --page details > $OUT/ncu-$3-details.txt 2>&1
  ncu -i /tmp/$3.ncu-rep --page source --csv --print-source sass > /tmp/$3-source.csv 2>&1
  python3 research/perf-11/scripts/prof/stalls.py /tmp/$3-source.csv > $OUT/ncu-$3-stalls.txt 2>&1
  echo "-- $3 (t=${SECONDS}s)" | tee -a $L
  grep -E "Duration|SM Frequency|L2 Cache Throughput|L1/TEX Cache Throughput|Issue Slots Busy|Eligible Warps|highest-utilized pipeline \(" $OUT/ncu-$3-details.txt | head -12 | tee -a $L
  head -12 $OUT/ncu-$3-stalls.txt | tee -a $L
done
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
