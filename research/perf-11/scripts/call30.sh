#!/bin/bash
# Session 6, call 30: v19 = the solution with A's rows copied in the order that avoids the 2-way
# bank conflict of its 16-byte cp.async (found by Nsight Compute in call 29); profile of v19
D=$PWD/.dev/w25
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
R=/tmp/ev19; rm -rf $R
$D/bin/lab evidence --lessons 11 --size 4096 --kernels $D/var/ev_v19 --out $R > $R.log 2>&1 || tail -5 $R.log
f=$(ls $R/*.ptx | head -1); tr -d "\000" < $f > $R/k.ptx
ptxas -v -arch=sm_90 -o $R/k.cubin $R/k.ptx > $R/ptxas.txt 2>&1; cuobjdump -sass $R/k.cubin > $OUT/sass-v19.txt
{ echo "== v19"; grep -E "Used|spill|rror" $R/ptxas.txt; python3 $D/loop.py $OUT/sass-v19.txt; } | tee -a $L
cfg="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64"
one() { s=$1; who=$2; x=$3; echo "== $s $who | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  timeout 60 $D/bin/11_matrix_units $K --size $s --no-compare $cfg $x --record $OUT/v19.csv 2>&1 | grep -E "error|check|speed|fail|wrong|WRONG|ptxas" | tee -a $L; }
for r in 1 2 3; do one 4096 base "-D STAGES=4"; one 4096 v19 "-D STAGES=4"; done
one 4096 v19 "-D STAGES=4 -D ROWPERM=0"; one 4096 v19 "-D STAGES=3"
for r in 1 2; do one 8192 base "-D STAGES=4"; one 8192 v19 "-D STAGES=4"; done
one 2048 base "-D STAGES=4"; one 2048 v19 "-D STAGES=4"; one 1024 base "-D STAGES=4"; one 1024 v19 "-D STAGES=4"
one 4095 base "-D STAGES=4"; one 4095 v19 "-D STAGES=4"
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -8 | tee -a $L
echo "== profile of v19" | tee -a $L
sed -E "s/%envreg[0-9]+/0/" $R/k.ptx > /tmp/k19.ptx
[ -x /tmp/h ] || (cd $D/prof && nvcc -O2 -o /tmp/h h.cu -lcuda 2>/dev/null)
/tmp/h /tmp/k19.ptx 4096 20 | tee -a $L
timeout 200 ncu -f --set full -k matmul -c 1 -o /tmp/rep19 /tmp/h /tmp/k19.ptx 4096 1 2>&1 | tail -2 | tee -a $L
ncu -i /tmp/rep19.ncu-rep --page details > $OUT/details-v19.txt 2>&1
ncu -i /tmp/rep19.ncu-rep --page source --csv --print-source sass > $OUT/source-v19.csv 2>&1
grep -E "Issue Slots Busy|No Eligible|excessive|Duration|SM Frequency" $OUT/details-v19.txt | tee -a $L
