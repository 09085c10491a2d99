#!/bin/bash
# Session 4, call 23: v13 in work-groups of one or two 64×64 warps (more, smaller groups per SM; barriers of fewer warps), five and six stages
D=$PWD/.dev/w24
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { s=$1; who=$2; c=$3; x=$4; echo "== $s $who | $c | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  timeout 90 $D/bin/11_matrix_units $K --size $s --no-compare $(cfg $c) $x --record $OUT/v13b.csv 2>&1 | grep -E "error|check|speed|fail|wrong|ptxas" | tee -a $L; }
P="128 128 8 64 64 4"
one 4096 base "$P" ""
one 4096 v13 "$P" ""
for c in "64 128 8 64 64 4" "64 128 8 64 64 5" "64 128 8 64 64 6" "128 64 8 64 64 4" "128 64 8 64 64 5" "64 64 8 64 64 3" "64 64 8 64 64 4" "64 64 8 64 64 6"; do one 4096 v13 "$c" ""; done
one 4096 v13 "$P" ""
python3 - $L <<'PY' > /tmp/best.txt
import re, sys
runs, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("== 4096 v13"):
        cur = line[8:].strip()
    m = re.search(r"speed\s+(\d+) GFLOP/s on the device", line)
    if m and cur:
        runs.append((int(m.group(1)), cur)); cur = None
runs.sort(reverse=True)
for g, r in runs[:3]:
    print(r)
PY
cat /tmp/best.txt | tee -a $L
one 8192 base "$P" ""
while IFS='|' read k c x; do one 8192 $(echo $k) "$c" "$x"; done < /tmp/best.txt
head -2 /tmp/best.txt | while IFS='|' read k c x; do one 2048 $(echo $k) "$c" "$x"; one 4096 $(echo $k) "$c" "$x"; done
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -8 | tee -a $L
