#!/bin/bash
# On an H100 (asked for nvidia-h100-x1), with the code of 2026-12-06 that checks one shape past
# the asked size on every side at once (grade::shapes::past_every_side: 4,097 to 4,352 at the
# scoreboard's 1024 on a GPU): the red-team kernel wrong only where M, N and K all pass 1,300
# (research/red-team/ocl/04-joint-large) and the course's case wrong only where all pass 512,
# by `lab grade` and on the scoreboard, with the binary before the change (old) and after
# (new); grading time of the references of 04, 10, 11 and 12 by `lab grade`, old and new in
# turn, twice (NVIDIA's kernel cache off); the references of 04, 10 and 11 graded as a
# student on the scoreboard three times with the new binary. No Oclgrind on the device.
set -u
NEW=$PWD/device-bin/g42/lab
OLD=$PWD/device-bin/g42/lab-old
K=$(mktemp -d)
mkdir -p "$K/joint1300" "$K/joint512"
cp research/red-team/ocl/04-joint-large/04_naive_kernel.cl "$K/joint1300/"
sed 's/    C\[row \* N + col\] = acc;/    C[row * N + col] = (M > 512 \&\& N > 512 \&\& K > 512 \&\& col == N - 1) ? 0.0f : acc;/' \
  solutions/04_naive_kernel.cl > "$K/joint512/04_naive_kernel.cl"
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
sha1sum $NEW $OLD $K/*/*.cl | tee -a $L
grep -h '512 &&' $K/joint512/*.cl | tee -a $L
for k in joint1300 joint512; do
  for b in old new; do
    B=$NEW; [ $b = old ] && B=$OLD
    echo "== $k, $b binary, lab grade 04 (t=${SECONDS}s)" | tee -a $L
    timeout 120 $B grade 4 --device NVIDIA --kernels $K/$k 2>&1 | grep -E "^  [A-Za-z]" | cut -c1-600 | tee -a $L
    echo "== $k, $b binary, scoreboard (t=${SECONDS}s)" | tee -a $L
    timeout 120 $B --device NVIDIA --kernels $K/$k --lesson 4 2>&1 | grep -E "^\| |device" | cut -c1-300 | tee -a $L
  done
done
for round in 1 2; do
  for b in old new; do
    B=$NEW; [ $b = old ] && B=$OLD
    for les in 4 10 11 12; do
      s=$SECONDS
      r=$(timeout 180 $B grade $les --device NVIDIA --kernels solutions 2>&1 | grep -E "^  (PASSED|FAIL|[A-Z]{4,})" | head -1 | cut -c1-200)
      echo "time round $round $b lesson $les: $((SECONDS - s)) s: $r" | tee -a $L
    done
  done
done
echo "== lab grade 11, new, full (t=${SECONDS}s)" | tee -a $L
timeout 180 $NEW grade 11 --device NVIDIA --kernels solutions 2>&1 | grep -E "^  [A-Za-z]" | cut -c1-900 | tee -a $L
for i in 1 2 3; do
  echo "== ties, new, run $i (t=${SECONDS}s)" | tee -a $L
  timeout 90 $NEW --device NVIDIA --kernels solutions --lesson 4 --lesson 10 --lesson 11 2>&1 | grep -E "^\| |tie|device" | cut -c1-300 | tee -a $L
done
date -u | tee -a $L
