#!/bin/bash
# Call 10: call 9's fastest pipeline against CONV=2 (column sums in 256-row slices + col_fin)
# and UMOD=1 (unsigned remainders), and a few GEMM neighbours of BK=128 x 3 stages (no PF,
# bands 8 / 32, CPMAP, 64x32 warps, SWZ), each checked at 1000x777x513 (check=1) and timed
# at 8192^3 / 7 moduli; the fastest: 8192 uniform + wide with the error over every element,
# 4096, a repeat; call 7's best build; cuBLAS in the same command.
D=research/ozaki-12
export PYTHONUNBUFFERED=1
L=$OUT/log.txt
date -u | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,clocks.sm,temperature.gpu --format=csv 2>&1 | tee -a $L
gcc -O2 -DHAVE_CL_H -o /tmp/host $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
H=/tmp/host
V=/tmp/variants.txt; : > $V
B6="-D WM=64 -D WN=64 -D GROUPM=16"
G="$B6 -D PF=1 -D BK=128 -D STAGES=3"
X9="-D CONV=1 -D REC4=3 -D BATCH=1 -D RND=1"
X10="-D CONV=2 -D REC4=3 -D BATCH=1 -D RND=1 -D UMOD=1"
run() { o=$1
  echo "== '$o'" | tee -a $L
  OZAKI_LOG=1 timeout 40 $H 1000 777 513 7 uniform 2 7 1 "$o" > /tmp/c.txt 2>&1
  grep -E -A3 "entry function 'gemm_s8'" /tmp/c.txt | grep -E "Used|spill" | tee -a $L
  grep -E "RESULT|rror" /tmp/c.txt | cut -c1-420 | tee -a $L
  if grep -q "bad_ares=0,bad_bres=0,bad_gemm=0" /tmp/c.txt; then
    timeout 40 $H 8192 8192 8192 7 uniform 8 7 0 "$o" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L | grep RESULT >> $V
  else echo "CHECK FAILED or no build: not timed" | tee -a $L; fi
}
for o in "$G $X9" "$G $X10" "$G -D CONV=2 -D REC4=3 -D BATCH=1 -D RND=1" "$B6 -D BK=128 -D STAGES=3 $X10" \
         "-D WM=64 -D WN=64 -D GROUPM=8 -D PF=1 -D BK=128 -D STAGES=3 $X10" \
         "-D WM=64 -D WN=64 -D GROUPM=32 -D PF=1 -D BK=128 -D STAGES=3 $X10" \
         "$G -D CPMAP=1 $X10" "-D GROUPM=16 -D BK=128 -D STAGES=3 $X10" "$G -D SWZ=1 $X10"; do
  run "$o"
done
FIN=$(python3 - $V <<'PY'
import re, sys
best = (1e9, "")
for line in open(sys.argv[1]):
    m = re.search(r'opts="([^"]*)",total_ms=([0-9.]+)', line)
    if m and float(m.group(2)) < best[0]: best = (float(m.group(2)), m.group(1))
print(best[1])
PY
)
echo "fastest pipeline: '$FIN'" | tee -a $L
timeout 40 $H 1000 777 513 8 wide 2 7 1 "$FIN" 2>&1 | grep -E "RESULT|rror" | cut -c1-420 | tee -a $L
timeout 40 $H 1000 777 513 7 wide 2 7 1 "$FIN" 2>&1 | grep -E "RESULT|rror" | cut -c1-420 | tee -a $L
for a in "8192 8192 8192 7 uniform" "8192 8192 8192 7 wide"; do
  OZAKI_DUMP=/tmp/C.bin timeout 40 $H $a 10 7 0 "$FIN" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L
  set -- $a; timeout 90 python3 $D/fullerr.py $1 $2 $3 $5 7 /tmp/C.bin 2>&1 | tail -1 | tee -a $L
done
for a in "4096 4096 4096 7 uniform" "8192 8192 8192 7 uniform"; do
  timeout 40 $H $a 10 7 0 "$FIN" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L
done
timeout 40 $H 8192 8192 8192 7 uniform 10 7 0 "$B6 -D REC4=2" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L
for a in "8192 8192 8192 uniform" "8192 8192 8192 wide" "4096 4096 4096 uniform"; do
  timeout 120 python3 $D/cublas.py $a 20 7 2>&1 | tail -1 | tee -a $L
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u | tee -a $L
