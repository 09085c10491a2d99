#!/bin/bash
# Lesson 11 on one device, in one command: block shapes at 4096, the two best at every size,
# then lesson 10, lesson 11 (its defaults), CLBlast (the ladder) and cuBLAS (TF32 off) on the
# ladder's own inputs, and the compiler's evidence.
D=$PWD/.dev/l11
export LAB_ROOT=$D/root LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH CLBLAST_LIBRARY=$D/lib/libclblast.so.1
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 1000 > $OUT/smi.csv 2>&1) &
SMI=$!
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-h100-l11
C=$OUT/l11-configs.csv
echo "== diag: default, async copies" | tee -a $L
timeout 60 $D/bin/11_matrix_units --solution --size 4096 --no-compare 2>&1 | grep -E "error|check|speed" | tee -a $L
echo "== diag: default, copies by load and store" | tee -a $L
timeout 60 $D/bin/11_matrix_units --solution --size 4096 --no-compare -D ASYNC_COPY=0 2>&1 | grep -E "error|check|speed" | tee -a $L
echo "== diag: small K" | tee -a $L
timeout 60 $D/bin/11_matrix_units --solution -m 128 -n 128 -k 16 --no-compare -D ASYNC_COPY=0 2>&1 | grep -E "error|check|speed" | tee -a $L
X=""
if timeout 60 $D/bin/11_matrix_units --solution --size 1024 --no-compare 2>&1 | grep -q "check.*passed"; then X=""; else X="-D ASYNC_COPY=0"; fi
echo "extra: $X" | tee -a $L
cfg() { echo "-D BM=$1 -D BN=$2 -D BK=$3 -D WM=$4 -D WN=$5 -D STAGES=$6 $X"; }
CFGS=("128 128 16 64 32 2" "128 128 8 64 32 4" "128 128 8 64 32 3" "128 64 16 64 32 3" "64 128 16 32 64 3"
      "128 128 16 32 64 2" "128 256 8 64 64 3" "64 64 16 32 32 4" "128 128 16 64 64 2" "256 128 8 64 64 2")
for c in "${CFGS[@]}"; do
  echo "== 4096 $c" | tee -a $L
  timeout 90 $D/bin/11_matrix_units --solution --size 4096 --no-compare $(cfg $c) --record $C 2>&1 | grep -E "error|check|speed|time|wrong|fail|ptxas|spill|unit" | tee -a $L
done
# The two fastest at 4096, at every size.
BEST=$(python3 - "$C" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rows.sort(key=lambda r: -float(r["gflops"]))
seen = []
for r in rows:
    if r["defines"] not in seen:
        seen.append(r["defines"])
for d in seen[:2]:
    print(d.replace(" ", ","))
PY
)
echo "best: $BEST" | tee -a $L
if [ -z "$BEST" ]; then kill $SMI; exit 0; fi
for d in $BEST; do
  for s in 1024 2048 4096 8192; do
    echo "== $s $d" | tee -a $L
    timeout 120 $D/bin/11_matrix_units --solution --size $s --no-compare $(echo $d | tr ',' '\n' | sed 's/^/-D /') $X --record $OUT/l11-best.csv 2>&1 | grep -E "error|check|speed|wrong|fail" | tee -a $L
  done
done
echo "== ladder: lessons 10 and 11, CLBlast" | tee -a $L
timeout 240 $D/bin/lab ladder --lessons 10,11 --sizes 1024,2048,4096,8192 --no-variants --run $RUN --out $OUT/ladder.csv 2>&1 | tee -a $L
echo "== cuBLAS, TF32 off, the ladder's inputs" | tee -a $L
timeout 150 python3 $D/cublas_sgemm.py 1024 2048 4096 8192 --lab-inputs 7 --run $RUN --csv $OUT/ladder.csv 2>&1 | tee -a $L
kill $SMI
echo "== evidence" | tee -a $L
mkdir -p /tmp/ev
$D/bin/lab evidence --lessons 10,11 --size 4096 --out /tmp/ev 2>&1 | tee -a $L
for f in /tmp/ev/*.ptx; do
  n=$(basename $f .ptx); tr -d '\000' < $f > /tmp/ev/$n.clean.ptx
  { echo "== $n"; ptxas -v -arch=sm_90 -o /tmp/ev/$n.cubin /tmp/ev/$n.clean.ptx 2>&1;
    cuobjdump -sass /tmp/ev/$n.cubin | grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z][A-Z0-9._]+' | awk '{print $2}' | sort | uniq -c | sort -rn | head -25; } >> $OUT/evidence.txt 2>&1
done
cat /tmp/ev/*.build.log >> $OUT/evidence.txt
tar czf $OUT/ev.tgz -C /tmp ev
cat $OUT/evidence.txt | head -80
