#!/bin/bash
# Lesson 10 and cuBLAS at 1024, 2048 and 4096, each timed warm (the same inputs every call,
# back to back) and the way the course times itself (fresh inputs every call, C poisoned, each
# result checked), in one device command. Run from the checkout's root after the OpenCL ICD
# line, with everything it reads in device-bin/h35/: the release binaries (10_tuned,
# l10bench), scripts/cublas_sgemm.py, this script, ocl-icd's libOpenCL.so.1 (lib/, used only
# where the machine has none) and a copy of the course's solutions/, kernels/, lessons/ and
# results/ (root/).
set -x
D=$PWD/device-bin/h35
export LAB_ROOT=$D/root LAB_DEVICE=NVIDIA PYTHONUNBUFFERED=1
ldconfig -p | grep -q libOpenCL.so.1 || export LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH
L=$OUT/log.txt
RUN=$(date -u +%Y-%m-%dT%H:%M:%SZ)-h200-fresh10
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,pstate --format=csv | tee $L
nvidia-smi -q -d CLOCK | grep -A4 -E "Applications Clocks|Max Clocks" | tee -a $L
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_properties(0))" | tee -a $L
echo "run $RUN" | tee -a $L; date -u | tee -a $L
# The SM clock, power and state every 100 ms through the whole command.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,pstate,utilization.gpu --format=csv -lms 100 > $OUT/clocks.csv &
SMI=$!
echo "== smoke: lesson 10 at 256" | tee -a $L
timeout 60 $D/10_tuned --solution -s 256 --no-compare 2>&1 | tee -a $L
T1024="TSM=128 TSN=64 TSK=32 WPTM=8 WPTN=4 ALONGK=1"     # tuned for 1024 on the H200 (results/tuned.csv)
T2048="TSM=128 TSN=256 TSK=16 WPTM=8 WPTN=16 ALONGK=0"   # tuned for 2048 and 4096 on the H200
dflags() { for d in $1; do echo -n "-D $d "; done; }
cub() { echo "== cuBLAS $1 ($2)" | tee -a $L
  timeout 150 python3 $D/cublas_sgemm.py $2 --inputs $1 --run $RUN --csv $OUT/cublas.csv 2>&1 | tee -a $L; }
l10() { echo "== 10_tuned $*" | tee -a $L
  timeout 90 $D/10_tuned --solution --no-compare --record $OUT/10_tuned.csv "$@" 2>&1 | grep -E "defines|time|speed|rror|fail|wrong" | tee -a $L; }
cub same "1024 2048 4096"
cub fresh "1024 2048 4096"
cub rotating "1024 2048 4096"
l10 -s 1024
l10 -s 1024 $(dflags "$T2048")
l10 -s 2048
l10 -s 4096
J=/tmp/fresh10-jobs.txt; : > $J
for m in warm gap flush fresh course; do
  echo "t1024_$m $LAB_ROOT/solutions/10_tuned.cl 1024 $T1024 mode:$m" >> $J
  echo "t2048_at1024_$m $LAB_ROOT/solutions/10_tuned.cl 1024 $T2048 mode:$m" >> $J
done
for s in 2048 4096; do for m in warm gap flush fresh course; do
  echo "t2048_at${s}_$m $LAB_ROOT/solutions/10_tuned.cl $s $T2048 mode:$m" >> $J; done; done
for m in course fresh flush gap warm; do echo "again_t1024_$m $LAB_ROOT/solutions/10_tuned.cl 1024 $T1024 mode:$m" >> $J; done
echo "== l10bench" | tee -a $L
cat $J >> $L
timeout 240 $D/l10bench $J $OUT/l10bench 200 2> $OUT/l10bench-device.txt | tee -a $L
l10 -s 1024
cub fresh 1024
cub same 1024
date -u | tee -a $L
kill $SMI
