#!/bin/bash
# Session 6, call 31: the same PTX is faster or slower depending on how the driver compiles it
# (call 30: v19 5 % slower than the solution through OpenCL, which builds for sm_90a, and 5 %
# faster through the CUDA driver API). The solution and v19 built with extra OpenCL options
# (LAB_EXTRA_OPTS, variants/extra-opts.patch): the compiler's account and the speed of each.
D=$PWD/.dev/w25
export LAB_ROOT=$PWD LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $L
date -u | tee -a $L
cfg="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"
acct() { o=$1; for w in sol v19; do R=/tmp/evx; rm -rf $R
  if [ $w = sol ]; then K="--solution"; else K="--kernels $D/var/ev_v19"; fi
  LAB_EXTRA_OPTS="$o" $D/bin/lab_x evidence --lessons 11 --size 4096 $K --out $R > $R.log 2>&1 || tail -3 $R.log
  echo "-- $w [$o]: $(grep -h -E "for 'sm|spill" $R/*.build.log | tr -s ' ' | tr '\n' ' ')" | tee -a $L; done; }
one() { s=$1; who=$2; o=$3; echo "== $s $who [$o]" | tee -a $L
  if [ $who = sol ]; then K="--solution"; else K="--kernels $D/var/$who"; fi
  LAB_EXTRA_OPTS="$o" timeout 60 $D/bin/11_matrix_units_x $K --size $s --no-compare $cfg --record $OUT/x.csv 2>&1 | grep -E "check|speed|fail|WRONG|rror" | tee -a $L; }
for o in "" "-cl-nv-arch sm_90" "-cl-nv-opt-level=2" "-cl-nv-opt-level=4"; do acct "$o"; done
for r in 1 2; do for o in "" "-cl-nv-arch sm_90"; do one 4096 sol "$o"; one 4096 v19 "$o"; done; done
for o in "-cl-nv-opt-level=2"; do one 4096 sol "$o"; one 4096 v19 "$o"; done
for o in "" "-cl-nv-arch sm_90"; do one 8192 sol "$o"; one 8192 v19 "$o"; done
echo "== cuBLAS" | tee -a $L
timeout 120 python3 scripts/cublas_sgemm.py 4096 8192 --csv $OUT/cublas.csv 2>&1 | tail -3 | tee -a $L
