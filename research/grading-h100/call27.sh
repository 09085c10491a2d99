#!/bin/bash
# On an H100 (asked for nvidia-h100-x1), with main's code of 2026-12-07 (f716604, whose grader
# is 90e14ab's): call 23 again with that binary (the references of 04, 10 and 11 graded as a
# student on the scoreboard ten times in a row; kernels wrong only at 1024^3 or only at square
# powers of two from 256 on the scoreboard and by `lab grade`; lessons 11 and 12 by `lab
# grade`), then every GPU lesson's reference (04-12) on the scoreboard once. No Oclgrind on the
# device.
set -u
export D=${D:-$PWD/device-bin/g42}   # the lab binary, built on a CPU machine (call 28 passes another)
bash "$(dirname "$0")/call23.sh"
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
L=$OUT/log.txt
echo "== every GPU lesson's reference on the scoreboard (t=${SECONDS}s)" | tee -a $L
timeout 300 $D/lab --device NVIDIA --kernels solutions --lesson 4 --lesson 5 --lesson 6 --lesson 7 \
  --lesson 8 --lesson 9 --lesson 10 --lesson 11 --lesson 12 2>&1 | grep -E "^\| |tie|device" | cut -c1-300 | tee -a $L
date -u | tee -a $L
