#!/bin/bash
# Call 4: tiles without padding, XOR-swizzled (SWZ=1), which lets BK=64 take 3 stages at
# 128x128 or 2 stages at 256x128 within the 48 KB of local memory; each checked at
# 1000x777x513, timed at 8192 with 7 moduli; the fastest then at 2048/4096/8192 with 6/7/8
# moduli and 8192x8192x1024; cuBLAS at 8192 again beside it.
D=research/ozaki-12
export PYTHONUNBUFFERED=1
L=$OUT/log.txt
date -u | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv 2>&1 | tee -a $L
gcc -O2 -DHAVE_CL_H -o /tmp/host $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
H=/tmp/host
V=$OUT/variants.txt
for o in "" "-D SWZ=1" "-D SWZ=1 -D STAGES=3" "-D SWZ=1 -D BM=256 -D WM=64 -D WN=64 -D STAGES=2" \
         "-D SWZ=1 -D BM=256 -D WM=64 -D WN=64 -D BK=32 -D STAGES=3" "-D SWZ=1 -D BM=256 -D WM=64 -D WN=32 -D STAGES=2"; do
  echo "== '$o'" | tee -a $L
  OZAKI_LOG=1 timeout 30 $H 1000 777 513 7 uniform 2 7 1 "$o" 2>&1 | grep -E -A3 "RESULT|rror|entry function 'gemm_s8'" | grep -E "RESULT|rror|Used" | tee -a $L
  timeout 40 $H 8192 8192 8192 7 uniform 8 7 0 "$o" 2>&1 | grep -E "RESULT|rror" | tee -a $L | tee -a $V
done
BEST=$(python3 - $V <<'PY'
import re, sys
best = (0, "")
for line in open(sys.argv[1]):
    m = re.search(r'opts="([^"]*)".*gemm_tops=([0-9.]+)', line)
    if m and float(m.group(2)) > best[0]:
        best = (float(m.group(2)), m.group(1))
print(best[1])
PY
)
echo "fastest: '$BEST'" | tee -a $L
for s in 2048 4096 8192; do for nm in 6 7 8; do
  timeout 40 $H $s $s $s $nm uniform 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
done; done
for nm in 7 8; do
  timeout 40 $H 8192 8192 1024 $nm uniform 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
done
timeout 40 $H 4096 4096 4096 7 wide 10 7 0 "$BEST" 2>&1 | grep -E "RESULT|rror" | tee -a $L
timeout 60 python3 $D/cublas.py 8192 8192 8192 uniform 20 7 2>&1 | tail -1 | tee -a $L
timeout 60 python3 $D/cublas.py 4096 4096 4096 uniform 20 7 2>&1 | tail -1 | tee -a $L
date -u | tee -a $L
