#!/bin/bash
# FP16 split with exponent scaling (variants/v10, SCALE=1, 2, 3) beside v9 and the TF32
# solution, cuBLAS in the same command; v10's errors on scaled inputs through the mma.sync path
# (research/perf-11/scaling, `f16scale`); ptxas and the main loop's SASS of v9 and v10.
# Run from the checkout's root with .dev/w19b holding bin/ (11_matrix_units, lab, f16scale built
# with variants/v10/mma-f16-scale.patch applied), var/v9, var/v10, loop.py. v10 had no MAXF yet:
# its code then is today's with -D MAXF=0.
D=$PWD/.dev/w19b
export LAB_ROOT=$PWD PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { s=$1; who=$2; c=$3; x=$4; echo "== $s $who | $c | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  timeout 90 $D/bin/11_matrix_units $K --size $s --no-compare $(cfg $c) $x --record $OUT/v10.csv 2>&1 | grep -E "error|check|speed|fail|wrong|ptxas" | tee -a $L; }
P="128 128 16 64 64 2"
one 4096 base "128 128 8 64 64 4" ""
one 4096 v9 "$P" ""
one 4096 v10 "$P" "-D SCALE=1"
one 4096 v10 "$P" "-D SCALE=2"
one 4096 v10 "$P" "-D SCALE=3"
one 4096 v10 "128 128 16 64 32 2" "-D SCALE=1"
one 4096 v10 "64 128 16 32 64 3" "-D SCALE=1 -D APAD=4"
python3 - $L <<'PY' > /tmp/best.txt
import re, sys
runs, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("== 4096 v10"):
        cur = line[8:].strip()
    m = re.search(r"speed\s+(\d+) GFLOP/s on the device", line)
    if m and cur:
        runs.append((int(m.group(1)), cur)); cur = None
runs.sort(reverse=True)
print(runs[0][1])
PY
cat /tmp/best.txt | tee -a $L
one 8192 base "128 128 8 64 64 4" ""
one 8192 v9 "$P" ""
while IFS='|' read k c x; do for s in 8192 2048; do one $s $(echo $k) "$c" "$x"; done; done < /tmp/best.txt
one 8192 v10 "$P" "-D SCALE=3"
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tee -a $L
echo "== evidence" | tee -a $L
ev() { n=$1; hdr=$2; R=/tmp/root_$n; rm -rf $R; mkdir -p $R; cp -r solutions lessons results kernels $R/ 2>/dev/null
  printf "$hdr" > $R/solutions/11_matrix_units.cl; cat $D/var/$3/11_matrix_units.cl >> $R/solutions/11_matrix_units.cl
  LAB_ROOT=$R timeout 60 $D/bin/lab evidence --lessons 11 --size 4096 --out /tmp/ev_$n > /dev/null 2>&1
  f=$(ls /tmp/ev_$n/*.ptx); tr -d '\000' < $f > /tmp/ev_$n/k.ptx
  ptxas -v -arch=sm_90 -o /tmp/ev_$n/k.cubin /tmp/ev_$n/k.ptx > /tmp/ev_$n/ptxas.txt 2>&1
  cuobjdump -sass /tmp/ev_$n/k.cubin > /tmp/ev_$n/k.sass
  { echo "== $n: $hdr" | tr '\n' ' '; echo; grep -E "Used|spill" /tmp/ev_$n/ptxas.txt; python3 $D/loop.py /tmp/ev_$n/k.sass; } >> $OUT/evidence.txt 2>&1; }
H="#undef BM\n#undef BN\n#undef BK\n#undef WM\n#undef WN\n#undef STAGES\n#define BM 128\n#define BN 128\n#define BK 16\n#define WM 64\n#define WN 64\n#define STAGES 2\n"
ev v9 "$H" v9
for s in 1 2 3; do ev v10_s$s "$H#define SCALE $s\n" v10; done
cat $OUT/evidence.txt | tee -a $L
echo "== accuracy on scaled inputs, mma.sync" | tee -a $L
R=/tmp/f16root/research/perf-11/scripts/variants; mkdir -p $R; cp -r $D/var/v9 $D/var/v10 $R/
(cd /tmp/f16root && timeout 150 $D/bin/f16scale 512x512x2048 $OUT/scaling.csv) 2>&1 | tee -a $L
date -u | tee -a $L
