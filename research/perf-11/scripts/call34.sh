#!/bin/bash
# Session 6, call 34: call 33 on an H200, if one comes: lesson 11 with B's big by the unit's conversion (cvt.rn.tf32.f32)
# beside lesson 10, CLBlast and cuBLAS (TF32 off) in one command; the solution again and the
# previous one (var/prev) at 4096 and 8192; sizes not multiples of 4; errors on seed 7; the compiler's account.
D=$PWD/.dev/w26
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH CLBLAST_LIBRARY=$D/lib/libclblast.so.1
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: stopping"; exit 0; }
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 1000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-h200-l11
echo "run $RUN" | tee -a $L
echo "== ladder: lessons 10 and 11, CLBlast" | tee -a $L
timeout 300 $D/bin/lab ladder --lessons 10,11 --sizes 1024,2048,4096,8192 --no-variants --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
echo "== cuBLAS, TF32 off" | tee -a $L
timeout 150 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 --lab-inputs 7 --run $RUN --csv $OUT/ladder.csv 2>&1 | tee -a $L
echo "== the solution again" | tee -a $L
for s in 4096 8192; do for who in sol prev sol prev; do
  if [ $who = sol ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  echo "== $s $who" | tee -a $L
  timeout 90 $D/bin/11_matrix_units $K --size $s --no-compare --record $OUT/rn.csv 2>&1 | grep -E "error|check|speed|fail|wrong" | tee -a $L
done; done
for s in 4095 2047; do for who in sol prev; do
  if [ $who = sol ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  echo "== $s $who" | tee -a $L
  timeout 90 $D/bin/11_matrix_units $K --size $s --no-compare --record $OUT/rn.csv 2>&1 | grep -E "error|check|speed|fail|wrong" | tee -a $L
done; done
kill $SMI
echo "== accuracy, seed 7" | tee -a $L
ARUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-h200-acc
timeout 200 $D/bin/lab accuracy --lessons 10,11 --sizes 1024,2048,4096,8192 --seed 7 --c-out /tmp/acc 2>&1 | tee -a $L
timeout 200 python3 scripts/cublas_sgemm.py 1024 2048 4096 8192 --lab-inputs 7 --lab-c /tmp/acc --run $ARUN --accuracy-csv $OUT/accuracy.csv 2>&1 | tee -a $L
echo "== evidence" | tee -a $L
mkdir -p $OUT/evidence
$D/bin/lab evidence --lessons 11 --solution --out $OUT/evidence 2>&1 | tail -3 | tee -a $L
R=/tmp/ev; mkdir -p $R
f=$(ls $OUT/evidence/*.ptx | head -1); tr -d '\000' < $f > $R/k.ptx
ptxas -v -arch=sm_90 -o $R/k.cubin $R/k.ptx > $R/ptxas.txt 2>&1
cuobjdump -sass $R/k.cubin > $OUT/sass-11.txt
{ echo "== 11_matrix_units"; cat $R/ptxas.txt; echo "-- opcodes in the whole kernel";
  grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z][A-Z0-9._]+' $OUT/sass-11.txt | awk '{print $2}' | sort | uniq -c | sort -rn | head -30;
  python3 $D/loop.py $OUT/sass-11.txt; } > $OUT/evidence.txt 2>&1
cat $OUT/evidence.txt | tail -12
