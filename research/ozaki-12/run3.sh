#!/bin/bash
# Call 3: INT8 GEMM block/warp shapes at 8192 with 7 moduli (the default again as baseline),
# each first checked at 1000x777x513 (check=1).
D=research/ozaki-12
L=$OUT/log.txt
date -u | tee $L
gcc -O2 -DHAVE_CL_H -o /tmp/host $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
H=/tmp/host
for o in "" "-D WM=64 -D WN=64" "-D WM=32 -D WN=64" "-D BK=32 -D STAGES=4" \
         "-D BM=256 -D WM=64 -D WN=64 -D BK=32 -D STAGES=2" "-D BM=64 -D WM=32 -D WN=32"; do
  echo "== '$o'" | tee -a $L
  OZAKI_LOG=1 timeout 30 $H 1000 777 513 7 uniform 2 7 1 "$o" 2>&1 | grep -E -A3 "RESULT|rror|entry function 'gemm_s8'" | grep -E "RESULT|rror|Used" | tee -a $L
  timeout 40 $H 8192 8192 8192 7 uniform 8 7 0 "$o" 2>&1 | grep -E "RESULT|rror" | tee -a $L
done
date -u | tee -a $L
