#!/bin/bash
# Variants of lesson 11's kernel (tests of what limits it), at 4096, then the best three at 8192.
D=$PWD/.dev/l11
export LAB_ROOT=$D/root LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log2.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
C=$OUT/l11-variants.csv
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
A="128 128 16 64 32 2"; B="128 256 8 64 64 3"; Cc="128 128 16 64 64 2"; Dd="128 128 8 64 64 4"; E="128 128 8 64 32 4"; F="256 128 8 64 64 2"
one() { v=$1; shift; echo "== $v $*" | tee -a $L
  timeout 60 $D/bin/11_matrix_units --kernels $D/var/$v --size ${S:-4096} --no-compare $(cfg $*) --record $OUT/$v.csv 2>&1 | grep -E "error|check|speed|fail" | tee -a $L; }
one v0 $B
for c in "$A" "$B" "$Cc" "$Dd"; do one v1 $c; done
for c in "$A" "$B" "$Cc" "$Dd" "$E" "$F"; do one v2 $c; done
for c in "$A" "$E"; do one v3 $c; done
python3 - $OUT <<'PY' > /tmp/best.txt
import csv, glob, os, sys
rows = []
for f in glob.glob(sys.argv[1] + "/v*.csv"):
    for r in csv.DictReader(open(f)):
        rows.append((float(r["gflops"]), os.path.basename(f)[:-4], r["defines"]))
rows.sort(reverse=True)
for g, v, d in rows[:3]:
    print(v, " ".join(x.split("=")[1] for x in d.split()))
PY
cat /tmp/best.txt | tee -a $L
S=8192
while read v c; do one $v $c; done < /tmp/best.txt
