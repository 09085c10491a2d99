#!/bin/bash
# Call 1 on the device: probe the machine, build host.c, check the pipeline on small and
# ragged shapes (residues and every INT8 product checked against the host), then time it at
# 2048, 4096, 8192 (and 8192x8192x1024) with 6, 7, 8 moduli, a few kernel variants at 4096,
# and cuBLAS FP32 (TF32 off) on the same inputs.
D=research/ozaki-12
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
echo "== probe" | tee $L
date -u | tee -a $L
nvidia-smi 2>&1 | head -20 | tee -a $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv 2>&1 | tee -a $L
gcc --version | head -1 | tee -a $L
nvcc --version 2>&1 | tail -2 | tee -a $L
python3 -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'numpy', numpy.__version__)" 2>&1 | tee -a $L
CLH=$(find /usr/local/cuda*/ /usr/include /usr/local/include -name cl.h -path "*CL/cl.h" 2>/dev/null | head -1)
echo "cl.h: $CLH" | tee -a $L
find / -xdev -name "libOpenCL.so*" 2>/dev/null | head -5 | tee -a $L
LIBCL=$(find /usr/local/cuda*/ /usr/lib /lib -name "libOpenCL.so.1" 2>/dev/null | head -1)
[ -z "$LIBCL" ] && LIBCL=$PWD/$D/lib/libOpenCL.so.1
echo "loader: $LIBCL" | tee -a $L
INC=""
[ -n "$CLH" ] && INC="-DHAVE_CL_H -I$(dirname $(dirname $CLH))"
gcc -O2 $INC -o /tmp/host $D/host.c $LIBCL -Wl,-rpath,$(dirname $LIBCL) -lm 2>&1 | tee -a $L
H=/tmp/host

echo "== correctness (check=1: residues and INT8 products against the host)" | tee -a $L
OZAKI_LOG=1 timeout 60 $H 256 256 256 8 uniform 3 7 1 2>&1 | tee -a $L
for o in "" "-D LDSM=0" "-D BK=32 -D STAGES=3" "-D BK=32 -D STAGES=4 -D LDSM=0"; do
  timeout 60 $H 1000 777 513 8 uniform 3 7 1 "$o" 2>&1 | tee -a $L
done
timeout 60 $H 1000 777 513 7 wide 3 7 1 2>&1 | tee -a $L
timeout 60 $H 130 200 2100 6 uniform 3 7 1 2>&1 | tee -a $L

# The first configuration that passes is the one timed.
BEST=""
for o in "" "-D LDSM=0" "-D BK=32 -D STAGES=3" "-D BK=32 -D STAGES=4 -D LDSM=0"; do
  if grep -F "opts=\"$o\"" $L | grep "M=1000" | grep -q "bad_gemm=0"; then BEST="$o"; break; fi
done
echo "timed configuration: '$BEST'" | tee -a $L

echo "== variants at 4096, 8 moduli" | tee -a $L
for o in "$BEST" "-D LDSM=0" "-D BK=32 -D STAGES=3" "-D BK=32 -D STAGES=4" \
         "-D BN=256 -D WN=64 -D BK=32 -D STAGES=2" "-D BM=256 -D WM=64 -D WN=64 -D BK=32 -D STAGES=2"; do
  OZAKI_LOG=1 timeout 60 $H 4096 4096 4096 8 uniform 10 7 0 "$o" 2>&1 | grep -E "RESULT|ptxas|rror|spill|Used" | tee -a $L
done

echo "== sizes x moduli" | tee -a $L
for s in 2048 4096 8192; do
  for nm in 6 7 8; do
    timeout 90 $H $s $s $s $nm uniform 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
  done
done
for nm in 6 7 8; do
  timeout 90 $H 8192 8192 1024 $nm uniform 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
done
for nm in 7 8; do
  timeout 90 $H 4096 4096 4096 $nm wide 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
done

echo "== cuBLAS FP32, TF32 off, same inputs" | tee -a $L
for s in 2048 4096 8192; do
  timeout 120 python3 $D/cublas.py $s $s $s uniform 20 7 2>&1 | tail -2 | tee -a $L
done
timeout 120 python3 $D/cublas.py 8192 8192 1024 uniform 20 7 2>&1 | tail -2 | tee -a $L
timeout 120 python3 $D/cublas.py 4096 4096 4096 wide 20 7 2>&1 | tail -2 | tee -a $L
timeout 120 python3 $D/cublas.py 1000 777 513 uniform 20 7 2>&1 | tail -2 | tee -a $L
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u | tee -a $L
