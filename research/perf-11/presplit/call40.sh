#!/bin/bash
# Call 40 (session 9, 2026-11-30, kind nvidia-h200): why the pre-split product is slower. The
# main loops' SASS (ptxas -v for sm_90a, cuobjdump, research/perf-11/scripts/loop.py); the split
# taken apart (SPLIT_A, SPLIT_B: each operand either split by the pass or only put in fragment
# order by it and split in the loop); Nsight Compute on the solution, the pre-split product and
# the product on operands only reordered, at 4096 (prof.cu launches their PTX through CUDA).
# Run from the repository root as `bash DIR/call40.sh`, DIR as for call39.sh plus prof.cu.
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin
export PYTHONUNBUFFERED=1 L11_PLATFORM=NVIDIA L11_MMA=$D/mma.cl L11_SOL=$D/11_matrix_units.cl L11_PS_DIR=$D
L=$OUT/log.txt
date -u +%FT%TZ | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,memory.total --format=csv 2>&1 | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 2000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
sha1sum $D/11_matrix_units.cl $D/mma.cl $D/split.cl $D/presplit.cl $D/host.c $D/prof.cu | tee -a $L
gcc -O2 -o /tmp/pshost $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
nvcc -O2 -o /tmp/prof $D/prof.cu -lcuda 2>&1 | tail -3 | tee -a $L
H=/tmp/pshost
B128="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"
r() { echo "== t=${SECONDS}s $1 $2 $3 | $5 $6 $7 | ${*:8}" | tee -a $L; timeout ${TO:-150} $H "$@" 2>&1 | tee -a $L; }
S00="ps|-D SPLIT_A=0 -D SPLIT_B=0"
echo "#### checks: ragged, every element, against float64 and bit for bit against the solution" | tee -a $L
r 259 133 301 "$B128" 3 0 1 sol "$S00" "ps|-D SPLIT_A=0" "ps|-D SPLIT_B=0" ps "$S00 -D STAGES=3"
r 1000 777 513 "$B128" 3 0 0 sol "$S00" "ps|-D SPLIT_A=0" "ps|-D SPLIT_B=0"
echo "#### SASS: PTX (NULs dropped, %envreg -> 0), ptxas -v sm_90a, main-loop counts" | tee -a $L
mkdir -p /tmp/ptx
L11_PTX=/tmp/ptx r 256 256 256 "$B128" 1 0 0 sol ps "ps|-D LAYOUT=1" "$S00" "ps|-D SPLIT_A=0" "ps|-D SPLIT_B=0" \
  "ps|-D BK=16 -D STAGES=3 -D CHAIN=1" > /dev/null
for f in /tmp/ptx/*.ptx; do
  n=$(basename $f .ptx)
  tr -d '\000' < $f | sed -E 's/%envreg[0-9]+/0/g' > /tmp/ptx/$n.clean.ptx
  { echo "== $n"; timeout 60 ptxas -v -arch=sm_90a -o /tmp/ptx/$n.cubin /tmp/ptx/$n.clean.ptx > /tmp/ptx/$n.ptxas 2>&1;
    grep -E "Used|spill" /tmp/ptx/$n.ptxas || head -5 /tmp/ptx/$n.ptxas;
    cuobjdump -sass /tmp/ptx/$n.cubin > /tmp/ptx/$n.sass 2>&1 && python3 research/perf-11/scripts/loop.py /tmp/ptx/$n.sass; } >> $OUT/evidence.txt 2>&1
done
cat $OUT/evidence.txt | tee -a $L
echo "#### timings: 50 calls back to back + 10 after 15 ms idle, each token" | tee -a $L
W=(sol ps "$S00" "ps|-D SPLIT_A=0" "ps|-D SPLIT_B=0" "$S00 -D STAGES=3" sol)
TO=200 r 2048 2048 2048 "$B128" 50 10 0 "${W[@]}"
TO=200 r 4096 4096 4096 "$B128" 50 10 0 "${W[@]}"
TO=250 r 8192 8192 8192 "$B128" 50 10 0 "${W[@]}"
echo "#### CUDA-driver launches of the same PTX at 4096 (t=${SECONDS}s)" | tee -a $L
for t in "tok0-sol 0" "tok1-ps 1" "tok2-ps 1" "tok3-ps 1" "tok4-ps 1" "tok5-ps 1"; do
  set -- $t; timeout 60 /tmp/prof /tmp/ptx/$1.clean.ptx $2 4096 20 2>&1 | tee -a $L
done
echo "#### Nsight Compute (--set full, one launch at 4096) (t=${SECONDS}s)" | tee -a $L
for t in "tok0-sol 0 sol" "tok1-ps 1 ps" "tok3-ps 1 ps00"; do
  set -- $t
  timeout 120 ncu -f --set full -k matmul -c 1 -o /tmp/$3 /tmp/prof /tmp/ptx/$1.clean.ptx $2 4096 1 2>&1 | tail -2 | tee -a $L
  ncu -i /tmp/$3.ncu-rep --page details > $OUT/ncu-$3-details.txt 2>&1
  ncu -i /tmp/$3.ncu-rep --page source --csv --print-source sass > /tmp/$3-source.csv 2>&1
  python3 research/perf-11/scripts/prof/stalls.py /tmp/$3-source.csv > $OUT/ncu-$3-stalls.txt 2>&1
  echo "-- $3 (t=${SECONDS}s)" | tee -a $L
  grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Issue Slots Busy|Issued Ipc|Eligible Warps|Active Warps Per|No Eligible|Registers Per|Shared Memory Configuration Size|Block Limit" $OUT/ncu-$3-details.txt | head -30 | tee -a $L
  head -14 $OUT/ncu-$3-stalls.txt | tee -a $L
done
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
