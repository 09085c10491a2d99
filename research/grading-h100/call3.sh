#!/bin/bash
# Matrix unit rate (lesson 00), the references' verdicts on NVIDIA's OpenCL (--record-compat),
# the asked-size and power-of-two kernels, and the reference as ten students (ties).
mkdir -p /etc/OpenCL/vendors; echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LAB_ROOT=$PWD
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; git log --oneline -1 2>/dev/null
echo "== lesson 00"; device-bin/00_your_device --device H100 --record 2>&1
echo "== references 04-11, record-compat"
L="--lesson 4 --lesson 5 --lesson 6 --lesson 7 --lesson 8 --lesson 9 --lesson 10 --lesson 11"
device-bin/lab --device H100 --kernels solutions $L --record-compat 2>&1
echo "== wrong at the asked size / at powers of two"
device-bin/lab --device H100 --kernels device-bin/asked --lesson 4 2>&1 | grep -E "^\| 04|device:"
device-bin/lab --device H100 --kernels device-bin/pow2 --lesson 4 2>&1 | grep -E "^\| 04"
echo "== the reference as ten students, lessons 04 and 11"
cls=$(mktemp -d); for i in $(seq -w 1 10); do mkdir -p $cls/s$i; cp solutions/04_naive_kernel.cl solutions/11_matrix_units.cl $cls/s$i/; done
device-bin/lab-teacher class $cls --device H100 --lesson 4 --lesson 11 --size 1024 2>&1 | tail -30
cp $cls/gradebook.csv $OUT/gradebook.csv 2>/dev/null
cp results/peak.csv results/compat.csv $OUT/
