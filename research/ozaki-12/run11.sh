#!/bin/bash
# Call 11: confirmation of call 10's fastest pipeline: three alternating rounds of it and
# cuBLAS at 8192^3 (uniform), the sweep (2048, 4096, 8192 x 6/7/8 moduli, wide, 8192x8192x1024)
# with cuBLAS on the same shapes; then Nsight Compute on its gemm_s8 through prof/drv.cu.
D=research/ozaki-12
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
date -u | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,clocks.sm,temperature.gpu --format=csv 2>&1 | tee -a $L
gcc -O2 -DHAVE_CL_H -o /tmp/host $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
nvcc -O2 -o /tmp/drv $D/prof/drv.cu -lcuda 2>&1 | tail -3 | tee -a $L
H=/tmp/host
FIN="-D WM=64 -D WN=64 -D GROUPM=16 -D BK=128 -D STAGES=3 -D CONV=2 -D REC4=3 -D BATCH=1 -D RND=1 -D UMOD=1"
for a in "1000 777 513 7 uniform" "1000 777 513 7 wide" "1000 777 513 8 wide" "1000 777 513 6 uniform"; do
  timeout 40 $H $a 2 7 1 "$FIN" 2>&1 | grep -E "RESULT|rror" | cut -c1-420 | tee -a $L
done
for r in 1 2 3; do
  timeout 40 $H 8192 8192 8192 7 uniform 10 7 0 "$FIN" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L
  timeout 120 python3 $D/cublas.py 8192 8192 8192 uniform 20 7 2>&1 | tail -1 | tee -a $L
done
for a in "8192 8192 8192 6 uniform" "8192 8192 8192 8 uniform" "8192 8192 8192 7 wide" "8192 8192 1024 7 uniform" \
         "4096 4096 4096 6 uniform" "4096 4096 4096 7 uniform" "4096 4096 4096 8 uniform" "4096 4096 4096 7 wide" \
         "2048 2048 2048 7 uniform"; do
  timeout 40 $H $a 10 7 0 "$FIN" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L
done
for a in "8192 8192 1024 uniform" "4096 4096 4096 uniform" "4096 4096 4096 wide" "2048 2048 2048 uniform"; do
  timeout 120 python3 $D/cublas.py $a 20 7 2>&1 | tail -1 | tee -a $L
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u | tee -a $L
# Nsight Compute on this build's gemm_s8 (one modulus, p = 256 as grid z = 0), as call 6
tag=p_fin
OZAKI_PTX=/tmp/$tag.bin timeout 30 $H 256 256 256 7 uniform 1 7 0 "$FIN" > /dev/null 2>&1
tr -d "\000" < /tmp/$tag.bin | sed -E "s/%envreg[0-9]+/0/g" > /tmp/$tag.ptx
grep -E "^\.target|\.shared" /tmp/$tag.ptx | head -5 | tee -a $L
timeout 60 /tmp/drv /tmp/$tag.ptx 8192 10 128 128 128 256 2>&1 | tee -a $L
timeout 150 ncu -f --set full -k gemm_s8 -c 1 -o /tmp/$tag /tmp/drv /tmp/$tag.ptx 8192 1 128 128 128 256 2>&1 | tail -2 | tee -a $L
ncu -i /tmp/$tag.ncu-rep --page details > $OUT/$tag-details.txt 2>&1
ncu -i /tmp/$tag.ncu-rep --page source --csv --print-source sass > /tmp/$tag-source.csv 2>&1
python3 research/perf-11/scripts/prof/stalls.py /tmp/$tag-source.csv > $OUT/$tag-stalls.txt 2>&1
grep -E "Duration|SM Frequency|DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Eligible Warps|Active Warps Per|Registers Per|Achieved Occupancy|Theoretical Occupancy|L2 Hit Rate|Block Limit" $OUT/$tag-details.txt | tee -a $L
head -14 $OUT/$tag-stalls.txt | tee -a $L
date -u | tee -a $L
