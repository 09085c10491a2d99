#!/bin/bash
# Session 6, call 29: lesson 11's PTX (from NVIDIA's OpenCL compiler) launched through the CUDA
# driver API by prof/h.cu (the group offsets OpenCL keeps in %envreg0-1 set to 0), and measured by
# Nsight Compute (stall reasons, issue, pipes)
D=$PWD/.dev/w25
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
R=/tmp/ev; rm -rf $R
$D/bin/lab evidence --lessons 11 --solution --size 4096 --out $R > /tmp/ev.log 2>&1 || tail -5 /tmp/ev.log
f=$(ls $R/*.ptx | head -1); tr -d "\000" < $f | sed -E "s/%envreg[0-9]+/0/" > /tmp/k.ptx; cp /tmp/k.ptx $OUT/k.ptx
cd $D/prof && nvcc -O2 -o /tmp/h h.cu -lcuda 2>&1 | tail -3 | tee -a $L
rm -f /tmp/rep.ncu-rep
for s in 4096 8192; do /tmp/h /tmp/k.ptx $s 20 | tee -a $L; done
timeout 200 ncu -f --set full -k matmul -c 1 -o /tmp/rep /tmp/h /tmp/k.ptx 4096 1 2>&1 | tail -5 | tee -a $L
ncu -i /tmp/rep.ncu-rep --page details > $OUT/details.txt 2>&1
ncu -i /tmp/rep.ncu-rep --page source --csv --print-source sass > $OUT/source.csv 2>&1
ncu -i /tmp/rep.ncu-rep --page raw --csv > $OUT/raw.csv 2>&1
cp /tmp/rep.ncu-rep $OUT/
grep -E "Warp Cycles|Issued|Eligible|Active Warps|No Eligible|Stall|Throughput|Registers|Achieved|Theoretical" $OUT/details.txt | head -60 | tee -a $L
