#!/bin/bash
# Call 7: more gemm_s8 shapes with bands (64x64 warp tiles with BK=32 and 4 stages; 128x256
# blocks of 8 warps of 64x64; 32x64 warps; other band heights), each checked at 1000x777x513 and
# timed at 8192^3 with 7 moduli; REC4=2 (scale from its bits) against REC4=1 with call 6's
# fastest GEMM; if a GEMM beats 575 TOPS, the sweep at 8192 x 6/7/8 and cuBLAS again.
D=research/ozaki-12
export PYTHONUNBUFFERED=1
L=$OUT/log.txt
date -u | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1 | tee -a $L
gcc -O2 -DHAVE_CL_H -o /tmp/host $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
H=/tmp/host
V=/tmp/variants.txt; : > $V
B6="-D WM=64 -D WN=64 -D GROUPM=16"
for o in "$B6" "-D WM=64 -D WN=64 -D GROUPM=16 -D BK=32 -D STAGES=4" \
         "-D WM=64 -D WN=64 -D BN=256 -D GROUPM=16 -D BK=32 -D STAGES=2" \
         "-D WM=32 -D WN=64 -D GROUPM=16" "-D WM=64 -D WN=64 -D GROUPM=8" "-D WM=64 -D WN=64 -D GROUPM=24" \
         "$B6 -D REC4=1" "$B6 -D REC4=2"; do
  echo "== '$o'" | tee -a $L
  OZAKI_LOG=1 timeout 30 $H 1000 777 513 7 uniform 2 7 1 "$o" 2>&1 | grep -E -A3 "RESULT|rror|entry function 'gemm_s8'" | grep -E "RESULT|rror|Used" | tee -a $L
  timeout 40 $H 8192 8192 8192 7 uniform 8 7 0 "$o" 2>&1 | grep -E "RESULT|rror" | tee -a $L | tee -a $V
done
timeout 30 $H 1000 777 513 8 wide 2 7 1 "$B6 -D REC4=2" 2>&1 | grep -E "RESULT|rror" | tee -a $L
BEST=$(python3 - $V <<'PY'
import re, sys
best = (0, "")
for line in open(sys.argv[1]):
    m = re.search(r'opts="([^"]*)".*gemm_tops=([0-9.]+)', line)
    if m and "REC4" not in m.group(1) and float(m.group(2)) > best[0]:
        best = (float(m.group(2)), m.group(1))
print("%s|%.1f" % (best[1], best[0]))
PY
)
echo "fastest GEMM: '$BEST'" | tee -a $L
T=${BEST#*|}; O=${BEST%|*}
if python3 -c "import sys; sys.exit(0 if float('$T') > 575 else 1)"; then
  for nm in 6 7 8; do
    timeout 40 $H 8192 8192 8192 $nm uniform 10 7 0 "$O -D REC4=2" 2>&1 | grep -E "RESULT|rror" | tee -a $L
  done
  timeout 90 python3 $D/cublas.py 8192 8192 8192 uniform 20 7 2>&1 | tail -1 | tee -a $L
else
  timeout 40 $H 8192 8192 8192 7 uniform 10 7 0 "$B6 -D REC4=2" 2>&1 | grep -E "RESULT|rror" | tee -a $L
fi
date -u | tee -a $L
