#!/bin/bash
# Exploration 2 (session 2): variants/v7.cl = v6 plus SWZ (no padding: XOR swizzles, so BK=16 fits
# three stages in 48 KB) and FAST=2 (the prologue and main loop inlined twice, whole blocks without
# any bounds code in their loop), at 4096 beside the current solution, the best four at 8192.
D=$PWD/.dev/w19
export LAB_ROOT=$D/root LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log7.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { s=$1; k=$2; c=$3; x=$4; echo "== $s $k | $c | $x" | tee -a $L
  timeout 60 $D/bin/11_matrix_units --kernels $D/var/$k --size $s --no-compare $(cfg $c) $x --record $OUT/v7-$s.csv 2>&1 | grep -E "error|check|speed|fail|wrong" | tee -a $L
  echo "$s|$k|$c|$x" >> /tmp/done.txt; }
P="128 128 8 64 64"; Q="128 128 16 64 64"
RUNS=(
"base|$P 4|"
"v7|$Q 3|-D SWZ=1 -D FAST=0 -D EARLY=0"
"v7|$Q 3|-D SWZ=1 -D FAST=2 -D EARLY=0"
"v7|$Q 3|-D SWZ=1 -D FAST=2 -D EARLY=1"
"v7|$Q 3|-D SWZ=1 -D FAST=1 -D EARLY=0"
"v7|$P 4|-D PERM=0 -D FAST=2 -D EARLY=0"
"v7|$P 4|-D PERM=1 -D FAST=0 -D EARLY=0"
"v7|$P 5|-D SWZ=1 -D FAST=2 -D EARLY=0"
"v7|$Q 2|-D PERM=1 -D FAST=0 -D EARLY=0"
"v7|$Q 2|-D PERM=1 -D FAST=2 -D EARLY=0"
)
for r in "${RUNS[@]}"; do IFS='|' read k c x <<< "$r"; one 4096 $k "$c" "$x"; done
python3 - $L <<'PY' > /tmp/best.txt
import re, sys
runs, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("== 4096 "):
        cur = line[8:].strip()
    m = re.search(r"speed\s+(\d+) GFLOP/s on the device", line)
    if m and cur:
        runs.append((int(m.group(1)), cur)); cur = None
runs.sort(reverse=True)
for g, r in runs[:4]:
    if not r.startswith("base"):
        print(r)
PY
cat /tmp/best.txt | tee -a $L
one 8192 base "$P 4" ""
while IFS='|' read k c x; do one 8192 $(echo $k) "$c" "$x"; done < /tmp/best.txt
echo "== evidence" | tee -a $L
ev() { n=$1; hdr=$2; R=/tmp/root_$n; rm -rf $R; cp -r $D/root $R; printf "$hdr" > $R/solutions/11_matrix_units.cl
  cat $D/var/$3/11_matrix_units.cl >> $R/solutions/11_matrix_units.cl
  LAB_ROOT=$R $D/bin/lab evidence --lessons 11 --size 4096 --out /tmp/ev_$n > /dev/null 2>&1
  f=$(ls /tmp/ev_$n/*.ptx); tr -d '\000' < $f > /tmp/ev_$n/k.ptx
  ptxas -v -arch=sm_90 -o /tmp/ev_$n/k.cubin /tmp/ev_$n/k.ptx > /tmp/ev_$n/ptxas.txt 2>&1
  cuobjdump -sass /tmp/ev_$n/k.cubin > /tmp/ev_$n/k.sass
  { echo "== $n: $hdr" | tr '\n' ' '; echo; grep -E "Used|spill" /tmp/ev_$n/ptxas.txt; python3 $D/loop.py /tmp/ev_$n/k.sass; } >> $OUT/evidence7.txt 2>&1; }
B16="#undef STAGES\n#define STAGES 3\n#undef BK\n#define BK 16\n"
ev swz16_f0 "$B16#define SWZ 1\n#define FAST 0\n#define EARLY 0\n" v7
ev swz16_f2 "$B16#define SWZ 1\n#define FAST 2\n#define EARLY 0\n" v7
ev base_f2 "#define PERM 0\n#define FAST 2\n#define EARLY 0\n" v7
mkdir -p /tmp/evall; for n in swz16_f0 swz16_f2 base_f2; do cp -r /tmp/ev_$n /tmp/evall/; done
tar czf $OUT/ev7.tgz -C /tmp evall
cat $OUT/evidence7.txt
