#!/bin/bash
# Session 6, call 35: v21 = the solution of call 33 with its tiles walked j-outer (LOOPJ), the
# two corrections in the other order (ORDER), B's fragments split before A's (BFIRST), and
# three stages; at 4096, the solution between them
D=$PWD/.dev/w26
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64"
one() { s=$1; who=$2; x=$3; echo "== $s $who | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  timeout 60 $D/bin/11_matrix_units $K --size $s --no-compare $cfg $x --record $OUT/v21.csv 2>&1 | grep -E "check|speed|fail|WRONG|rror" | tee -a $L; }
one 4096 base "-D STAGES=4"
one 4096 v21 "-D STAGES=4 -D LOOPJ=1"; one 4096 v21 "-D STAGES=4 -D ORDER=1"; one 4096 v21 "-D STAGES=4 -D BFIRST=1"
one 4096 base "-D STAGES=4"
one 4096 v21 "-D STAGES=4 -D LOOPJ=1 -D BFIRST=1"; one 4096 v21 "-D STAGES=3"; one 4096 v21 "-D STAGES=4 -D ORDER=1 -D BFIRST=1"
one 4096 base "-D STAGES=4"
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 4096 --csv $OUT/cublas.csv 2>&1 | tail -2 | tee -a $L
