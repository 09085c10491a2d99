# Lesson 11 with K split by the host (SPLIT_K: the grid holds SPLIT_K problems of
# M × N × K/SPLIT_K, the host sums their C), against the blocks chosen today (64×64 blocks
# where 128×128 would not fill the device), and cuBLAS's kernel (CUPTI, fresh inputs after
# 15 ms idle, as research/kernel-time/), at shapes too small to fill an H100/H200 with 128×128
# blocks, in one device command.
set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u +%FT%TZ
SHAPES=${SHAPES:-"1024x1024x1024 1023x1023x1023 1024x1024x4096 1024x1024x8192 512x512x8192 1536x1536x1536 2048x2048x2048"}
BIG="-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4"
SMALL="-D BM=64 -D BN=64 -D BK=16 -D WM=32 -D WN=32 -D STAGES=4"
python3 device-bin/cublas_kernel.py --fresh-only $SHAPES 2>&1 | grep -v "Warn\|warn" | tee $OUT/cublas.csv
run() {
  echo "== $m $n $k $*"
  timeout 100 ./device-bin/11_matrix_units --solution --no-compare -m $m -n $n -k $k "$@" 2>&1 \
    | grep -E "defines|check|time |speed |rror"
}
for s in $SHAPES; do
  IFS=x read m n k <<< "$s"
  [ -n "${DEFAULT:-}" ] && run
  for p in 1 2 4; do run $SMALL -D SPLIT_K=$p; done
  for p in 1 2 4 8 16; do run $BIG -D SPLIT_K=$p; done
done
date -u +%FT%TZ
