#!/bin/bash
# Call 8: per-kernel times; new options of call 8 (CONV=1 fused/integer conversions, REC4=3
# closed-form Garner, BATCH=1 one launch for all moduli, PF=1 register double-buffered
# fragments) and more stages (STAGES=3 padded = 60 KB, BK=128), each checked at 1000x777x513
# (check=1) and timed at 8192^3 / 7 moduli; then the fastest GEMM with the new conversions
# (with and without BATCH), checked, and the sweep + cuBLAS (uniform and wide) with the
# fastest; a build-only probe of wgmma in inline PTX. At most 3 files under $OUT.
D=research/ozaki-12
export PYTHONUNBUFFERED=1
L=$OUT/log.txt
date -u | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,clocks.sm,temperature.gpu --format=csv 2>&1 | tee -a $L
gcc -O2 -DHAVE_CL_H -o /tmp/host $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
H=/tmp/host
echo "== wgmma probe" | tee -a $L
for o in "" "-cl-nv-arch sm_90a"; do
  OZAKI_CL=$D/probe_wgmma.cl OZAKI_PTX=/tmp/probe.ptx OZAKI_LOG=1 timeout 30 $H 256 256 256 7 uniform 1 7 0 "$o" > /tmp/probe.txt 2>&1
  echo "-- probe '$o': rc=$?" | tee -a $L
  grep -iE "error|wgmma|ptxas|OpenCL error|invalid" /tmp/probe.txt | head -8 | cut -c1-300 | tee -a $L
  [ -f /tmp/probe.ptx ] && { tr -d '\000' < /tmp/probe.ptx | grep -E "^\.target|wgmma" | head -4 | tee -a $L; rm -f /tmp/probe.ptx; }
done
V=/tmp/variants.txt; : > $V
B6="-D WM=64 -D WN=64 -D GROUPM=16"
run() { o=$1
  echo "== '$o'" | tee -a $L
  OZAKI_LOG=1 timeout 40 $H 1000 777 513 7 uniform 2 7 1 "$o" > /tmp/c.txt 2>&1
  grep -E -A3 "entry function 'gemm_s8'" /tmp/c.txt | grep -E "Used|spill" | tee -a $L
  grep -E "RESULT|rror" /tmp/c.txt | cut -c1-400 | tee -a $L
  if grep -q "bad_ares=0,bad_bres=0,bad_gemm=0" /tmp/c.txt; then
    timeout 40 $H 8192 8192 8192 7 uniform 8 7 0 "$o" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L | grep RESULT >> $V
  else echo "CHECK FAILED or no build: not timed" | tee -a $L; fi
}
for o in "$B6 -D REC4=2" "$B6 -D CONV=1 -D REC4=3" "$B6 -D BATCH=1" "$B6 -D PF=1" \
         "-D GROUPM=16 -D PF=1" "-D GROUPM=16 -D PF=1 -cl-nv-maxrregcount=128" \
         "$B6 -D STAGES=3" "$B6 -D PF=1 -D STAGES=3" "$B6 -D BK=128" "$B6 -D SWZ=1 -D STAGES=3"; do
  run "$o"
done
BEST=$(python3 - $V <<'PY'
import re, sys
best = (0, "")
for line in open(sys.argv[1]):
    m = re.search(r'opts="([^"]*)".*gemm_tops=([0-9.]+)', line)
    if m and "BATCH" not in m.group(1) and "CONV" not in m.group(1):
        o = re.sub(r"\s*-D REC4=\d", "", m.group(1))
        if float(m.group(2)) > best[0]: best = (float(m.group(2)), o)
print(best[1])
PY
)
echo "fastest GEMM: '$BEST'" | tee -a $L
: > $V
for o in "$BEST -D CONV=1 -D REC4=3" "$BEST -D CONV=1 -D REC4=3 -D BATCH=1"; do run "$o"; done
timeout 40 $H 1000 777 513 8 wide 2 7 1 "$BEST -D CONV=1 -D REC4=3 -D BATCH=1" 2>&1 | grep -E "RESULT|rror" | cut -c1-400 | tee -a $L
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
for a in "8192 8192 8192 6 uniform" "8192 8192 8192 7 uniform" "8192 8192 8192 8 uniform" \
         "8192 8192 8192 7 wide" "8192 8192 8192 8 wide" "4096 4096 4096 7 uniform"; do
  timeout 40 $H $a 10 7 0 "$FIN" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L
done
timeout 40 $H 8192 8192 8192 7 uniform 10 7 0 "$B6 -D REC4=2" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L
for a in "8192 8192 8192 uniform" "8192 8192 8192 wide" "4096 4096 4096 uniform"; do
  timeout 120 python3 $D/cublas.py $a 20 7 2>&1 | tail -1 | tee -a $L
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u | tee -a $L
