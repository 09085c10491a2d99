#!/bin/bash
# Session 6, call 32: v20 = v18's ways of making big and v19's order of A's rows together:
# eight combinations at 4096 once, the solution between them; the two fastest again, and at 8192
D=$PWD/.dev/w25
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"
one() { s=$1; who=$2; x=$3; echo "== $s $who | $x" | tee -a $L
  if [ $who = base ]; then K="--solution"; B=11_matrix_units; else K="--kernels $D/var/$who"; B=11_matrix_units_rn; fi
  timeout 60 $D/bin/$B $K --size $s --no-compare $cfg $x --record $OUT/v20.csv 2>&1 | grep -E "check|speed|fail|WRONG|rror" | tee -a $L | grep speed | awk -v x="$x" '{print $2, x}' >> /tmp/sp_$s.txt; }
rm -f /tmp/sp_*.txt
V=("-D ROWPERM=1 -D SPLIT_B=1" "-D ROWPERM=1 -D SPLIT_A=2 -D SPLIT_B=2" "-D ROWPERM=0 -D SPLIT_B=2" "-D ROWPERM=0 -D SPLIT_A=2"
   "-D ROWPERM=1 -D SPLIT_A=2" "-D ROWPERM=1 -D SPLIT_B=2" "-D ROWPERM=0 -D SPLIT_B=3" "-D ROWPERM=1 -D SPLIT_A=3 -D SPLIT_B=3")
one 4096 base ""
for i in 0 1 2 3; do one 4096 v20 "${V[$i]}"; done
one 4096 base ""
for i in 4 5 6 7; do one 4096 v20 "${V[$i]}"; done
one 4096 base ""
sort -rn /tmp/sp_4096.txt | tee -a $L
mapfile -t TOP < <(sort -rn /tmp/sp_4096.txt | grep -- "-D" | head -2 | cut -d' ' -f2-)
for r in 1 2; do one 4096 base ""; for t in "${TOP[@]}"; do one 4096 v20 "$t"; done; done
one 8192 base ""; for t in "${TOP[@]}"; do one 8192 v20 "$t"; done
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -3 | tee -a $L
