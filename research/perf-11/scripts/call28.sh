#!/bin/bash
# Session 6, call 28: v18 = the solution with big made per operand by the lesson's rounding (0),
# a cut (1), `cvt.rn.tf32.f32` (2, the unit of v18-mma.patch) or that then masked (3)
D=$PWD/.dev/w25
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
echo "== evidence" | tee -a $L
for n in a1 rn rnm; do
  R=/tmp/ev_$n; rm -rf $R
  $D/bin/lab_rn evidence --lessons 11 --size 4096 --kernels $D/var/ev_$n --out $R > $R.log 2>&1 || tail -5 $R.log
  f=$(ls $R/*.ptx 2>/dev/null | head -1); [ -n "$f" ] || { echo "no ptx for $n"; tail -20 $R.log; continue; }
  tr -d '\000' < $f > $R/k.ptx; grep -m2 "cvt.rn.tf32" $R/k.ptx | tee -a $L
  ptxas -v -arch=sm_90 -o $R/k.cubin $R/k.ptx > $R/ptxas.txt 2>&1
  cuobjdump -sass $R/k.cubin > $R/k.sass
  { echo "== $n"; grep -E "Used|spill|rror" $R/ptxas.txt; python3 $D/loop.py $R/k.sass; } >> $OUT/evidence.txt 2>&1
  cp $R/k.sass $OUT/sass-$n.txt
done
cat $OUT/evidence.txt | tee -a $L
cfg="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"
one() { s=$1; who=$2; x=$3; echo "== $s $who | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; B=11_matrix_units; else K="--kernels $D/var/v18"; B=11_matrix_units_rn; fi
  timeout 60 $D/bin/$B $K --size $s --no-compare $cfg $x --record $OUT/v18.csv 2>&1 | grep -E "error|check|speed|fail|wrong|WRONG|ptxas" | tee -a $L; }
for r in 1 2; do
  one 4096 base ""
  one 4096 v18 "-D SPLIT_A=1"
  one 4096 v18 "-D SPLIT_B=1"
  one 4096 v18 "-D SPLIT_A=2 -D SPLIT_B=2"
  one 4096 v18 "-D SPLIT_A=3 -D SPLIT_B=3"
done
for w in "" "-D SPLIT_A=1" "-D SPLIT_A=2 -D SPLIT_B=2" "-D SPLIT_A=3 -D SPLIT_B=3"; do
  if [ -z "$w" ]; then one 8192 base ""; else one 8192 v18 "$w"; fi
done
one 2048 v18 "-D SPLIT_A=2 -D SPLIT_B=2"; one 2048 base ""
echo "== odd sizes" | tee -a $L
for w in "-D SPLIT_A=2 -D SPLIT_B=2"; do one 4095 v18 "$w"; done; one 4095 base ""
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -8 | tee -a $L
