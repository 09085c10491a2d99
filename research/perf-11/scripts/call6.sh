#!/bin/bash
# Exploration (session 2): variants of lesson 11 (variants/v6.cl, toggles FAST = whole blocks copied
# without bounds, EARLY = the next step's copies issued right after the barrier, PERM = k permuted
# inside a k-step so that A's fragments are float2 reads and the tiles need less padding, CHAIN =
# BK=16 with both halves' six products chained in the unit before one FP32 add) at 4096, the best
# five at 8192, beside the current solution; then ptxas -v and the main loop's SASS of each.
D=$PWD/.dev/w19
export LAB_ROOT=$D/root LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log6.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 1000 > $OUT/smi6.csv 2>&1) &
SMI=$!
C=$OUT/v6.csv
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { s=$1; k=$2; c=$3; x=$4; echo "== $s $k | $c | $x" | tee -a $L
  timeout 60 $D/bin/11_matrix_units --kernels $D/var/$k --size $s --no-compare $(cfg $c) $x --record $C 2>&1 | grep -E "error|check|speed|fail|wrong" | tee -a $L; }
P="128 128 8 64 64"
RUNS=(
"base|$P 4|"
"v6|$P 4|-D FAST=1 -D EARLY=0 -D PERM=0"
"v6|$P 4|-D FAST=0 -D EARLY=1 -D PERM=0"
"v6|$P 4|-D FAST=1 -D EARLY=1 -D PERM=0"
"v6|$P 4|-D FAST=1 -D EARLY=1 -D PERM=1"
"v6|$P 5|-D FAST=1 -D EARLY=1 -D PERM=1"
"v6|$P 5|-D FAST=0 -D EARLY=1 -D PERM=1"
"v6|$P 3|-D FAST=1 -D EARLY=1 -D PERM=1"
"v6|128 128 16 64 64 2|-D FAST=1 -D EARLY=1 -D PERM=1"
"v6|128 128 16 64 64 2|-D FAST=1 -D EARLY=1 -D PERM=1 -D CHAIN=1"
"v6|128 256 8 64 64 3|-D FAST=1 -D EARLY=1 -D PERM=1"
"v6|256 128 8 64 64 3|-D FAST=1 -D EARLY=1 -D PERM=1"
"v6|128 128 8 64 32 5|-D FAST=1 -D EARLY=1 -D PERM=1"
)
for r in "${RUNS[@]}"; do IFS='|' read k c x <<< "$r"; one 4096 $k "$c" "$x"; done
python3 - $C <<'PY' > /tmp/best.txt
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rows.sort(key=lambda r: -float(r["gflops"]))
for r in rows[:5]:
    print(r["defines"])
PY
cat /tmp/best.txt | tee -a $L
one 8192 base "$P 4" ""
while read d; do
  x=$(echo $d | tr ' ' '\n' | grep -vE '^(BM|BN|BK|WM|WN|STAGES)=' | sed 's/^/-D /' | tr '\n' ' ')
  c=$(for n in BM BN BK WM WN STAGES; do echo $d | tr ' ' '\n' | grep "^$n=" | cut -d= -f2; done | tr '\n' ' ')
  one 8192 v6 "$c" "$x"
done < /tmp/best.txt
# Edge blocks and a long ragged K for the best, checked.
d=$(head -1 /tmp/best.txt); x=$(echo $d | tr ' ' '\n' | grep -vE '^(BM|BN|BK|WM|WN|STAGES)=' | sed 's/^/-D /' | tr '\n' ' ')
c=$(for n in BM BN BK WM WN STAGES; do echo $d | tr ' ' '\n' | grep "^$n=" | cut -d= -f2; done | tr '\n' ' ')
one 4095 v6 "$c" "$x"
kill $SMI
echo "== evidence" | tee -a $L
ev() { n=$1; hdr=$2; R=/tmp/root_$n; rm -rf $R; cp -r $D/root $R; printf "$hdr" > $R/solutions/11_matrix_units.cl
  cat $D/var/$3/11_matrix_units.cl >> $R/solutions/11_matrix_units.cl
  LAB_ROOT=$R $D/bin/lab evidence --lessons 11 --size 4096 --out /tmp/ev_$n > /dev/null 2>&1
  f=$(ls /tmp/ev_$n/*.ptx); tr -d '\000' < $f > /tmp/ev_$n/k.ptx
  ptxas -v -arch=sm_90 -o /tmp/ev_$n/k.cubin /tmp/ev_$n/k.ptx > /tmp/ev_$n/ptxas.txt 2>&1
  cuobjdump -sass /tmp/ev_$n/k.cubin > /tmp/ev_$n/k.sass
  { echo "== $n: $hdr" | tr '\n' ' '; echo; grep -E "Used|spill" /tmp/ev_$n/ptxas.txt; python3 $D/loop.py /tmp/ev_$n/k.sass; } >> $OUT/evidence6.txt 2>&1; }
ev base "" base
ev fast_s4 "#define FAST 1\n#define EARLY 1\n#define PERM 0\n" v6
ev perm_s4 "#define FAST 1\n#define EARLY 1\n#define PERM 1\n" v6
ev perm_s5 "#undef STAGES\n#define STAGES 5\n#define FAST 1\n#define EARLY 1\n#define PERM 1\n" v6
ev chain16 "#undef STAGES\n#define STAGES 2\n#undef BK\n#define BK 16\n#define FAST 1\n#define EARLY 1\n#define PERM 1\n#define CHAIN 1\n" v6
mkdir -p /tmp/evall; for n in base fast_s4 perm_s4 perm_s5 chain16; do cp -r /tmp/ev_$n /tmp/evall/; done
tar czf $OUT/ev6.tgz -C /tmp evall
cat $OUT/evidence6.txt
