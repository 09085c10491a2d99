#!/bin/bash
# Call 2 on the device (call 1 ran on PoCL's CPU platform by mistake): build host.c, check
# the pipeline on the GPU on small and ragged shapes (residues and every INT8 product checked
# against the host), three kernel variants at 4096, then 2048, 4096, 8192 and 8192x8192x1024
# with 6, 7, 8 moduli, wide-range inputs at 4096, and cuBLAS FP32 (TF32 off) on the same inputs.
D=research/ozaki-12
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
date -u | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv 2>&1 | tee -a $L
LIBCL=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1
gcc -O2 -DHAVE_CL_H -o /tmp/host $D/host.c $LIBCL -lm 2>&1 | tee -a $L
H=/tmp/host

echo "== correctness (check=1)" | tee -a $L
OZAKI_LOG=1 timeout 40 $H 256 256 256 8 uniform 3 7 1 2>&1 | tee -a $L
grep -q "DEVICE,NVIDIA" $L || { echo "not the NVIDIA device: stop" | tee -a $L; exit 1; }
for o in "" "-D LDSM=0"; do
  timeout 40 $H 1000 777 513 8 uniform 3 7 1 "$o" 2>&1 | grep -E "RESULT|rror" | tee -a $L
done
timeout 40 $H 1000 777 513 7 wide 3 7 1 2>&1 | grep -E "RESULT|rror" | tee -a $L
BEST="-D LDSM=0"
grep -F 'opts=""' $L | grep "M=1000" | grep -q "bad_gemm=0" && BEST=""
echo "timed configuration: '$BEST'" | tee -a $L

echo "== variants at 4096, 8 moduli" | tee -a $L
for o in "$BEST" "-D BK=32 -D STAGES=3" "-D BN=256 -D WN=64 -D BK=32 -D STAGES=2"; do
  OZAKI_LOG=1 timeout 40 $H 4096 4096 4096 8 uniform 10 7 0 "$o" 2>&1 | grep -E "RESULT|gemm_s8|Used|spill|rror" | tee -a $L
done

echo "== sizes x moduli" | tee -a $L
for s in 2048 4096 8192; do
  for nm in 6 7 8; do
    timeout 40 $H $s $s $s $nm uniform 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
  done
done
for nm in 7 8; do
  timeout 40 $H 8192 8192 1024 $nm uniform 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
  timeout 40 $H 4096 4096 4096 $nm wide 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
done

echo "== cuBLAS FP32, TF32 off, same inputs" | tee -a $L
for shp in "2048 2048 2048 uniform" "4096 4096 4096 uniform" "8192 8192 8192 uniform" \
           "8192 8192 1024 uniform" "4096 4096 4096 wide" "1000 777 513 uniform"; do
  timeout 60 python3 $D/cublas.py $shp 20 7 2>&1 | tail -1 | tee -a $L
done
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u | tee -a $L
