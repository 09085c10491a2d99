#!/bin/bash
# Session 4, call 22: v14 (bounds folded into one limit per copy) and v15 (v14 with A's fragments by ldmatrix)
D=$PWD/.dev/w24
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6"; }
one() { s=$1; who=$2; c=$3; x=$4; echo "== $s $who | $c | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  timeout 90 $D/bin/11_matrix_units $K --size $s --no-compare $(cfg $c) $x --record $OUT/v15.csv 2>&1 | grep -E "error|check|speed|fail|wrong|ptxas" | tee -a $L; }
P="128 128 8 64 64 4"
echo "== evidence" | tee -a $L
for n in v14 v15; do
  R=/tmp/ev_$n; rm -rf $R
  $D/bin/lab evidence --lessons 11 --size 4096 --kernels $D/var/ev_$n --out $R > $R.log 2>&1 || tail -5 $R.log
  f=$(ls $R/*.ptx 2>/dev/null | head -1); [ -n "$f" ] || { echo "no ptx for $n"; continue; }
  tr -d '\000' < $f > $R/k.ptx
  ptxas -v -arch=sm_90 -o $R/k.cubin $R/k.ptx > $R/ptxas.txt 2>&1
  cuobjdump -sass $R/k.cubin > $R/k.sass
  { echo "== $n"; grep -E "Used|spill" $R/ptxas.txt; python3 $D/loop.py $R/k.sass; } >> $OUT/evidence.txt 2>&1
done
cat $OUT/evidence.txt | tee -a $L
for r in 1 2; do for w in base v13 v14 v15; do one 4096 $w "$P" ""; done; done
for w in base v13 v14 v15; do one 8192 $w "$P" ""; done
for w in base v15; do one 2048 $w "$P" ""; done
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -8 | tee -a $L
