#!/bin/bash
# Session 2's recorded run (call 4 again, after the variants of calls 6 to 8 lost): lesson 11 beside
# lesson 10, CLBlast and cuBLAS (TF32 off) in one command (cuBLAS checked on the inputs of seed 7; since
# 2026-11-25 evening the ladder checks on inputs the harness draws itself), then
# the compiler's account of lessons 10 and 11 and their main loops' SASS (loop.py).
D=$PWD/.dev/w19
export LAB_ROOT=$D/root LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH CLBLAST_LIBRARY=$D/lib/libclblast.so.1
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log9.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 1000 > $OUT/smi9.csv 2>&1) &
SMI=$!
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-h100-l11
echo "== ladder: lessons 10 and 11, CLBlast" | tee -a $L
timeout 300 $D/bin/lab ladder --lessons 10,11 --sizes 1024,2048,4096,8192 --no-variants --run $RUN --out $OUT/ladder9.csv 2>&1 | tee -a $L
echo "== cuBLAS, TF32 off, the ladder's inputs" | tee -a $L
timeout 150 python3 $D/cublas_sgemm.py 1024 2048 4096 8192 --lab-inputs 7 --run $RUN --csv $OUT/ladder9.csv 2>&1 | tee -a $L
kill $SMI
echo "== evidence" | tee -a $L
mkdir -p /tmp/ev
$D/bin/lab evidence --lessons 10,11 --size 4096 --out /tmp/ev 2>&1 | tee -a $L
for f in /tmp/ev/*.ptx; do
  n=$(basename $f .ptx); tr -d '\000' < $f > /tmp/ev/$n.clean.ptx
  ptxas -v -arch=sm_90 -o /tmp/ev/$n.cubin /tmp/ev/$n.clean.ptx > /tmp/ev/$n.ptxas.txt 2>&1
  cuobjdump -sass /tmp/ev/$n.cubin > /tmp/ev/$n.sass
  { echo "== $n"; cat /tmp/ev/$n.ptxas.txt; echo "-- opcodes in the whole kernel";
    grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z][A-Z0-9._]+' /tmp/ev/$n.sass | awk '{print $2}' | sort | uniq -c | sort -rn | head -30;
    python3 $D/loop.py /tmp/ev/$n.sass; } >> $OUT/evidence9.txt 2>&1
done
cat /tmp/ev/*.build.log >> $OUT/evidence9.txt
tar czf $OUT/ev9.tgz -C /tmp ev
grep -E "11_matrix|10_tuned|CLBlast|^ +[0-9]+ +[0-9.]+ ms" $L
cat $OUT/evidence9.txt | head -75
ls -la $D/lib; ldd $D/bin/lab | grep -i opencl
