#!/bin/bash
# Call 36 (H200, 2026-11-29): lesson 11 with deeper pipelines now that NVIDIA's OpenCL is known to
# accept static local memory past 48 KB (research/ozaki-12, session of 2026-11-29 evening).
# - the course's own host refuses STAGES > 4 (check_defines in lessons/11_matrix_units.rs): shown
#   once with the stock binary (target/release/11_matrix_units, current main);
# - every other set runs through the research host: the same lesson binary built with
#   variants/stages-wide.patch (STAGES 2..12 allowed; nothing else changed), carried as
#   research/perf-11/__pycache__/11_matrix_units_wide, and the kernel variants/v22.cl (the
#   solution with the wait exact for every depth, and KK1 = the slices of a k-step not unrolled);
# - each set checked first at 259x133x301 (partial blocks, K and N not multiples of 4), then timed at
#   8192 and 4096 (every timed run also checks its C against float64); cuBLAS FP32 (TF32 off) in the
#   same command; the lesson-12 prototype (research/ozaki-12/host.c) at 8192, 4096 and 2048.
set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
L=$OUT/log.txt
STOCK=./target/release/11_matrix_units
WIDE=./research/perf-11/__pycache__/11_matrix_units_wide
mkdir -p /tmp/var/v22 && cp research/perf-11/scripts/variants/v22.cl /tmp/var/v22/11_matrix_units.cl
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,memory.total --format=csv | tee $L
date -u +%FT%TZ | tee -a $L
(nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 2000 > $OUT/nvidia-smi.csv 2>&1) &
SMI=$!
gcc -O2 -DHAVE_CL_H -o /tmp/host research/ozaki-12/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
G="-D BM=128 -D BN=128 -D WM=64 -D WN=64"
# name|kernel (sol = solutions/, v22 = variants/v22.cl)|defines
SETS=(
  "v22-bk8-s5|v22|-D BK=8 -D STAGES=5"
  "v22-bk8-s6|v22|-D BK=8 -D STAGES=6"
  "v22-bk8-s8|v22|-D BK=8 -D STAGES=8"
  "v22-bk16-s3|v22|-D BK=16 -D STAGES=3"
  "v22-bk16-s4|v22|-D BK=16 -D STAGES=4"
  "v22-bk16-s5|v22|-D BK=16 -D STAGES=5"
  "v22-bk16-s4-kk1|v22|-D BK=16 -D STAGES=4 -D KK1=1"
  "v22-bk32-s3-kk1|v22|-D BK=32 -D STAGES=3 -D KK1=1"
  "sol-bk8-s6|sol|-D BK=8 -D STAGES=6"
  "v22-bk8-s4|v22|-D BK=8 -D STAGES=4"
)
run() { # bin name kernel defines size-args
  local bin=$1 name=$2 k=$3 d=$4; shift 4
  if [ $k = sol ]; then K="--solution"; else K="--kernels /tmp/var/$k"; fi
  echo "== $name | $* | $d | t=${SECONDS}s" | tee -a $L
  timeout 90 $bin $K "$@" --no-compare $G $d --record $OUT/l11.csv 2>&1 | grep -E "defines|check|time |speed|fail|WRONG|rror|must" | tee -a $L
}
base() { run $STOCK "sol-bk8-s4 (course host)" sol "-D BK=8 -D STAGES=4" "$@"; }
echo "#### the course's own host refuses STAGES=5" | tee -a $L
timeout 60 $STOCK --solution --size 256 --no-compare $G -D BK=8 -D STAGES=5 2>&1 | tail -4 | tee -a $L
echo "#### checks at 259x133x301" | tee -a $L
for s in "${SETS[@]}"; do IFS='|' read n k d <<< "$s"; run $WIDE "$n" $k "$d" -m 259 -n 133 -k 301; done
echo "#### 8192" | tee -a $L
base --size 8192
for s in "${SETS[@]}"; do IFS='|' read n k d <<< "$s"; [ $n = v22-bk8-s4 ] && continue; run $WIDE "$n" $k "$d" --size 8192; done
base --size 8192
echo "#### cuBLAS FP32, TF32 off (t=${SECONDS}s)" | tee -a $L
timeout 150 python3 scripts/cublas_sgemm.py 2048 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -4 | tee -a $L
echo "#### lesson-12 prototype (t=${SECONDS}s)" | tee -a $L
FIN="-D WM=64 -D WN=64 -D GROUPM=16 -D BK=128 -D STAGES=3 -D CONV=2 -D REC4=3 -D BATCH=1 -D RND=1 -D UMOD=1"
timeout 40 /tmp/host 1000 777 513 7 uniform 2 7 1 "$FIN" 2>&1 | grep -E "RESULT|rror" | cut -c1-420 | tee -a $L
for a in 8192 4096 2048 8192; do
  timeout 60 /tmp/host $a $a $a 7 uniform 10 7 0 "$FIN" 2>&1 | grep -E "RESULT|KERN|rror" | tee -a $L
done
echo "#### 4096" | tee -a $L
base --size 4096
for s in "${SETS[@]}"; do IFS='|' read n k d <<< "$s"; run $WIDE "$n" $k "$d" --size 4096; done
base --size 4096
echo "#### 2048" | tee -a $L
base --size 2048
run $WIDE v22-bk8-s6 v22 "-D BK=8 -D STAGES=6" --size 2048
run $WIDE v22-bk16-s4 v22 "-D BK=16 -D STAGES=4" --size 2048
echo "#### 8192 again, if time (t=${SECONDS}s)" | tee -a $L
if [ $SECONDS -lt 420 ]; then
  run $WIDE v22-bk8-s6 v22 "-D BK=8 -D STAGES=6" --size 8192
  base --size 8192
  run $WIDE v22-bk16-s4 v22 "-D BK=16 -D STAGES=4" --size 8192
  run $WIDE v22-bk8-s5 v22 "-D BK=8 -D STAGES=5" --size 8192
  timeout 60 python3 scripts/cublas_sgemm.py 8192 --csv $OUT/cublas.csv 2>&1 | tail -1 | tee -a $L
fi
kill $SMI
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a $L
date -u +%FT%TZ | tee -a $L
echo "t=${SECONDS}s" | tee -a $L
